package store

import (
	"context"
	"path/filepath"
	"testing"
)

// When the change log no longer reaches back to the version a process saw
// (pruned after 1,024 changes), the process cannot tell whose answers
// changed and drops the project's: the next request still sees the write.
func TestResolution_LogGapDropsTheProjectsAnswers(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "db"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	p, err := s.CreateProject(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	ac, err := s.EnsureImplicitAuthConfig(ctx, p.ID, "github", "k", "m", "api_key")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateAPIKey(ctx, NewAPIKey{ProjectID: p.ID, Name: "k", Hash: "h", Hint: "x"}); err != nil {
		t.Fatal(err)
	}
	c, err := s.CreateConnection(ctx, NewConnection{ID: NewID(), ProjectID: p.ID, ConnectorID: "github", AuthConfigID: ac.ID,
		UserID: "u1", Name: "work", Credential: []byte("sealed")})
	if err != nil {
		t.Fatal(err)
	}
	request := func() int64 {
		kp, err := s.ProjectForKey(ctx, "h")
		if err != nil {
			t.Fatal(err)
		}
		return kp.ConnectionsVersion
	}
	name := func() string {
		conns, err := s.ResolutionCandidates(ctx, p.ID, request(), "u1", "github")
		if err != nil || len(conns) != 1 {
			t.Fatalf("candidates %v %v", conns, err)
		}
		return conns[0].Name
	}
	if name() != "work" {
		t.Fatal("first read")
	}
	if err := s.RenameConnection(ctx, p.ID, c.ID, "office"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.write.ExecContext(ctx, `DELETE FROM connection_changes`); err != nil {
		t.Fatal(err)
	}
	if got := name(); got != "office" {
		t.Fatalf("after a change whose log row is gone, the cache answered %q", got)
	}
}
