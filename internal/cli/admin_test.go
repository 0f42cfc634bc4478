package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// freshEnv names a database and key file in a new temporary directory;
// neither exists yet.
func freshEnv(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	return map[string]string{
		"SWITCHBOARD_DATABASE_URL":    "sqlite:" + filepath.Join(dir, "sb.db"),
		"SWITCHBOARD_SECRET_KEY_FILE": filepath.Join(dir, "secret.key"),
	}
}

// dbEnv is freshEnv with the database created and migrated.
func dbEnv(t *testing.T) map[string]string {
	t.Helper()
	env := freshEnv(t)
	// Admin commands do not create a database; migrate does, as serve would.
	if code, _, stderr := runCLI(t, env, "migrate"); code != 0 {
		t.Fatalf("migrate: %d %s", code, stderr)
	}
	return env
}

func TestAdmin_JSONOutputsAreOneDocument(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	code, out, stderr := runCLI(t, env, "admin", "project", "create", "acme", "--json")
	var proj map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &proj) != nil {
		t.Fatalf("project create: %d %q %s", code, out, stderr)
	}
	if len(proj) != 2 || proj["name"] != "acme" || proj["id"] == "" {
		t.Fatalf("project create printed %v", proj)
	}
	id := proj["id"].(string)

	code, out, _ = runCLI(t, env, "admin", "key", "create", "--json", "--project", id, "--name", "ci")
	var key map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &key) != nil {
		t.Fatalf("key create: %d %q", code, out)
	}
	if len(key) != 4 || key["projectId"] != id || key["expiresAt"] != nil ||
		!regexp.MustCompile(`^sb_[0-9a-f]{64}$`).MatchString(key["key"].(string)) {
		t.Fatalf("key create printed %v", key)
	}

	code, out, _ = runCLI(t, env, "admin", "key", "create", "--project", id, "--expires", "720h", "--json")
	var exp struct {
		ExpiresAt *time.Time `json:"expiresAt"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &exp) != nil || exp.ExpiresAt == nil ||
		time.Until(*exp.ExpiresAt) < 719*time.Hour {
		t.Fatalf("key with expiry: %d %s", code, out)
	}

	code, out, _ = runCLI(t, env, "admin", "key", "list", "--project", id, "--json")
	var keys []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &keys) != nil || len(keys) != 2 || strings.Contains(out, key["key"].(string)) {
		t.Fatalf("key list: %d %s", code, out)
	}
	code, out, _ = runCLI(t, env, "admin", "key", "revoke", key["id"].(string), "--json")
	var rev map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &rev) != nil || rev["revokedAt"] == nil {
		t.Fatalf("revoke: %d %s", code, out)
	}
	code, out, _ = runCLI(t, env, "admin", "project", "list", "--json")
	var list []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 1 {
		t.Fatalf("project list: %d %s", code, out)
	}
}

func TestAdmin_Errors(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"admin", "key", "create"}, exitUsage, "--project is required"},
		{[]string{"admin", "key", "create", "--project", "nope"}, exitError, "project nope not found"},
		{[]string{"admin", "key", "create", "--project", "x", "--expires", "soon"}, exitUsage, "invalid value"},
		{[]string{"admin", "key", "revoke", "nope"}, exitError, "API key nope not found"},
		{[]string{"admin", "key", "revoke"}, exitUsage, "usage: switchboard admin key revoke"},
		{[]string{"admin", "project", "create"}, exitUsage, "usage: switchboard admin project create"},
		{[]string{"admin", "widget", "make"}, exitUsage, "unknown admin command"},
		{[]string{"frobnicate"}, exitUsage, "unknown command"},
	}
	for _, c := range cases {
		code, _, stderr := runCLI(t, env, c.args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, stderr, c.code, c.want)
		}
	}
}

func TestMigrate_StatusThenApply(t *testing.T) {
	t.Parallel()
	env := freshEnv(t)
	code, out, _ := runCLI(t, env, "migrate", "--status")
	if code != 0 || !strings.Contains(out, "pending") || strings.Contains(out, "applied") {
		t.Fatalf("status before: %d %s", code, out)
	}
	code, out, _ = runCLI(t, env, "migrate")
	if code != 0 || !strings.Contains(out, "applied 0001_") {
		t.Fatalf("apply: %d %s", code, out)
	}
	code, out, _ = runCLI(t, env, "migrate")
	if code != 0 || !strings.Contains(out, "up to date") {
		t.Fatalf("apply again: %d %s", code, out)
	}
	code, out, _ = runCLI(t, env, "migrate", "--status", "--json")
	var states []struct {
		Version   int        `json:"version"`
		AppliedAt *time.Time `json:"appliedAt"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &states) != nil || len(states) == 0 || states[0].AppliedAt == nil {
		t.Fatalf("status after: %d %s", code, out)
	}
}

