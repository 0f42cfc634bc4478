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

// TestAdminOpenAPIImport_PlainHTTPOnlyInOpenedNetwork: an http:// base URL is
// accepted when its host is inside a private network the operator opened to
// that connector (or to every connector), and the output says so; anywhere
// else https stays required.
func TestAdminOpenAPIImport_PlainHTTPOnlyInOpenedNetwork(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	env["SWITCHBOARD_OUTBOUND_ALLOW"] = "connector:notes=10.20.0.0/16,connectors=10.30.0.0/24,mcp=10.40.0.0/16"
	proj := newProject(t, env)
	imp := func(id, base string, extra ...string) (int, string, string) {
		return runCLI(t, env, append([]string{"admin", "openapi", "import", "--project", proj.ID, "--id", id,
			"../upstream/testdata/notes-31.yaml", "--base-url", base}, extra...)...)
	}
	if code, out, stderr := imp("notes", "http://10.20.1.5:8080/v1", "--json"); code != 0 || !strings.Contains(out, `"plainHttp": true`) {
		t.Fatalf("opened to the connector: %d %s %s", code, out, stderr)
	}
	if code, out, stderr := imp("notes", "http://10.20.1.5:8080/v1"); code != 0 || !strings.Contains(out, "plain http") {
		t.Fatalf("text output: %d %s %s", code, out, stderr)
	}
	if code, out, stderr := imp("billing", "http://10.30.0.9/api"); code != 0 || !strings.Contains(out, "plain http") {
		t.Fatalf("opened to every connector: %d %s %s", code, out, stderr)
	}
	if code, out, _ := imp("secure", "https://api.example.com/v1", "--json"); code != 0 || strings.Contains(out, "plainHttp") {
		t.Fatalf("https: %d %s", code, out)
	}
	for _, c := range []struct{ id, base string }{
		{"other", "http://10.20.1.5/v1"},     // another connector's network
		{"notes", "http://10.40.0.2/v1"},     // opened to MCP servers only
		{"notes", "http://93.184.216.34/v1"}, // the public internet
		{"notes", "http://127.0.0.1/v1"},
	} {
		if code, _, stderr := imp(c.id, c.base); code != exitError || !strings.Contains(stderr, "must be https") {
			t.Errorf("%s %s: %d %s", c.id, c.base, code, stderr)
		}
	}
}
