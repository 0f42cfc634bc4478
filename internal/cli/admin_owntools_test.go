package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// TestAdminTools_ProjectOwnConnectorTools: tool switches and global
// permissions accept the tools of a project's own connectors (here an
// imported OpenAPI document), not only the built-ins, and only in that
// project.
func TestAdminTools_ProjectOwnConnectorTools(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	proj := newProject(t, env)
	if code, out, stderr := runCLI(t, env, "admin", "openapi", "import", "--project", proj.ID, "--id", "notes", "../upstream/testdata/notes-31.yaml", "--json"); code != 0 {
		t.Fatalf("import: %d %s %s", code, out, stderr)
	}
	if code, out, stderr := runCLI(t, env, "admin", "tools", "disable", "--project", proj.ID, "notes_list_notes", "--json"); code != 0 || !strings.Contains(out, "notes_list_notes") {
		t.Fatalf("disable own tool: %d %s %s", code, out, stderr)
	}
	if code, out, _ := runCLI(t, env, "admin", "tools", "list", "--project", proj.ID, "--disabled", "--json"); code != 0 || !strings.Contains(out, `"notes_list_notes"`) {
		t.Fatalf("list: %d %s", code, out)
	}
	if code, out, stderr := runCLI(t, env, "admin", "tools", "enable", "--project", proj.ID, "notes_*", "--json"); code != 0 || !strings.Contains(out, "notes_create_note") {
		t.Fatalf("enable own pattern: %d %s %s", code, out, stderr)
	}
	other := newProject(t, env)
	if code, _, stderr := runCLI(t, env, "admin", "tools", "disable", "--project", other.ID, "notes_list_notes"); code != exitError || !strings.Contains(stderr, "no tool matches") {
		t.Fatalf("another project's tool: %d %s", code, stderr)
	}

	st, err := store.Open(context.Background(), env["SWITCHBOARD_DATABASE_URL"], store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	impl, err := st.EnsureImplicitAuthConfig(context.Background(), proj.ID, "notes", "notes_api_key", "api_key", "api_key")
	if err != nil {
		t.Fatal(err)
	}
	g, err := st.CreateConnection(context.Background(), store.NewConnection{ID: store.NewID(), ProjectID: proj.ID, ConnectorID: "notes",
		AuthConfigID: impl.ID, Global: true, Credential: []byte("sealed")})
	if err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := runCLI(t, env, "admin", "global", "allow", g.ID, "--tools", "notes_list_notes,github_list_*", "--json"); code != 0 || !strings.Contains(out, "notes_list_notes") {
		t.Fatalf("allow own tool: %d %s %s", code, out, stderr)
	}
}