func TestVersion(t *testing.T) {
	t.Parallel()
	code, out, _ := runCLI(t, nil, "version")
	if code != 0 || !strings.HasPrefix(out, "switchboard ") {
		t.Fatalf("%d %q", code, out)
	}
}

func TestAdminTools_DisableEnableList(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	proj := newProject(t, env)
	code, out, stderr := runCLI(t, env, "admin", "tools", "disable", "--project", proj.ID, "github_create_issue", "--json")
	if code != 0 || !strings.Contains(out, "github_create_issue") {
		t.Fatalf("disable: %d %s %s", code, out, stderr)
	}
	code, out, _ = runCLI(t, env, "admin", "tools", "list", "--project", proj.ID, "--disabled", "--json")
	var rows []struct {
		ID      string
		Enabled bool
	}
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 1 || rows[0].ID != "github_create_issue" || rows[0].Enabled {
		t.Fatalf("list: %d %s", code, out)
	}
	if code, _, _ := runCLI(t, env, "admin", "tools", "enable", "--project", proj.ID, "github_*"); code != 0 {
		t.Fatalf("enable pattern: %d", code)
	}
	_, out, _ = runCLI(t, env, "admin", "tools", "list", "--project", proj.ID, "--disabled", "--json")
	if strings.TrimSpace(out) != "[]" {
		t.Fatalf("after enable: %s", out)
	}
	if code, _, stderr := runCLI(t, env, "admin", "tools", "disable", "--project", proj.ID, "nope_tool"); code != exitError || !strings.Contains(stderr, `no tool matches "nope_tool"`) {
		t.Fatalf("unknown tool: %d %s", code, stderr)
	}
}

