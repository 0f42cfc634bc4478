package cli

import (
	"strings"
	"testing"
)

// TestAdminOpenAPIExtend_ImportSwitchRemove: `openapi import --extends
// github` adds the description's uncovered operations as github tools of
// that project only (an admin can switch them like any tool), reports the
// operations curated tools cover, and `openapi remove --extends github`
// takes them away.
func TestAdminOpenAPIExtend_ImportSwitchRemove(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	proj := newProject(t, env)
	other := newProject(t, env)
	const file = "../upstream/testdata/github-extension.yaml"
	const id = "github_actions_approve_workflow_run"
	code, out, stderr := runCLI(t, env, "admin", "openapi", "import", "--project", proj.ID, "--extends", "github", file, "--json")
	if code != 0 || !strings.Contains(out, `"tools": 2`) || !strings.Contains(out, id) || !strings.Contains(out, "github_get_authenticated_user has this id") {
		t.Fatalf("import: %d %s %s", code, out, stderr)
	}
	if code, out, stderr := runCLI(t, env, "admin", "tools", "disable", "--project", proj.ID, id, "--json"); code != 0 || !strings.Contains(out, id) {
		t.Fatalf("disable the extended tool: %d %s %s", code, out, stderr)
	}
	if code, _, stderr := runCLI(t, env, "admin", "tools", "disable", "--project", other.ID, id); code != exitError || !strings.Contains(stderr, "no tool matches") {
		t.Fatalf("another project has the tool: %d %s", code, stderr)
	}
	if code, out, _ := runCLI(t, env, "admin", "connectors", "list", "--project", proj.ID, "--json"); code != 0 || !strings.Contains(out, `"origin": "extension"`) {
		t.Fatalf("list: %d %s", code, out)
	}
	if code, out, stderr := runCLI(t, env, "admin", "openapi", "remove", "--project", proj.ID, "--extends", "github"); code != 0 || !strings.Contains(out, "removed") {
		t.Fatalf("remove: %d %s %s", code, out, stderr)
	}
	if code, _, stderr := runCLI(t, env, "admin", "tools", "enable", "--project", proj.ID, id); code != exitError || !strings.Contains(stderr, "no tool matches") {
		t.Fatalf("the removed extension's tool is still there: %d %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, env, "admin", "openapi", "remove", "--project", proj.ID, "--extends", "github"); code != exitError || !strings.Contains(stderr, "no extension") {
		t.Fatalf("remove twice: %d %s", code, stderr)
	}
	for _, args := range [][]string{
		{"--extends", "no_such_connector", file},
		{"--extends", "github", strings.Replace(file, "github-extension", "notes-31", 1)},
	} {
		if code, _, stderr := runCLI(t, env, append([]string{"admin", "openapi", "import", "--project", proj.ID}, args...)...); code != exitError {
			t.Fatalf("%v: %d %s", args, code, stderr)
		}
	}
	if code, _, _ := runCLI(t, env, "admin", "openapi", "import", "--project", proj.ID, "--extends", "github", "--id", "x", file); code != exitUsage {
		t.Fatalf("--id with --extends: %d", code)
	}
}
