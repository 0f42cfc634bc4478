package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

func pollTests() map[string]func(*testing.T, Opener) {
	return map[string]func(*testing.T, Opener){
		"Polls_ClaimLeaseFinish":          testPollLease,
		"Polls_PausedWhileReauthRequired": testPollPaused,
	}
}

func newPollTrigger(t *testing.T, f *connFixture, conn store.Connection, cursor string) store.Trigger {
	t.Helper()
	tr, err := f.s.CreatePollTrigger(context.Background(), store.Trigger{ID: store.NewID(), ProjectID: f.project.ID, ConnectionID: conn.ID,
		ConnectorID: "github", Event: "github_poll", TokenHash: store.NewID(), Setup: "poll"}, cursor)
	if err != nil {
		t.Fatal(err)
	}
	return tr
}

func testPollLease(t *testing.T, open Opener) {
	clock := NewClock()
	f := newConnFixture(t, open, clock.Now)
	ctx := context.Background()
	conn := f.create(t, "u1", "", false)
	tr := newPollTrigger(t, f, conn, `{"after":1}`)
	if got, err := f.s.TriggerByID(ctx, tr.ID); err != nil || got.ProjectID != f.project.ID || got.UserID != "u1" || got.Setup != "poll" {
		t.Fatalf("by id: %+v %v", got, err)
	}
	st, err := f.s.GetPollState(ctx, tr.ID)
	if err != nil || st.Cursor != `{"after":1}` || !st.NextDueAt.Equal(clock.Now()) || st.LastPolledAt != nil {
		t.Fatalf("state: %+v %v", st, err)
	}
	if due, ok, err := f.s.NextPollDue(ctx); err != nil || !ok || !due.Equal(clock.Now()) {
		t.Fatalf("next due: %v %v %v", due, ok, err)
	}
	a, err := f.s.ClaimPolls(ctx, "a", 10, time.Minute)
	if err != nil || len(a) != 1 || a[0].TriggerID != tr.ID {
		t.Fatalf("claim a: %+v %v", a, err)
	}
	if b, err := f.s.ClaimPolls(ctx, "b", 10, time.Minute); err != nil || len(b) != 0 {
		t.Fatalf("b claimed a leased trigger: %+v %v", b, err)
	}
	clock.Advance(time.Minute + time.Millisecond)
	if b, err := f.s.ClaimPolls(ctx, "b", 10, time.Minute); err != nil || len(b) != 1 {
		t.Fatalf("b could not take over an expired lease: %+v %v", b, err)
	}
	if err := f.s.FinishPoll(ctx, tr.ID, "a", `{"after":2}`, clock.Now(), 0, ""); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("a finished a trigger b holds: %v", err)
	}
	next := clock.Now().Add(5 * time.Minute)
	if err := f.s.FinishPoll(ctx, tr.ID, "b", `{"after":3}`, next, 2, "the provider answered HTTP 503"); err != nil {
		t.Fatal(err)
	}
	st, _ = f.s.GetPollState(ctx, tr.ID)
	if st.Cursor != `{"after":3}` || !st.NextDueAt.Equal(next) || st.Failures != 2 || st.LastError == "" || st.LastPolledAt == nil {
		t.Fatalf("after finish: %+v", st)
	}
	if c, err := f.s.ClaimPolls(ctx, "c", 10, time.Minute); err != nil || len(c) != 0 {
		t.Fatalf("claimed before due: %+v %v", c, err)
	}
	clock.Advance(5 * time.Minute)
	if c, err := f.s.ClaimPolls(ctx, "c", 10, time.Minute); err != nil || len(c) != 1 || c[0].Failures != 2 {
		t.Fatalf("claim when due: %+v %v", c, err)
	}
	if err := f.s.DeleteTrigger(ctx, f.project.ID, tr.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.GetPollState(ctx, tr.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("poll state outlived its trigger: %v", err)
	}
}

func testPollPaused(t *testing.T, open Opener) {
	clock := NewClock()
	f := newConnFixture(t, open, clock.Now)
	ctx := context.Background()
	conn := f.create(t, "u1", "", false)
	newPollTrigger(t, f, conn, "")
	if err := f.s.SetConnectionStatus(ctx, conn.ID, conn.Revision, store.StatusReauthRequired); err != nil {
		t.Fatal(err)
	}
	if got, err := f.s.ClaimPolls(ctx, "a", 10, time.Minute); err != nil || len(got) != 0 {
		t.Fatalf("claimed a trigger of a connection to reconnect: %+v %v", got, err)
	}
	if err := f.s.SetConnectionStatus(ctx, conn.ID, conn.Revision, store.StatusActive); err != nil {
		t.Fatal(err)
	}
	if got, err := f.s.ClaimPolls(ctx, "a", 10, time.Minute); err != nil || len(got) != 1 {
		t.Fatalf("not claimed once reconnected: %+v %v", got, err)
	}
}