func TestAdminAuthConfigAndGlobal(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	proj := newProject(t, env)
	var stdout, stderr bytes.Buffer
	p := &Program{Stdin: strings.NewReader("gh-client-secret\n"), Stdout: &stdout, Stderr: &stderr, Getenv: func(k string) string { return env[k] }}
	code := p.Run(context.Background(), []string{"admin", "authconfig", "create", "--project", proj.ID, "--connector", "github",
		"--type", "oauth2", "--client-id", "gh-client", "--client-secret", "-", "--scopes", "repo,read:user", "--key", "gh", "--json"})
	var ac struct {
		ID, Key, ClientID string
		HasClientSecret   bool
		Scopes            []string
	}
	if code != 0 || json.Unmarshal(stdout.Bytes(), &ac) != nil || ac.Key != "gh" || !ac.HasClientSecret || len(ac.Scopes) != 2 {
		t.Fatalf("create: %d %s %s", code, stdout.String(), stderr.String())
	}
	code, out, _ := runCLI(t, env, "admin", "authconfig", "list", "--project", proj.ID, "--json")
	if code != 0 || !strings.Contains(out, `"key": "gh"`) || strings.Contains(out, "gh-client-secret") {
		t.Fatalf("list: %d %s", code, out)
	}
	if code, _, stderr := runCLI(t, env, "admin", "authconfig", "create", "--project", proj.ID, "--connector", "github",
		"--client-id", "x", "--client-secret", "y", "--key", "gh"); code != exitError || !strings.Contains(stderr, "already has an auth config") {
		t.Fatalf("duplicate key: %d %s", code, stderr)
	}
	if code, _, _ := runCLI(t, env, "admin", "authconfig", "delete", "--project", proj.ID, ac.ID); code != 0 {
		t.Fatalf("delete: %d", code)
	}

	// A global account to permit.
	st, err := store.Open(context.Background(), env["SWITCHBOARD_DATABASE_URL"], store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	impl, _ := st.EnsureImplicitAuthConfig(context.Background(), proj.ID, "github", "github_api_key", "api_key", "api_key")
	g, err := st.CreateConnection(context.Background(), store.NewConnection{ID: store.NewID(), ProjectID: proj.ID, ConnectorID: "github",
		AuthConfigID: impl.ID, Global: true, Credential: []byte("sealed")})
	if err != nil {
		t.Fatal(err)
	}
	if code, out, stderr := runCLI(t, env, "admin", "global", "allow", g.ID, "--tools", "github_create_issue,github_list_*", "--proxy", "--json"); code != 0 || !strings.Contains(out, `"proxy": true`) {
		t.Fatalf("allow: %d %s %s", code, out, stderr)
	}
	perm, _ := st.GetGlobalPermission(context.Background(), g.ID)
	if len(perm.Tools) != 2 || !perm.Proxy {
		t.Fatalf("permission: %+v", perm)
	}
	if code, _, stderr := runCLI(t, env, "admin", "global", "allow", g.ID, "--tools", "nope_*"); code != exitError || !strings.Contains(stderr, "no tool matches") {
		t.Fatalf("unknown tools: %d %s", code, stderr)
	}
	if code, _, _ := runCLI(t, env, "admin", "global", "revoke", g.ID); code != 0 {
		t.Fatalf("revoke: %d", code)
	}
	if perm, _ := st.GetGlobalPermission(context.Background(), g.ID); len(perm.Tools) != 0 || perm.Proxy {
		t.Fatalf("after revoke: %+v", perm)
	}
}

func TestAdminEndpoint_CreateListUpdateDelete(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	proj := newProject(t, env)
	code, out, stderr := runCLI(t, env, "admin", "endpoint", "create", "--project", proj.ID, "--slug", "team-tools",
		"--connectors", "github,slack", "--actions", "github_*", "--read-only", "--require-user", "--json")
	if code != 0 || !strings.Contains(out, `"slug": "team-tools"`) || !strings.Contains(out, `"requireUser": true`) {
		t.Fatalf("create: %d %s %s", code, out, stderr)
	}
	// The listing shows the scope as JSON: an object with --json, compact text
	// in the table, never the numbers of a byte array.
	if code, out, _ := runCLI(t, env, "admin", "endpoint", "list", "--project", proj.ID, "--json"); code != 0 {
		t.Fatalf("list: %d %s", code, out)
	} else {
		var list []struct {
			Scope struct {
				Connectors []string `json:"connectors"`
			} `json:"scope"`
		}
		if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 || strings.Join(list[0].Scope.Connectors, ",") != "github,slack" {
			t.Fatalf("list --json scope is not an object with the connectors: %v %s", err, out)
		}
	}
	if code, out, _ := runCLI(t, env, "admin", "endpoint", "list", "--project", proj.ID); code != 0 ||
		!strings.Contains(out, `"connectors":["github","slack"]`) || regexp.MustCompile(`\[\d+ \d+ \d+`).MatchString(out) {
		t.Fatalf("list table: %d %s", code, out)
	}
	if code, _, stderr := runCLI(t, env, "admin", "endpoint", "create", "--project", proj.ID, "--slug", "team-tools"); code != exitError || !strings.Contains(stderr, "taken") {
		t.Fatalf("taken slug: %d %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, env, "admin", "endpoint", "create", "--project", proj.ID, "--slug", "No"); code != exitError || !strings.Contains(stderr, "slug") {
		t.Fatalf("bad slug: %d %s", code, stderr)
	}
	if code, out, _ := runCLI(t, env, "admin", "endpoint", "update", "--slug", "team-tools", "--mode", "meta", "--json"); code != 0 || !strings.Contains(out, `"mode": "meta"`) {
		t.Fatalf("update: %d %s", code, out)
	}
	if code, out, _ := runCLI(t, env, "admin", "endpoint", "list", "--project", proj.ID, "--json"); code != 0 || !strings.Contains(out, "team-tools") {
		t.Fatalf("list: %d %s", code, out)
	}
	if code, _, _ := runCLI(t, env, "admin", "endpoint", "delete", "team-tools"); code != 0 {
		t.Fatalf("delete: %d", code)
	}
	if code, _, _ := runCLI(t, env, "admin", "endpoint", "delete", "team-tools"); code != exitError {
		t.Fatalf("delete twice: %d", code)
	}
}

func TestAdminWebhook_CreateListDelete(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	proj := newProject(t, env)
	code, out, stderr := runCLI(t, env, "admin", "webhook", "create", "--project", proj.ID, "--url", "https://hooks.example.com/x", "--json")
	var w struct{ ID, Secret string }
	if code != 0 || json.Unmarshal([]byte(out), &w) != nil || !strings.HasPrefix(w.Secret, "whsec_") {
		t.Fatalf("create: %d %s %s", code, out, stderr)
	}
	if code, _, stderr := runCLI(t, env, "admin", "webhook", "create", "--project", proj.ID, "--url", "http://hooks.example.com/x"); code != exitError || !strings.Contains(stderr, "https") {
		t.Fatalf("http url: %d %s", code, stderr)
	}
	if code, out, _ := runCLI(t, env, "admin", "webhook", "list", "--project", proj.ID, "--json"); code != 0 || !strings.Contains(out, w.ID) || strings.Contains(out, w.Secret) {
		t.Fatalf("list: %d %s", code, out)
	}
	if code, _, _ := runCLI(t, env, "admin", "webhook", "delete", "--project", proj.ID, w.ID); code != 0 {
		t.Fatalf("delete: %d", code)
	}
}

func TestAdminAssetUploadAndConnectSettings(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	proj := newProject(t, env)
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	var buf bytes.Buffer
	_ = png.Encode(&buf, img)
	file := filepath.Join(t.TempDir(), "logo.png")
	if err := os.WriteFile(file, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, stderr := runCLI(t, env, "admin", "asset", "upload", "--project", proj.ID, file, "--json")
	var up struct{ Key, URL string }
	if code != 0 || json.Unmarshal([]byte(out), &up) != nil || !regexp.MustCompile(`^projects/`+proj.ID+`/[0-9a-f]{64}\.png$`).MatchString(up.Key) {
		t.Fatalf("upload: %d %s %s", code, out, stderr)
	}
	bad := filepath.Join(t.TempDir(), "page.html")
	_ = os.WriteFile(bad, []byte("<script>alert(1)</script>"), 0o600)
	if code, _, _ := runCLI(t, env, "admin", "asset", "upload", "--project", proj.ID, bad); code != exitUsage {
		t.Fatalf("html upload accepted: %d", code)
	}
	code, out, stderr = runCLI(t, env, "admin", "project", "set", proj.ID, "--connect-name", "Acme", "--connect-accent", "#0f766e",
		"--connect-logo", up.Key, "--connect-self-manage", "--redirect-urls", "https://app.example/done", "--json")
	if code != 0 || !strings.Contains(out, `"selfManage": true`) || !strings.Contains(out, "https://app.example/done") || !strings.Contains(out, up.Key) {
		t.Fatalf("project set: %d %s %s", code, out, stderr)
	}
	if code, _, _ := runCLI(t, env, "admin", "project", "set", proj.ID, "--connect-accent", "red"); code != exitUsage {
		t.Fatalf("bad accent accepted: %d", code)
	}
}

type projectRef struct{ ID string }

// newProject creates a project through the CLI.
func newProject(t *testing.T, env map[string]string) projectRef {
	t.Helper()
	code, out, stderr := runCLI(t, env, "admin", "project", "create", "p", "--json")
	var p projectRef
	if code != 0 || json.Unmarshal([]byte(out), &p) != nil || p.ID == "" {
		t.Fatalf("project create: %d %s %s", code, out, stderr)
	}
	return p
}

func TestAdminOpenAPIImport_ReimportReportsChanges(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	proj := newProject(t, env)
	doc, err := os.ReadFile("../upstream/testdata/notes-31.yaml")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "notes.yaml")
	_ = os.WriteFile(file, doc, 0o600)
	code, out, stderr := runCLI(t, env, "admin", "openapi", "import", "--project", proj.ID, "--id", "notes", file, "--json")
	if code != 0 || !strings.Contains(out, `"tools": 2`) || !strings.Contains(out, `"notes_list_notes"`) {
		t.Fatalf("import: %d %s %s", code, out, stderr)
	}
	changed := strings.Replace(string(doc), "summary: List notes matching a search", "summary: List the notes that match a search", 1)
	changed = strings.Replace(changed, "    post:\n      operationId: createNote", "    put:\n      operationId: replaceNotes", 1)
	_ = os.WriteFile(file, []byte(changed), 0o600)
	code, out, _ = runCLI(t, env, "admin", "openapi", "import", "--project", proj.ID, "--id", "notes", file, "--json")
	var res struct {
		Changes map[string][]string
	}
	if code != 0 || json.Unmarshal([]byte(out), &res) != nil || strings.Join(res.Changes["added"], ",") != "notes_replace_notes" ||
		strings.Join(res.Changes["removed"], ",") != "notes_create_note" || strings.Join(res.Changes["changed"], ",") != "notes_list_notes" {
		t.Fatalf("re-import: %d %s", code, out)
	}
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	_ = os.WriteFile(bad, []byte("openapi: 3.0.0\n"), 0o600)
	if code, _, stderr := runCLI(t, env, "admin", "openapi", "import", "--project", proj.ID, "--id", "notes", bad); code != exitError || !strings.Contains(stderr, "was not imported") {
		t.Fatalf("bad document: %d %s", code, stderr)
	}
	if code, out, _ := runCLI(t, env, "admin", "connectors", "list", "--project", proj.ID, "--json"); code != 0 || !strings.Contains(out, `"origin": "openapi"`) {
		t.Fatalf("list: %d %s", code, out)
	}
	if code, _, _ := runCLI(t, env, "admin", "connectors", "remove", "--project", proj.ID, "notes"); code != 0 {
		t.Fatalf("remove: %d", code)
	}
}

// TestAdminAuthConfig_ImportedConnectorAndHosts: an imported OpenAPI
// connector with an OAuth security scheme takes an OAuth client like a
// built-in one (or its tokens could never be refreshed), and --hosts sets
// the hosts a client of a connector with a user-typed OAuth host may be
// used with.
func TestAdminAuthConfig_ImportedConnectorAndHosts(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	proj := newProject(t, env)
	if code, out, stderr := runCLI(t, env, "admin", "openapi", "import", "--project", proj.ID, "--id", "shop", "../upstream/testdata/shop-30.yaml",
		"--base-url", "https://eu.shop.example/v1", "--json"); code != 0 {
		t.Fatalf("import: %d %s %s", code, out, stderr)
	}
	code, out, stderr := runCLI(t, env, "admin", "authconfig", "create", "--project", proj.ID, "--connector", "shop", "--type", "oauth2",
		"--client-id", "shop-client", "--client-secret", "shop-secret", "--json")
	if code != 0 || !strings.Contains(out, `"connectorId": "shop"`) || !strings.Contains(out, `"hasClientSecret": true`) || strings.Contains(out, "shop-secret") {
		t.Fatalf("auth config for an imported connector: %d %s %s", code, out, stderr)
	}
	// Another project does not see this project's connector.
	other := newProject(t, env)
	if code, _, stderr := runCLI(t, env, "admin", "authconfig", "create", "--project", other.ID, "--connector", "shop", "--type", "oauth2",
		"--client-id", "c", "--client-secret", "s"); code != exitError || !strings.Contains(stderr, `no connector "shop"`) {
		t.Fatalf("another project's connector: %d %s", code, stderr)
	}

	code, out, stderr = runCLI(t, env, "admin", "authconfig", "create", "--project", proj.ID, "--connector", "gitlab", "--type", "oauth2",
		"--client-id", "gl", "--client-secret", "gl-secret", "--hosts", "gitlab.corp.example, git2.corp.example:8443", "--json")
	if code != 0 || !strings.Contains(out, `"gitlab.corp.example"`) || !strings.Contains(out, `"git2.corp.example:8443"`) {
		t.Fatalf("hosts: %d %s %s", code, out, stderr)
	}
	if code, out, _ := runCLI(t, env, "admin", "authconfig", "list", "--project", proj.ID, "--connector", "gitlab", "--json"); code != 0 || !strings.Contains(out, `"git2.corp.example:8443"`) {
		t.Fatalf("list hosts: %d %s", code, out)
	}
	for _, c := range []struct{ connector, hosts, want string }{
		{"gitlab", "https://gitlab.corp.example/", "not a host name"},
		{"gitlab", "*", "not a host name"},
		{"github", "github.example.com", "only for a connector whose OAuth URLs take a user-typed host"},
	} {
		if code, _, stderr := runCLI(t, env, "admin", "authconfig", "create", "--project", proj.ID, "--connector", c.connector, "--type", "oauth2",
			"--client-id", "x", "--client-secret", "y", "--key", "k-"+c.connector, "--hosts", c.hosts); code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Fatalf("--hosts %q on %s: %d %s", c.hosts, c.connector, code, stderr)
		}
	}
}

func TestCellText_BytesAndJSONAreText(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   any
		want string
	}{
		{json.RawMessage(`{"a": [1, 2]}`), `{"a":[1,2]}`},
		{[]byte(`{"b": true}`), `{"b":true}`},
		{[]byte("plain"), "plain"},
		{[]string{"x", "y"}, "x,y"},
		{true, "true"},
		{7, "7"},
	}
	for _, c := range cases {
		if got := cellText(c.in); got != c.want {
			t.Errorf("cellText(%#v) = %q, want %q", c.in, got, c.want)
		}
	}
}
