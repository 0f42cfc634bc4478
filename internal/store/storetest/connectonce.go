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

func connectOnceTests() map[string]func(*testing.T, Opener) {
	return map[string]func(*testing.T, Opener){
		"ConnectLinks_ByTokenAndByID":                  testConnectLinkRead,
		"OAuthStates_TakenOnceUnderConcurrency":        testOAuthStateOnce,
		"OAuthStates_ExpiredOrUnknownAreNotFound":      testOAuthStateExpiry,
		"Connections_RefreshLeaseOneOwnerConcurrently": testRefreshLeaseConcurrent,
		"Connections_ByIDInAnyProject":                 testConnectionByID,
	}
}

func testConnectLinkRead(t *testing.T, open Opener) {
	clock := NewClock()
	f := newConnFixture(t, open, clock.Now)
	ctx := context.Background()
	exp := clock.Now().Add(time.Hour)
	l, err := f.s.CreateConnectLink(ctx, store.ConnectLink{ProjectID: f.project.ID, UserID: "ann", TokenHash: "tok-hash",
		Connectors: []string{"github", "slack"}, AuthConfigs: []string{f.config.Key}, RedirectURL: "https://app.example.com/done", ExpiresAt: exp})
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.s.ConnectLinkByToken(ctx, "tok-hash")
	if err != nil || got.ID != l.ID || got.UserID != "ann" || !slices.Equal(got.Connectors, []string{"github", "slack"}) ||
		!slices.Equal(got.AuthConfigs, []string{f.config.Key}) || got.RedirectURL != "https://app.example.com/done" ||
		!got.ExpiresAt.Equal(exp) || !got.CreatedAt.Equal(clock.Now()) || got.UsedAt != nil {
		t.Fatalf("by token: %+v %v", got, err)
	}
	if byID, err := f.s.ConnectLinkByID(ctx, l.ID); err != nil || byID.TokenHash != "tok-hash" {
		t.Fatalf("by id: %+v %v", byID, err)
	}
	if _, err := f.s.ConnectLinkByToken(ctx, "other-hash"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown token: %v", err)
	}
	if _, err := f.s.ConnectLinkByID(ctx, store.NewID()); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
	// A link of no connector in particular lists none; an expired link is
	// still read (the page shows that it expired).
	open2, err := f.s.CreateConnectLink(ctx, store.ConnectLink{ProjectID: f.project.ID, UserID: "bob", TokenHash: "tok-2", ExpiresAt: clock.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Minute)
	if got, err := f.s.ConnectLinkByToken(ctx, "tok-2"); err != nil || got.ID != open2.ID || len(got.Connectors) != 0 || len(got.AuthConfigs) != 0 {
		t.Fatalf("expired link: %+v %v", got, err)
	}
}

func newOAuthState(t *testing.T, f *connFixture, exp time.Time) store.OAuthState {
	t.Helper()
	ctx := context.Background()
	l, err := f.s.CreateConnectLink(ctx, store.ConnectLink{ProjectID: f.project.ID, UserID: "ann", TokenHash: store.NewID(), ExpiresAt: exp})
	if err != nil {
		t.Fatal(err)
	}
	st := store.OAuthState{ID: store.NewID(), StateHash: store.NewID(), LinkID: l.ID, AuthConfigID: f.config.ID, Name: "work",
		Verifier: []byte("sealed-verifier"), ExpiresAt: exp, BrowserHash: "b"}
	if err := f.s.CreateOAuthState(ctx, st); err != nil {
		t.Fatal(err)
	}
	return st
}

// testOAuthStateOnce: of callbacks racing with one state, exactly one takes it.
func testOAuthStateOnce(t *testing.T, open Opener) {
	f := newConnFixture(t, open, nil)
	ctx := context.Background()
	st := newOAuthState(t, f, time.Now().Add(time.Hour))
	const n = 20
	var wg sync.WaitGroup
	taken := make([]store.OAuthState, n)
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() { taken[i], errs[i] = f.s.TakeOAuthState(ctx, st.StateHash) })
	}
	wg.Wait()
	ok := 0
	for i, err := range errs {
		switch {
		case err == nil:
			ok++
			if got := taken[i]; got.ID != st.ID || got.LinkID != st.LinkID || got.Name != "work" || string(got.Verifier) != "sealed-verifier" {
				t.Fatalf("taken: %+v", got)
			}
		case !errors.Is(err, store.ErrNotFound):
			t.Fatalf("take: %v", err)
		}
	}
	if ok != 1 {
		t.Fatalf("the state was taken %d times, want once", ok)
	}
}

func testOAuthStateExpiry(t *testing.T, open Opener) {
	clock := NewClock()
	f := newConnFixture(t, open, clock.Now)
	ctx := context.Background()
	st := newOAuthState(t, f, clock.Now().Add(10*time.Minute))
	kept := newOAuthState(t, f, clock.Now().Add(time.Hour))
	clock.Advance(10 * time.Minute)
	if _, err := f.s.TakeOAuthState(ctx, st.StateHash); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("expired state: %v", err)
	}
	if _, err := f.s.TakeOAuthState(ctx, "unknown"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown state: %v", err)
	}
	// Cleanup drops the expired state; the live one stays takeable.
	if n, err := f.s.Cleanup(ctx); err != nil || n != 1 {
		t.Fatalf("cleanup removed %d, err %v", n, err)
	}
	if got, err := f.s.TakeOAuthState(ctx, kept.StateHash); err != nil || got.ID != kept.ID {
		t.Fatalf("live state: %+v %v", got, err)
	}
}

// testRefreshLeaseConcurrent: of replicas asking for one account's refresh
// lease at once, exactly one gets it.
func testRefreshLeaseConcurrent(t *testing.T, open Opener) {
	f := newConnFixture(t, open, nil)
	ctx := context.Background()
	c := f.create(t, "u1", "", false)
	const n = 16
	var wg sync.WaitGroup
	got := make([]bool, n)
	for i := range n {
		wg.Go(func() {
			ok, err := f.s.AcquireRefreshLease(ctx, c.ID, "owner-"+string(rune('a'+i)), time.Minute)
			if err != nil {
				t.Errorf("lease: %v", err)
			}
			got[i] = ok
		})
	}
	wg.Wait()
	if held := len(slices.DeleteFunc(got, func(ok bool) bool { return !ok })); held != 1 {
		t.Fatalf("%d owners hold the lease, want 1", held)
	}
}

func testConnectionByID(t *testing.T, open Opener) {
	f := newConnFixture(t, open, nil)
	ctx := context.Background()
	c := f.create(t, "u1", "work", false)
	got, err := f.s.ConnectionByID(ctx, c.ID)
	if err != nil || got.ProjectID != f.project.ID || got.Name != "work" || got.UserID != "u1" {
		t.Fatalf("by id: %+v %v", got, err)
	}
	if _, err := f.s.ConnectionByID(ctx, store.NewID()); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown id: %v", err)
	}
}
