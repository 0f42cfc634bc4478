package storetest

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// PairOpener opens two stores on one fresh, migrated database: two
// processes (replicas) sharing it. Both are closed when the test ends.
type PairOpener func(t *testing.T) (a, b *store.Store)

// OpenSQLitePair is a PairOpener for one SQLite file opened twice.
func OpenSQLitePair(t *testing.T) (*store.Store, *store.Store) {
	t.Helper()
	url := "sqlite:" + filepath.Join(t.TempDir(), "switchboard.db")
	return openMigrated(t, url, nil), openMigrated(t, url, nil)
}

// OpenPostgresPair is a PairOpener for one PostgreSQL schema opened
// twice; it skips like OpenPostgres.
func OpenPostgresPair(t *testing.T) (*store.Store, *store.Store) {
	t.Helper()
	url := PostgresSchemaURL(t)
	return openMigrated(t, url, nil), openMigrated(t, url, nil)
}

// RunResolution runs the tests of the resolution cache across two store
// instances on one database: what one writes, the other's next request
// sees; a write to one user's accounts leaves the other users' cached
// answers alone; a token refresh invalidates nothing.
func RunResolution(t *testing.T, open PairOpener) {
	tests := map[string]func(*testing.T, PairOpener){
		"Resolution_OtherInstanceWriteSeenOnNextRequest": testResolutionAcrossInstances,
		"Resolution_WriteInvalidatesOnlyItsUser":         testResolutionPerUser,
		"Resolution_RefreshDoesNotChangeVersion":         testResolutionRefreshKeepsVersion,
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, open)
		})
	}
}

// pairFixture is a project with a key, seen from two store instances.
type pairFixture struct {
	a, b *connFixture
	key  string
}

func newPairFixture(t *testing.T, open PairOpener) *pairFixture {
	t.Helper()
	a, b := open(t)
	f := newConnFixture(t, func(*testing.T, func() time.Time) *store.Store { return a }, nil)
	key, nk := newKey(t, f.project.ID)
	if _, err := a.CreateAPIKey(context.Background(), nk); err != nil {
		t.Fatal(err)
	}
	return &pairFixture{a: f, b: &connFixture{s: b, project: f.project, config: f.config}, key: key}
}

// request returns the connections version of a new request to s: the
// key's versions as read now, as the API key middleware does.
func (p *pairFixture) request(t *testing.T, s *store.Store) int64 {
	t.Helper()
	ctx := context.Background()
	kp, err := s.ProjectForKey(ctx, apikey.Hash(p.key))
	if err != nil {
		t.Fatal(err)
	}
	return kp.ConnectionsVersion
}

// names resolves a user's github accounts through s's cache.
func (p *pairFixture) names(t *testing.T, s *store.Store, user string) []string {
	t.Helper()
	conns, err := s.ResolutionCandidates(context.Background(), p.a.project.ID, p.request(t, s), user, "github")
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(conns))
	for i, c := range conns {
		out[i] = c.Name
	}
	return out
}

