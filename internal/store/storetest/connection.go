package storetest

import (
	"context"
	"errors"
	"reflect"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/store"
)

func connectionTests() map[string]func(*testing.T, Opener) {
	return map[string]func(*testing.T, Opener){
		"Connections_NamesDefaultsAndConflicts":   testConnectionNames,
		"Connections_ParallelUnnamedCreates":      testConnectionParallelNames,
		"Connections_DeletePromotesNextDefault":   testConnectionDelete,
		"Connections_RotateAndRefresh":            testConnectionRotate,
		"Connections_RefreshLeaseIsExclusive":     testRefreshLease,
		"Connections_TouchAndGlobalPermission":    testTouchAndPermission,
		"AuthConfigs_KeysAndImplicit":             testAuthConfigs,
		"Cleanup_RemovesOnlyWhatExpired":          testCleanup,
		"Connections_VersionKeepsResolutionFresh": testConnectionsVersion,
	}
}

type connFixture struct {
	s       *store.Store
	project store.Project
	config  store.AuthConfig
}

func newConnFixture(t *testing.T, open Opener, now func() time.Time) *connFixture {
	t.Helper()
	s := open(t, now)
	ctx := context.Background()
	p, err := s.CreateProject(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	ac, err := s.EnsureImplicitAuthConfig(ctx, p.ID, "github", "github_api_key", "api_key", "api_key")
	if err != nil {
		t.Fatal(err)
	}
	return &connFixture{s: s, project: p, config: ac}
}

func (f *connFixture) create(t *testing.T, user, name string, global bool) store.Connection {
	t.Helper()
	c, err := f.s.CreateConnection(context.Background(), store.NewConnection{
		ID: store.NewID(), ProjectID: f.project.ID, ConnectorID: "github", AuthConfigID: f.config.ID,
		UserID: user, Global: global, Name: name, Credential: []byte("sealed"),
	})
	if err != nil {
		t.Fatalf("create %s/%s: %v", user, name, err)
	}
	return c
}

func testConnectionNames(t *testing.T, open Opener) {
	clock := NewClock()
	f := newConnFixture(t, open, clock.Now)
	ctx := context.Background()
	a := f.create(t, "u1", "", false)
	clock.Advance(time.Second)
	b := f.create(t, "u1", "", false)
	clock.Advance(time.Second)
	c := f.create(t, "u1", "work", false)
	clock.Advance(time.Second)
	g := f.create(t, "", "shared", true)
	other := f.create(t, "u2", "", false)
	if a.Name != "default" || !a.IsDefault || b.Name != "default-2" || b.IsDefault || c.IsDefault || g.IsDefault || !other.IsDefault {
		t.Fatalf("names/defaults: %+v %+v %+v %+v %+v", a, b, c, g, other)
	}
	if _, err := f.s.CreateConnection(ctx, store.NewConnection{ID: store.NewID(), ProjectID: f.project.ID, ConnectorID: "github",
		AuthConfigID: f.config.ID, UserID: "u1", Name: "work", Credential: []byte("x")}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("taken name: %v", err)
	}
	if err := f.s.RenameConnection(ctx, f.project.ID, b.ID, "work"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("rename to a taken name: %v", err)
	}
	if err := f.s.RenameConnection(ctx, f.project.ID, b.ID, "home"); err != nil {
		t.Fatal(err)
	}
	list, err := f.s.ListConnections(ctx, f.project.ID, "u1")
	if err != nil || len(list) != 4 || list[0].ID != a.ID || list[1].Name != "home" || list[3].ID != g.ID || !list[3].Global {
		t.Fatalf("list: %+v %v", list, err)
	}
	other2, _ := f.s.CreateProject(ctx, "other")
	if _, err := f.s.GetConnection(ctx, other2.ID, a.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another project's connection: %v", err)
	}
	if err := f.s.SetDefaultConnection(ctx, f.project.ID, c.ID); err != nil {
		t.Fatal(err)
	}
	got, _ := f.s.GetConnection(ctx, f.project.ID, c.ID)
	old, _ := f.s.GetConnection(ctx, f.project.ID, a.ID)
	if !got.IsDefault || old.IsDefault {
		t.Fatalf("set default: %v %v", got.IsDefault, old.IsDefault)
	}
}

// testConnectionParallelNames: a user's first accounts created at once,
// none named, all succeed with distinct next-free names and one default
// (PostgreSQL once answered most of them with a false conflict).
func testConnectionParallelNames(t *testing.T, open Opener) {
	f := newConnFixture(t, open, nil)
	const n = 50
	var wg sync.WaitGroup
	conns := make([]store.Connection, n)
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conns[i], errs[i] = f.s.CreateConnection(context.Background(), store.NewConnection{
				ID: store.NewID(), ProjectID: f.project.ID, ConnectorID: "github", AuthConfigID: f.config.ID,
				UserID: "u1", Credential: []byte("sealed"),
			})
		}()
	}
	wg.Wait()
	names := map[string]bool{}
	defaults := 0
	for i, c := range conns {
		if errs[i] != nil {
			t.Fatalf("create %d of %d: %v", i+1, n, errs[i])
		}
		names[c.Name] = true
		if c.IsDefault {
			defaults++
		}
	}
	want := map[string]bool{"default": true}
	for i := 2; i <= n; i++ {
		want["default-"+strconv.Itoa(i)] = true
	}
	if !reflect.DeepEqual(names, want) || defaults != 1 {
		t.Fatalf("names %v (%d defaults), want default to default-%d and one default", names, defaults, n)
	}
	list, err := f.s.ListConnections(context.Background(), f.project.ID, "u1")
	if err != nil || len(list) != n {
		t.Fatalf("stored %d accounts, want %d: %v", len(list), n, err)
	}
}

