package storetest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

func triggerTests() map[string]func(*testing.T, Opener) {
	return map[string]func(*testing.T, Opener){
		"Triggers_CreateGetByTokenListDelete":       testTriggerLifecycle,
		"Triggers_FireCountsEnqueuesRefusesReplay":  testTriggerFire,
		"Triggers_ConcurrentFiringsCountEachOnce":   testTriggerFireConcurrent,
		"Triggers_HitsCountedAcrossConcurrentCalls": testTriggerHits,
	}
}

func testTriggerLifecycle(t *testing.T, open Opener) {
	clock := NewClock()
	f := newConnFixture(t, open, clock.Now)
	ctx := context.Background()
	mine := f.create(t, "u1", "", false)
	shared := f.create(t, "", "shared", true)
	a, err := f.s.CreateTrigger(ctx, store.Trigger{ID: store.NewID(), ProjectID: f.project.ID, ConnectionID: mine.ID,
		ConnectorID: "github", Event: "issue_opened", TokenHash: "hash-a", Setup: "manual"})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	b, err := f.s.CreateTrigger(ctx, store.Trigger{ID: store.NewID(), ProjectID: f.project.ID, ConnectionID: shared.ID,
		ConnectorID: "github", Event: "push", TokenHash: "hash-b", Config: []byte(`{"repo":"x/y"}`), HookID: "h-1", Secret: []byte("sealed")})
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.s.GetTrigger(ctx, f.project.ID, a.ID)
	if err != nil || got.UserID != "u1" || string(got.Config) != "{}" || got.Setup != "manual" || got.Secret != nil ||
		got.FireCount != 0 || got.LastFiredAt != nil || !got.CreatedAt.Equal(a.CreatedAt) {
		t.Fatalf("get: %+v %v", got, err)
	}
	byToken, err := f.s.TriggerByToken(ctx, "hash-b")
	if err != nil || byToken.ID != b.ID || byToken.UserID != "" || string(byToken.Config) != `{"repo":"x/y"}` || byToken.HookID != "h-1" {
		t.Fatalf("by token: %+v %v", byToken, err)
	}
	if _, err := f.s.TriggerByToken(ctx, "hash-unknown"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown token: %v", err)
	}
	other, _ := f.s.CreateProject(ctx, "other")
	if _, err := f.s.GetTrigger(ctx, other.ID, a.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another project's trigger: %v", err)
	}
	ids := func(ts []store.Trigger) []string {
		out := []string{}
		for _, tr := range ts {
			out = append(out, tr.ID)
		}
		return out
	}
	if all, err := f.s.ListTriggers(ctx, f.project.ID, ""); err != nil || !slices.Equal(ids(all), []string{a.ID, b.ID}) {
		t.Fatalf("list all: %v %v", ids(all), err)
	}
	if u1, _ := f.s.ListTriggers(ctx, f.project.ID, "u1"); !slices.Equal(ids(u1), []string{a.ID}) {
		t.Fatalf("list u1: %v", ids(u1))
	}
	if none, err := f.s.ListTriggers(ctx, other.ID, ""); err != nil || none == nil || len(none) != 0 {
		t.Fatalf("list of another project: %#v %v", none, err)
	}

	if err := f.s.SetTriggerSecret(ctx, a.ID, []byte("handshake")); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.s.GetTrigger(ctx, f.project.ID, a.ID); string(got.Secret) != "handshake" {
		t.Fatalf("secret %q", got.Secret)
	}
	if err := f.s.DeleteTrigger(ctx, other.ID, a.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("delete from another project: %v", err)
	}
	if err := f.s.DeleteTrigger(ctx, f.project.ID, a.ID); err != nil {
		t.Fatal(err)
	}
	if err := f.s.DeleteTrigger(ctx, f.project.ID, a.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("delete twice: %v", err)
	}
	// Deleting the account deletes its triggers.
	if err := f.s.DeleteConnection(ctx, f.project.ID, shared.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.TriggerByToken(ctx, "hash-b"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("trigger of a deleted account: %v", err)
	}
}

func testTriggerFire(t *testing.T, open Opener) {
	clock := NewClock()
	f := newHookFixture(t, open, clock.Now)
	ctx := context.Background()
	fired := f.webhook(t, "trigger.fired")
	f.webhook(t, "something.else")
	both := f.webhook(t, "something.else", "trigger.fired")
	calls := 0
	payload := func() ([]byte, error) { calls++; return []byte(`{"event":"issue_opened"}`), nil }

	ids, err := f.s.FireTrigger(ctx, f.trigger, "digest-1", "trigger.fired", store.EventCause{}, payload)
	if err != nil || len(ids) != 2 || calls != 1 {
		t.Fatalf("fire: %v %v, payload built %d times", ids, err, calls)
	}
	for _, w := range []store.Webhook{fired, both} {
		if d, _ := f.s.ListDeliveries(ctx, f.project.ID, w.ID, 10); len(d) != 1 || string(d[0].Payload) != `{"event":"issue_opened"}` {
			t.Fatalf("webhook %s deliveries: %+v", w.URL, d)
		}
	}
	got, _ := f.s.GetTrigger(ctx, f.project.ID, f.trigger.ID)
	if got.FireCount != 1 || got.LastFiredAt == nil || !got.LastFiredAt.Equal(clock.Now()) {
		t.Fatalf("after fire: count %d, last %v", got.FireCount, got.LastFiredAt)
	}

	// The same digest within the hour is a replay: nothing counted or queued.
	clock.Advance(59 * time.Minute)
	if _, err := f.s.FireTrigger(ctx, f.trigger, "digest-1", "trigger.fired", store.EventCause{}, payload); !errors.Is(err, store.ErrReplayed) {
		t.Fatalf("replay: %v", err)
	}
	if got, _ := f.s.GetTrigger(ctx, f.project.ID, f.trigger.ID); got.FireCount != 1 {
		t.Fatalf("a replay was counted: %d", got.FireCount)
	}
	// An event no webhook wants is counted, and builds no payload.
	if ids, err := f.s.FireTrigger(ctx, f.trigger, "digest-2", "nobody.listens", store.EventCause{}, payload); err != nil || len(ids) != 0 || calls != 1 {
		t.Fatalf("unsubscribed event: %v %v, payload built %d times", ids, err, calls)
	}
	// A payload that fails rolls everything back, the digest too.
	boom := errors.New("boom")
	if _, err := f.s.FireTrigger(ctx, f.trigger, "digest-3", "trigger.fired", store.EventCause{}, func() ([]byte, error) { return nil, boom }); !errors.Is(err, boom) {
		t.Fatalf("failing payload: %v", err)
	}
	if ids, err := f.s.FireTrigger(ctx, f.trigger, "digest-3", "trigger.fired", store.EventCause{}, payload); err != nil || len(ids) != 2 {
		t.Fatalf("retry after a failed payload: %v %v", ids, err)
	}
	// After the hour the digest is taken over.
	clock.Advance(time.Hour + time.Millisecond)
	if _, err := f.s.FireTrigger(ctx, f.trigger, "digest-1", "trigger.fired", store.EventCause{}, payload); err != nil {
		t.Fatalf("digest older than the hour: %v", err)
	}
	if got, _ := f.s.GetTrigger(ctx, f.project.ID, f.trigger.ID); got.FireCount != 4 {
		t.Fatalf("fire count %d, want 4", got.FireCount)
	}
	if n, _ := f.s.CountDeliveries(ctx, store.DeliveryPending); n != 6 {
		t.Fatalf("%d pending deliveries, want 6", n)
	}
}

// testTriggerFireConcurrent: concurrent firings are each counted once, and
// of concurrent deliveries with one digest exactly one gets through.
func testTriggerFireConcurrent(t *testing.T, open Opener) {
	f := newHookFixture(t, open, nil)
	ctx := context.Background()
	f.webhook(t, "trigger.fired")
	payload := func() ([]byte, error) { return []byte(`{}`), nil }
	const n = 24
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { _, errs[i] = f.s.FireTrigger(ctx, f.trigger, "", "trigger.fired", store.EventCause{}, payload) })
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatalf("fire: %v", err)
		}
	}
	got, _ := f.s.GetTrigger(ctx, f.project.ID, f.trigger.ID)
	if pending, _ := f.s.CountDeliveries(ctx, store.DeliveryPending); got.FireCount != n || pending != n {
		t.Fatalf("fire count %d, %d deliveries; want %d each", got.FireCount, pending, n)
	}

	for i := range n {
		wg.Go(func() {
			_, errs[i] = f.s.FireTrigger(ctx, f.trigger, "same-digest", "trigger.fired", store.EventCause{}, payload)
		})
	}
	wg.Wait()
	ok := 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case !errors.Is(err, store.ErrReplayed):
			t.Fatalf("fire with a digest: %v", err)
		}
	}
	got, _ = f.s.GetTrigger(ctx, f.project.ID, f.trigger.ID)
	if ok != 1 || got.FireCount != n+1 {
		t.Fatalf("%d firings of one digest got through (count %d); want 1", ok, got.FireCount)
	}
}

// testTriggerHits: the per-minute ingress counter counts every concurrent
// call exactly once (replicas agree on it), starts again each minute, and
// Cleanup drops past minutes.
func testTriggerHits(t *testing.T, open Opener) {
	clock := NewClock()
	f := newHookFixture(t, open, clock.Now)
	ctx := context.Background()
	const n = 40
	counts := make([]int64, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			c, err := f.s.CountTriggerHit(ctx, f.trigger.ID)
			if err != nil {
				t.Errorf("hit: %v", err)
			}
			counts[i] = c
		})
	}
	wg.Wait()
	slices.Sort(counts)
	for i, c := range counts {
		if c != int64(i+1) {
			t.Fatalf("counts %v, want 1..%d each once", counts, n)
		}
	}
	clock.Advance(time.Minute)
	if c, _ := f.s.CountTriggerHit(ctx, f.trigger.ID); c != 1 {
		t.Fatalf("next minute starts at %d", c)
	}
	clock.Advance(2 * time.Minute)
	if removed, err := f.s.Cleanup(ctx); err != nil || removed != 2 {
		t.Fatalf("cleanup removed %d rows (want the two past minutes), err %v", removed, err)
	}
}