func testResolutionAcrossInstances(t *testing.T, open PairOpener) {
	p := newPairFixture(t, open)
	ctx := context.Background()
	a, b := p.a.s, p.b.s
	pid := p.a.project.ID
	work := p.a.create(t, "u1", "work", false)

	steps := []struct {
		name  string
		write func() error
		want  string // u1's github accounts, as seen by a
	}{
		{"create on b", func() error { p.b.create(t, "u1", "home", false); return nil }, "work home"},
		{"rename on b", func() error { return b.RenameConnection(ctx, pid, work.ID, "office") }, "office home"},
		{"global on b", func() error { p.b.create(t, "", "shared", true); return nil }, "office home shared"},
		{"delete on b", func() error { return b.DeleteConnection(ctx, pid, work.ID) }, "home shared"},
	}
	if got := join(p.names(t, a, "u1")); got != "work" {
		t.Fatalf("before: a resolves %q", got)
	}
	for _, st := range steps {
		p.names(t, a, "u1") // cached at the current version
		if err := st.write(); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if got := join(p.names(t, a, "u1")); got != st.want {
			t.Fatalf("after %s, a's next request resolves %q, want %q", st.name, got, st.want)
		}
	}
	// By id too: a status change on b shows on a.
	home, err := a.ResolutionConnection(context.Background(), pid, p.request(t, a), firstNamed(t, b, pid, "u1", "home").ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.SetConnectionStatus(ctx, home.ID, home.Revision, store.StatusReauthRequired); err != nil {
		t.Fatal(err)
	}
	if got, _ := a.ResolutionConnection(context.Background(), pid, p.request(t, a), home.ID); got.Status != store.StatusReauthRequired {
		t.Fatalf("a resolves status %q after b marked the account for reauthorization", got.Status)
	}
}

// testResolutionPerUser shows which answers a write drops. A token refresh
// changes the stored credential without a version change, so an answer
// still holding the old credential came from the cache.
func testResolutionPerUser(t *testing.T, open PairOpener) {
	p := newPairFixture(t, open)
	ctx := context.Background()
	a, b := p.a.s, p.b.s
	pid := p.a.project.ID
	u1 := p.a.create(t, "u1", "work", false)
	p.a.create(t, "u2", "work", false)

	credential := func() string {
		t.Helper()
		conns, err := a.ResolutionCandidates(context.Background(), pid, p.request(t, a), "u1", "github")
		if err != nil || len(conns) != 1 {
			t.Fatalf("u1 candidates: %v %v", conns, err)
		}
		return string(conns[0].Credential)
	}
	if got := credential(); got != "sealed" {
		t.Fatalf("credential %q", got)
	}
	p.names(t, a, "u2")
	if ok, err := b.UpdateRefreshedCredential(ctx, u1.ID, u1.Revision, []byte("refreshed")); err != nil || !ok {
		t.Fatalf("refresh: %v %v", ok, err)
	}
	// Another user's change, written by the other instance.
	p.b.create(t, "u2", "home", false)
	if got := join(p.names(t, a, "u2")); got != "work home" {
		t.Fatalf("u2 resolves %q after b added an account", got)
	}
	if got := credential(); got != "sealed" {
		t.Fatalf("u2's new account dropped u1's cached answer (read %q from the database)", got)
	}
	// u1's own change drops u1's answer.
	if err := b.SetConnectionLabel(ctx, u1.ID, "ann@example.com"); err != nil {
		t.Fatal(err)
	}
	if got := credential(); got != "refreshed" {
		t.Fatalf("u1's own change left the cached answer (%q)", got)
	}
	// A global account is every user's candidate: it drops every answer.
	if ok, err := b.UpdateRefreshedCredential(ctx, u1.ID, u1.Revision, []byte("refreshed-2")); err != nil || !ok {
		t.Fatalf("refresh: %v %v", ok, err)
	}
	p.b.create(t, "", "shared", true)
	conns, err := a.ResolutionCandidates(context.Background(), pid, p.request(t, a), "u1", "github")
	if err != nil || len(conns) != 2 || conns[1].Name != "shared" || string(conns[0].Credential) != "refreshed-2" {
		t.Fatalf("after a global account, u1 resolves %v (%v)", conns, err)
	}
	if got := join(p.names(t, a, "u2")); got != "work home shared" {
		t.Fatalf("after a global account, u2 resolves %q", got)
	}
}

func testResolutionRefreshKeepsVersion(t *testing.T, open PairOpener) {
	p := newPairFixture(t, open)
	ctx := context.Background()
	c := p.a.create(t, "u1", "work", false)
	version := func() int64 {
		kp, err := p.a.s.ProjectForKey(ctx, apikey.Hash(p.key))
		if err != nil {
			t.Fatal(err)
		}
		return kp.ConnectionsVersion
	}
	before := version()
	if ok, err := p.b.s.UpdateRefreshedCredential(ctx, c.ID, c.Revision, []byte("refreshed")); err != nil || !ok {
		t.Fatalf("refresh: %v %v", ok, err)
	}
	if version() != before {
		t.Fatal("a token refresh changed the connections version: every cached resolution of the user would be dropped")
	}
	// A refresh that narrows the granted scopes stores them, still without
	// moving the version.
	if ok, err := p.b.s.UpdateGrantedScopes(ctx, c.ID, c.Revision, []string{"read:user"}); err != nil || !ok {
		t.Fatalf("granted scopes: %v %v", ok, err)
	}
	if version() != before {
		t.Fatal("storing a refresh's granted scopes changed the connections version")
	}
	if got, err := p.b.s.GetConnection(ctx, p.a.project.ID, c.ID); err != nil || strings.Join(got.Scopes, " ") != "read:user" {
		t.Fatalf("granted scopes stored: %v %v", got.Scopes, err)
	}
	if ok, err := p.b.s.UpdateGrantedScopes(ctx, c.ID, c.Revision+1, []string{"x"}); err != nil || ok {
		t.Fatalf("granted scopes at a revision the account does not have: %v %v", ok, err)
	}
	if _, err := p.b.s.RotateCredential(ctx, p.a.project.ID, c.ID, c.Revision, []byte("rotated"), nil); err != nil {
		t.Fatal(err)
	}
	if version() == before {
		t.Fatal("a rotation did not change the connections version")
	}
}

func firstNamed(t *testing.T, s *store.Store, projectID, user, name string) store.Connection {
	t.Helper()
	conns, err := s.ConnectorConnections(context.Background(), projectID, user, "github")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range conns {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no account %s of %s", name, user)
	return store.Connection{}
}

func join(names []string) string {
	out := ""
	for i, n := range names {
		if i > 0 {
			out += " "
		}
		out += n
	}
	return out
}