func testConnectionDelete(t *testing.T, open Opener) {
	clock := NewClock()
	f := newConnFixture(t, open, clock.Now)
	ctx := context.Background()
	a := f.create(t, "u1", "", false)
	clock.Advance(time.Second)
	b := f.create(t, "u1", "", false)
	clock.Advance(time.Second)
	f.create(t, "u1", "", false)
	if err := f.s.DeleteConnection(ctx, f.project.ID, a.ID); err != nil {
		t.Fatal(err)
	}
	got, _ := f.s.GetConnection(ctx, f.project.ID, b.ID)
	if !got.IsDefault {
		t.Fatal("next account did not become the default")
	}
	if err := f.s.DeleteConnection(ctx, f.project.ID, a.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("delete twice: %v", err)
	}
}

func testConnectionRotate(t *testing.T, open Opener) {
	f := newConnFixture(t, open, nil)
	ctx := context.Background()
	c := f.create(t, "u1", "", false)
	if err := f.s.SetConnectionStatus(ctx, c.ID, c.Revision, store.StatusReauthRequired); err != nil {
		t.Fatal(err)
	}
	rev, err := f.s.RotateCredential(ctx, f.project.ID, c.ID, c.Revision, []byte("new"), []string{"repo"})
	if err != nil || rev != c.Revision+1 {
		t.Fatalf("rotate: %d %v", rev, err)
	}
	got, _ := f.s.GetConnection(ctx, f.project.ID, c.ID)
	if got.Status != store.StatusActive || string(got.Credential) != "new" || got.Scopes[0] != "repo" {
		t.Fatalf("after rotate: %+v", got)
	}
	if _, err := f.s.RotateCredential(ctx, f.project.ID, c.ID, c.Revision, []byte("x"), nil); !errors.Is(err, store.ErrStaleRevision) {
		t.Fatalf("stale revision: %v", err)
	}
	if ok, err := f.s.UpdateRefreshedCredential(ctx, c.ID, c.Revision, []byte("refreshed-old")); err != nil || ok {
		t.Fatalf("refresh of an old revision written: %v %v", ok, err)
	}
	if ok, err := f.s.UpdateRefreshedCredential(ctx, c.ID, rev, []byte("refreshed")); err != nil || !ok {
		t.Fatalf("refresh: %v %v", ok, err)
	}
	got, _ = f.s.GetConnection(ctx, f.project.ID, c.ID)
	if string(got.Credential) != "refreshed" || got.Revision != rev {
		t.Fatalf("after refresh: %+v", got)
	}
}

func testRefreshLease(t *testing.T, open Opener) {
	clock := NewClock()
	f := newConnFixture(t, open, clock.Now)
	ctx := context.Background()
	c := f.create(t, "u1", "", false)
	if ok, err := f.s.AcquireRefreshLease(ctx, c.ID, "a", 10*time.Second); err != nil || !ok {
		t.Fatalf("first lease: %v %v", ok, err)
	}
	if ok, _ := f.s.AcquireRefreshLease(ctx, c.ID, "b", 10*time.Second); ok {
		t.Fatal("second owner got a held lease")
	}
	clock.Advance(11 * time.Second)
	if ok, _ := f.s.AcquireRefreshLease(ctx, c.ID, "b", 10*time.Second); !ok {
		t.Fatal("expired lease not taken over")
	}
	if err := f.s.ReleaseRefreshLease(ctx, c.ID, "b"); err != nil {
		t.Fatal(err)
	}
	if ok, _ := f.s.AcquireRefreshLease(ctx, c.ID, "a", 10*time.Second); !ok {
		t.Fatal("released lease not free")
	}
}

