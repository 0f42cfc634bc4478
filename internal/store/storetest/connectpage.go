package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

func connectLinkTests() map[string]func(*testing.T, Opener) {
	return map[string]func(*testing.T, Opener){
		"ConnectLinks_StoreOneAccountUnderConcurrency": testLinkStoresOnce,
		"OAuthStates_KeepFieldsAndBrowserHash":         testOAuthStateFields,
	}
}

// testOAuthStateFields round-trips what a pending authorization keeps for
// its callback, and an auth config's operator hosts.
func testOAuthStateFields(t *testing.T, open Opener) {
	f := newConnFixture(t, open, nil)
	ctx := context.Background()
	ac, err := f.s.CreateAuthConfig(ctx, store.AuthConfig{ProjectID: f.project.ID, ConnectorID: "gitlab", Key: "gitlab_oauth",
		AuthMethodID: "oauth2", AuthType: "oauth2", ClientID: "c", Hosts: []string{"git.corp.example", "git2.corp.example:8443"}})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := f.s.GetAuthConfig(ctx, f.project.ID, ac.ID); err != nil || len(got.Hosts) != 2 || got.Hosts[1] != "git2.corp.example:8443" {
		t.Fatalf("hosts: %v %v", got.Hosts, err)
	}
	if got, err := f.s.AuthConfigByKey(ctx, f.project.ID, f.config.Key); err != nil || len(got.Hosts) != 0 {
		t.Fatalf("no hosts: %v %v", got.Hosts, err)
	}
	l, err := f.s.CreateConnectLink(ctx, store.ConnectLink{ProjectID: f.project.ID, UserID: "ann", TokenHash: store.NewID(), ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	for _, fields := range []map[string]string{{"host": "git.corp.example"}, nil} {
		st := store.OAuthState{ID: store.NewID(), StateHash: store.NewID(), LinkID: l.ID, AuthConfigID: ac.ID, Fields: fields,
			BrowserHash: "b-" + store.NewID(), ExpiresAt: time.Now().Add(time.Hour)}
		if err := f.s.CreateOAuthState(ctx, st); err != nil {
			t.Fatal(err)
		}
		got, err := f.s.TakeOAuthState(ctx, st.StateHash)
		if err != nil || got.BrowserHash != st.BrowserHash || len(got.Fields) != len(fields) || got.Fields["host"] != fields["host"] {
			t.Fatalf("state: %+v %v", got, err)
		}
	}
}

// testLinkStoresOnce stores accounts and rotations through one link from
// many goroutines at once: exactly one write succeeds, the others are
// ErrLinkUsed and leave nothing behind.
func testLinkStoresOnce(t *testing.T, open Opener) {
	f := newConnFixture(t, open, nil)
	ctx := context.Background()
	newLink := func() store.ConnectLink {
		l, err := f.s.CreateConnectLink(ctx, store.ConnectLink{ProjectID: f.project.ID, UserID: "ann", TokenHash: store.NewID(),
			ExpiresAt: time.Now().Add(time.Hour)})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	const n = 20
	race := func(write func(i int) error) (ok, used int) {
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			wg.Add(1)
			go func() { defer wg.Done(); errs[i] = write(i) }()
		}
		wg.Wait()
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case errors.Is(err, store.ErrLinkUsed):
				used++
			default:
				t.Errorf("unexpected error: %v", err)
			}
		}
		return ok, used
	}

	l := newLink()
	ok, used := race(func(int) error {
		_, err := f.s.CreateConnection(ctx, store.NewConnection{ID: store.NewID(), ProjectID: f.project.ID, ConnectorID: "github",
			AuthConfigID: f.config.ID, UserID: "ann", Credential: []byte("sealed"), UseLinkID: l.ID})
		return err
	})
	conns, err := f.s.ListConnections(ctx, f.project.ID, "ann")
	if err != nil {
		t.Fatal(err)
	}
	if ok != 1 || used != n-1 || len(conns) != 1 {
		t.Fatalf("create: %d stored, %d ErrLinkUsed, %d accounts; want 1, %d, 1", ok, used, len(conns), n-1)
	}
	if got, _ := f.s.ConnectLinkByID(ctx, l.ID); got.UsedAt == nil {
		t.Fatal("the link is not marked used")
	}

	l = newLink()
	ok, used = race(func(i int) error {
		_, err := f.s.RotateCredentialThroughLink(ctx, l.ID, f.project.ID, conns[0].ID, conns[0].Revision, []byte{byte(i)}, nil)
		return err
	})
	after, err := f.s.GetConnection(ctx, f.project.ID, conns[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	if ok != 1 || used != n-1 || after.Revision != conns[0].Revision+1 {
		t.Fatalf("rotate: %d rotated, %d ErrLinkUsed, revision %d; want 1, %d, %d", ok, used, after.Revision, n-1, conns[0].Revision+1)
	}

	// A used link stores nothing, even sequentially.
	if _, err := f.s.CreateConnection(ctx, store.NewConnection{ID: store.NewID(), ProjectID: f.project.ID, ConnectorID: "github",
		AuthConfigID: f.config.ID, UserID: "ann", Name: "late", Credential: []byte("sealed"), UseLinkID: l.ID}); !errors.Is(err, store.ErrLinkUsed) {
		t.Fatalf("create through a used link: %v", err)
	}
	if conns, _ := f.s.ListConnections(ctx, f.project.ID, "ann"); len(conns) != 1 {
		t.Fatalf("%d accounts after a late create", len(conns))
	}
}
