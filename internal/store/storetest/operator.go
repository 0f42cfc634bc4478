package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

func operatorTests() map[string]func(*testing.T, Opener) {
	return map[string]func(*testing.T, Opener){
		"Operators_CreateFindListRemove":           testOperatorLifecycle,
		"Operators_RolesInProjects":                testOperatorRoles,
		"DashboardSessions_ExpiryRotationSignOut":  testDashboardSessions,
		"SigninLinks_UsedOnceUntilExpiry":          testSigninLinks,
		"SigninFailures_CountedPerSubjectInWindow": testSigninFailures,
		"APIKeys_LastUsedFromTheExecutionLog":      testAPIKeysLastUsed,
		"Endpoints_RenameSlug":                     testEndpointRename,
	}
}

func testOperatorLifecycle(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, clock.Now)
	ctx := context.Background()
	if n, err := s.CountOperators(ctx); err != nil || n != 0 {
		t.Fatalf("count on a fresh database: %d %v", n, err)
	}
	a, err := s.CreateOperator(ctx, "b@example.com", "$argon2id$x")
	if err != nil || a.ID == "" || !a.CreatedAt.Equal(clock.Now()) {
		t.Fatalf("create: %+v %v", a, err)
	}
	if _, err := s.CreateOperator(ctx, "b@example.com", ""); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("same email again: %v", err)
	}
	b, _ := s.CreateOperator(ctx, "a@example.com", "")
	got, err := s.OperatorByEmail(ctx, "b@example.com")
	if err != nil || got.ID != a.ID || got.PasswordHash != "$argon2id$x" {
		t.Fatalf("by email: %+v %v", got, err)
	}
	if _, err := s.OperatorByEmail(ctx, "nobody@example.com"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown email: %v", err)
	}
	if got, err := s.GetOperator(ctx, b.ID); err != nil || got.Email != "a@example.com" {
		t.Fatalf("get: %+v %v", got, err)
	}
	list, err := s.ListOperators(ctx)
	if err != nil || len(list) != 2 || list[0].ID != b.ID || list[1].ID != a.ID {
		t.Fatalf("list (by email): %+v %v", list, err)
	}
	if err := s.SetOperatorPassword(ctx, b.ID, "$argon2id$y"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetOperator(ctx, b.ID); got.PasswordHash != "$argon2id$y" {
		t.Fatalf("password not set: %+v", got)
	}
	if err := s.SetOperatorPassword(ctx, "nope", "x"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("password of unknown: %v", err)
	}
	p, _ := s.CreateProject(ctx, "p")
	if err := s.SetOperatorRole(ctx, a.ID, p.ID, store.RoleOwner); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateDashboardSession(ctx, "h1", "", a.ID, clock.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteOperator(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteOperator(ctx, a.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("delete twice: %v", err)
	}
	if _, err := s.DashboardSessionFor(ctx, "h1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a removed operator's session lives on: %v", err)
	}
	if ops, _ := s.ProjectOperators(ctx, p.ID); len(ops) != 0 {
		t.Fatalf("a removed operator is still in the project: %+v", ops)
	}
	if n, _ := s.CountOperators(ctx); n != 1 {
		t.Fatalf("count after remove: %d", n)
	}
}

func testOperatorRoles(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, clock.Now)
	ctx := context.Background()
	o, _ := s.CreateOperator(ctx, "o@example.com", "")
	m, _ := s.CreateOperator(ctx, "m@example.com", "")
	p, err := s.CreateProjectOwned(ctx, "first", o.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateProjectOwned(ctx, "orphan", "no-such-operator"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("owned by an unknown operator: %v", err)
	}
	if list, _ := s.ListProjects(ctx); len(list) != 1 {
		t.Fatalf("the failed create left a project: %+v", list)
	}
	clock.Advance(time.Second)
	q, _ := s.CreateProject(ctx, "second")
	if err := s.SetOperatorRole(ctx, o.ID, q.ID, store.RoleMember); err != nil {
		t.Fatal(err)
	}
	if err := s.SetOperatorRole(ctx, m.ID, p.ID, store.RoleMember); err != nil {
		t.Fatal(err)
	}
	if err := s.SetOperatorRole(ctx, m.ID, p.ID, store.RoleOwner); err != nil {
		t.Fatalf("changing a role: %v", err)
	}
	if err := s.SetOperatorRole(ctx, m.ID, "no-such-project", store.RoleOwner); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown project: %v", err)
	}
	got, err := s.OperatorProjects(ctx, o.ID)
	want := []store.OperatorProject{{ProjectID: p.ID, ProjectName: "first", Role: store.RoleOwner}, {ProjectID: q.ID, ProjectName: "second", Role: store.RoleMember}}
	if err != nil || len(got) != 2 || got[0] != want[0] || got[1] != want[1] {
		t.Fatalf("projects of o: %+v %v", got, err)
	}
	ops, err := s.ProjectOperators(ctx, p.ID)
	if err != nil || len(ops) != 2 || ops[0].Email != "m@example.com" || ops[0].Role != store.RoleOwner || ops[1].Email != "o@example.com" {
		t.Fatalf("operators of p: %+v %v", ops, err)
	}
	if err := s.RemoveOperatorRole(ctx, m.ID, p.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.RemoveOperatorRole(ctx, m.ID, p.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("remove twice: %v", err)
	}
	if err := s.RenameProject(ctx, p.ID, "renamed"); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetProject(ctx, p.ID); got.Name != "renamed" {
		t.Fatalf("rename: %+v", got)
	}
	if err := s.RenameProject(ctx, "no-such-project", "x"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("rename unknown: %v", err)
	}
}

func testDashboardSessions(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, clock.Now)
	ctx := context.Background()
	o, _ := s.CreateOperator(ctx, "o@example.com", "")
	if err := s.CreateDashboardSession(ctx, "old", "", o.ID, clock.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateDashboardSession(ctx, "short", "", o.ID, clock.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	d, err := s.DashboardSessionFor(ctx, "old")
	if err != nil || d.OperatorID != o.ID || d.Email != "o@example.com" || !d.ExpiresAt.Equal(clock.Now().Add(time.Hour)) {
		t.Fatalf("session: %+v %v", d, err)
	}
	// Rotation: the new session replaces the one the browser had.
	if err := s.CreateDashboardSession(ctx, "new", "old", o.ID, clock.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DashboardSessionFor(ctx, "old"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the rotated session lives on: %v", err)
	}
	clock.Advance(time.Minute)
	if _, err := s.DashboardSessionFor(ctx, "short"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an expired session: %v", err)
	}
	if err := s.DeleteDashboardSession(ctx, "new"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DashboardSessionFor(ctx, "new"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("after sign-out: %v", err)
	}
	// A password change ends every session of the operator.
	_ = s.CreateDashboardSession(ctx, "live", "", o.ID, clock.Now().Add(time.Hour))
	if err := s.SetOperatorPassword(ctx, o.ID, "h"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DashboardSessionFor(ctx, "live"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a session outlived a password change: %v", err)
	}
}

func testSigninLinks(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, clock.Now)
	ctx := context.Background()
	o, _ := s.CreateOperator(ctx, "o@example.com", "")
	if err := s.CreateSigninLink(ctx, "l1", o.ID, clock.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	if got, err := s.SigninLinkOperator(ctx, "l1"); err != nil || got.ID != o.ID {
		t.Fatalf("peek: %+v %v", got, err)
	}
	var wg sync.WaitGroup
	wins := make(chan string, 4)
	for range 4 {
		wg.Go(func() {
			if id, err := s.UseSigninLink(ctx, "l1"); err == nil {
				wins <- id
			} else if !errors.Is(err, store.ErrNotFound) {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	close(wins)
	if n := len(wins); n != 1 {
		t.Fatalf("%d concurrent uses won, want 1", n)
	}
	if id := <-wins; id != o.ID {
		t.Fatalf("used link names %q", id)
	}
	if _, err := s.SigninLinkOperator(ctx, "l1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a used link: %v", err)
	}
	_ = s.CreateSigninLink(ctx, "l2", o.ID, clock.Now().Add(time.Hour))
	clock.Advance(time.Hour)
	if _, err := s.UseSigninLink(ctx, "l2"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an expired link: %v", err)
	}
}

func testSigninFailures(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, clock.Now)
	ctx := context.Background()
	start := clock.Now()
	for range 3 {
		if err := s.RecordSigninFailure(ctx, start.Add(-time.Hour), "email:a", "addr:1"); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Minute)
	}
	_ = s.RecordSigninFailure(ctx, start.Add(-time.Hour), "email:b", "addr:1")
	if n, err := s.SigninFailures(ctx, "email:a", start); err != nil || n != 3 {
		t.Fatalf("email:a: %d %v", n, err)
	}
	if n, _ := s.SigninFailures(ctx, "addr:1", start); n != 4 {
		t.Fatalf("addr:1: %d", n)
	}
	if n, _ := s.SigninFailures(ctx, "email:a", start.Add(90*time.Second)); n != 1 {
		t.Fatalf("email:a in the last window: %d", n)
	}
	if err := s.ClearSigninFailures(ctx, "email:a"); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.SigninFailures(ctx, "email:a", start); n != 0 {
		t.Fatalf("after clear: %d", n)
	}
	// Old failures are forgotten by the next record.
	clock.Advance(time.Minute)
	_ = s.RecordSigninFailure(ctx, clock.Now(), "email:c")
	if n, _ := s.SigninFailures(ctx, "addr:1", start.Add(-time.Hour)); n != 0 {
		t.Fatalf("failures before the window are kept: %d", n)
	}
}

func testAPIKeysLastUsed(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, clock.Now)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	_, nk := newKey(t, p.ID)
	used, _ := s.CreateAPIKey(ctx, nk)
	_, nk2 := newKey(t, p.ID)
	unused, _ := s.CreateAPIKey(ctx, nk2)
	rec := func(at time.Time) store.LogRecord {
		return store.LogRecord{ID: store.NewID(), ProjectID: p.ID, CreatedAt: at, UserID: "u", ConnectorID: "c", Tool: "c_t",
			APIKeyID: used.ID, Outcome: "ok"}
	}
	if err := s.InsertLogRecords(ctx, []store.LogRecord{rec(clock.Now()), rec(clock.Now().Add(time.Minute))}); err != nil {
		t.Fatal(err)
	}
	last, err := s.APIKeysLastUsed(ctx, p.ID)
	if err != nil || len(last) != 1 || !last[used.ID].Equal(clock.Now().Add(time.Minute)) {
		t.Fatalf("last used: %+v %v", last, err)
	}
	if _, ok := last[unused.ID]; ok {
		t.Fatal("a key never used has a last use")
	}
}

func testEndpointRename(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, clock.Now)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	other, _ := s.CreateProject(ctx, "other")
	if _, err := s.CreateEndpoint(ctx, store.Endpoint{ProjectID: p.ID, Slug: "support", Mode: "tools", Spec: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	_, _ = s.CreateEndpoint(ctx, store.Endpoint{ProjectID: other.ID, Slug: "taken", Mode: "tools", Spec: []byte(`{}`)})
	if _, err := s.EndpointBySlug(ctx, "support"); err != nil { // cached now
		t.Fatal(err)
	}
	if err := s.RenameEndpoint(ctx, other.ID, "support", "x-support"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("rename from another project: %v", err)
	}
	if err := s.RenameEndpoint(ctx, p.ID, "support", "taken"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("rename to a taken slug: %v", err)
	}
	clock.Advance(time.Minute)
	if err := s.RenameEndpoint(ctx, p.ID, "support", "help-desk"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.EndpointBySlug(ctx, "support"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the old slug still answers: %v", err)
	}
	if e, err := s.EndpointBySlug(ctx, "help-desk"); err != nil || e.ProjectID != p.ID || !e.UpdatedAt.Equal(clock.Now()) {
		t.Fatalf("new slug: %+v %v", e, err)
	}
}