func testTouchAndPermission(t *testing.T, open Opener) {
	clock := NewClock()
	f := newConnFixture(t, open, clock.Now)
	ctx := context.Background()
	c := f.create(t, "", "shared", true)
	at := clock.Now().Add(time.Minute)
	if err := f.s.TouchConnections(ctx, map[string]time.Time{c.ID: at}); err != nil {
		t.Fatal(err)
	}
	_ = f.s.TouchConnections(ctx, map[string]time.Time{c.ID: at.Add(-time.Hour)})
	got, _ := f.s.GetConnection(ctx, f.project.ID, c.ID)
	if got.LastUsedAt == nil || !got.LastUsedAt.Equal(at) {
		t.Fatalf("lastUsedAt %v", got.LastUsedAt)
	}
	if p, err := f.s.GetGlobalPermission(ctx, c.ID); err != nil || len(p.Tools) != 0 || p.Proxy {
		t.Fatalf("default permission: %+v %v", p, err)
	}
	if err := f.s.SetGlobalPermission(ctx, c.ID, store.GlobalPermission{Tools: []string{"github_create_issue", "slack_*"}, Proxy: true}); err != nil {
		t.Fatal(err)
	}
	if p, _ := f.s.GetGlobalPermission(ctx, c.ID); len(p.Tools) != 2 || p.Tools[1] != "slack_*" || !p.Proxy {
		t.Fatalf("permission: %+v", p)
	}
	if err := f.s.DeleteGlobalPermission(ctx, c.ID); err != nil {
		t.Fatal(err)
	}
	if p, _ := f.s.GetGlobalPermission(ctx, c.ID); len(p.Tools) != 0 {
		t.Fatalf("after revoke: %+v", p)
	}
}

func testAuthConfigs(t *testing.T, open Opener) {
	f := newConnFixture(t, open, nil)
	ctx := context.Background()
	again, err := f.s.EnsureImplicitAuthConfig(ctx, f.project.ID, "github", "github_api_key", "api_key", "api_key")
	if err != nil || again.ID != f.config.ID {
		t.Fatalf("implicit twice: %v %v", again.ID, err)
	}
	oauth, err := f.s.CreateAuthConfig(ctx, store.AuthConfig{ProjectID: f.project.ID, ConnectorID: "github", Key: "gh-oauth",
		AuthMethodID: "oauth2", AuthType: "oauth2", ClientID: "cid", ClientSecret: []byte("sealed"), Scopes: []string{"repo", "user"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.s.CreateAuthConfig(ctx, store.AuthConfig{ProjectID: f.project.ID, ConnectorID: "github", Key: "gh-oauth",
		AuthMethodID: "oauth2", AuthType: "oauth2"}); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("taken key: %v", err)
	}
	got, err := f.s.GetAuthConfig(ctx, f.project.ID, oauth.ID)
	if err != nil || got.ClientID != "cid" || len(got.Scopes) != 2 || got.Implicit {
		t.Fatalf("get: %+v %v", got, err)
	}
	list, _ := f.s.ListAuthConfigs(ctx, f.project.ID, "github")
	if len(list) != 2 {
		t.Fatalf("list: %d", len(list))
	}
	f.create(t, "u1", "", false)
	if err := f.s.DeleteAuthConfig(ctx, f.project.ID, f.config.ID); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("delete in use: %v", err)
	}
	if err := f.s.DeleteAuthConfig(ctx, f.project.ID, oauth.ID); err != nil {
		t.Fatal(err)
	}
}

func testCleanup(t *testing.T, open Opener) {
	clock := NewClock()
	f := newConnFixture(t, open, clock.Now)
	ctx := context.Background()
	live, _ := f.s.CreateSession(ctx, store.Session{ProjectID: f.project.ID, UserID: "u", Spec: []byte("{}"), ExpiresAt: clock.Now().Add(time.Hour)})
	dead, _ := f.s.CreateSession(ctx, store.Session{ProjectID: f.project.ID, UserID: "u", Spec: []byte("{}"), ExpiresAt: clock.Now().Add(time.Minute)})
	clock.Advance(2 * time.Minute)
	n, err := f.s.Cleanup(ctx)
	if err != nil || n != 1 {
		t.Fatalf("cleanup removed %d, err %v", n, err)
	}
	if _, err := f.s.GetSession(ctx, f.project.ID, live.ID); err != nil {
		t.Fatalf("live session removed: %v", err)
	}
	if _, err := f.s.GetSession(ctx, f.project.ID, dead.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("expired session kept: %v", err)
	}
}

// testConnectionsVersion checks that every change account resolution could
// see bumps the project's connections version (read with the API key), that
// last-used times and refresh leases do not, and that the resolution cache
// answers at a version and misses after a change.
func testConnectionsVersion(t *testing.T, open Opener) {
	f := newConnFixture(t, open, nil)
	s, ctx := f.s, context.Background()
	key, nk := newKey(t, f.project.ID)
	if _, err := s.CreateAPIKey(ctx, nk); err != nil {
		t.Fatal(err)
	}
	version := func() int64 {
		t.Helper()
		kp, err := s.ProjectForKey(ctx, apikey.Hash(key))
		if err != nil {
			t.Fatal(err)
		}
		return kp.ConnectionsVersion
	}
	at := version
	var c store.Connection
	changes := []struct {
		name  string
		write func() error
	}{
		{"create", func() (err error) { c = f.create(t, "u1", "work", false); return nil }},
		{"create another", func() error { f.create(t, "u1", "home", false); return nil }},
		{"rename", func() error { return s.RenameConnection(ctx, f.project.ID, c.ID, "office") }},
		{"label", func() error { return s.SetConnectionLabel(ctx, c.ID, "ann@example.com") }},
		{"rotate", func() error {
			_, err := s.RotateCredential(ctx, f.project.ID, c.ID, c.Revision, []byte("sealed-2"), nil)
			return err
		}},
		{"status", func() error {
			cur, _ := s.GetConnection(ctx, f.project.ID, c.ID)
			return s.SetConnectionStatus(ctx, c.ID, cur.Revision, store.StatusReauthRequired)
		}},
		{"default", func() error {
			list, _ := s.ConnectorConnections(ctx, f.project.ID, "u1", "github")
			return s.SetDefaultConnection(ctx, f.project.ID, list[len(list)-1].ID)
		}},
		{"delete", func() error { return s.DeleteConnection(ctx, f.project.ID, c.ID) }},
	}
	for _, ch := range changes {
		before := version()
		cached, err := s.ResolutionCandidates(ctx, f.project.ID, at(), "u1", "github")
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.ResolutionAccounts(ctx, f.project.ID, at(), "u1"); err != nil {
			t.Fatal(err)
		}
		if err := ch.write(); err != nil {
			t.Fatalf("%s: %v", ch.name, err)
		}
		if version() == before {
			t.Fatalf("%s did not change the connections version", ch.name)
		}
		fresh, _ := s.ResolutionCandidates(ctx, f.project.ID, at(), "u1", "github")
		direct, _ := s.ConnectorConnections(ctx, f.project.ID, "u1", "github")
		if !reflect.DeepEqual(fresh, direct) {
			t.Fatalf("after %s the resolution cache answered %v, the database %v (before: %v)", ch.name, fresh, direct, cached)
		}
		accounts, _ := s.ResolutionAccounts(ctx, f.project.ID, at(), "u1")
		listed, _ := s.ListConnections(ctx, f.project.ID, "u1")
		if !reflect.DeepEqual(accounts, listed) {
			t.Fatalf("after %s the account cache answered %v, the database %v", ch.name, accounts, listed)
		}
	}

	rest, _ := s.ConnectorConnections(ctx, f.project.ID, "u1", "github")
	before := version()
	if err := s.TouchConnections(ctx, map[string]time.Time{rest[0].ID: time.Now()}); err != nil {
		t.Fatal(err)
	}
	if ok, err := s.AcquireRefreshLease(ctx, rest[0].ID, "me", time.Minute); err != nil || !ok {
		t.Fatalf("lease: %v %v", ok, err)
	}
	if err := s.ReleaseRefreshLease(ctx, rest[0].ID, "me"); err != nil {
		t.Fatal(err)
	}
	if version() != before {
		t.Fatal("a last-used time or a refresh lease changed the connections version")
	}
	// At one version the cache answers without the database.
	one := at()
	first, _ := s.ResolutionConnection(ctx, f.project.ID, one, rest[0].ID)
	if err := s.SetConnectionLabel(ctx, rest[0].ID, "changed"); err != nil {
		t.Fatal(err)
	}
	if again, _ := s.ResolutionConnection(ctx, f.project.ID, one, rest[0].ID); !reflect.DeepEqual(again, first) {
		t.Fatal("the cache did not answer at an unchanged version")
	}
	if next, _ := s.ResolutionConnection(ctx, f.project.ID, at(), rest[0].ID); next.Label == nil || *next.Label != "changed" {
		t.Fatalf("the next request did not see the change: %v", next.Label)
	}
}
