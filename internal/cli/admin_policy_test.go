package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAdminPolicy_CreateListDefaultDelete(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	proj := newProject(t, env)
	code, out, stderr := runCLI(t, env, "admin", "policy", "create", "--project", proj.ID, "--json",
		"--rule", `{"decision":"ask","match":{"tool":"github_*","arguments":[{"path":"repo","equals":"prod"}]}}`)
	var r struct {
		ID, Level, Decision string
	}
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.ID == "" || r.Level != "project" || r.Decision != "ask" {
		t.Fatalf("create: %d %s %s", code, out, stderr)
	}
	if code, _, stderr := runCLI(t, env, "admin", "policy", "create", "--project", proj.ID,
		"--rule", `{"decision":"deny","match":{"arguments":[{"path":"a","regexp":"("}]}}`); code == 0 || !strings.Contains(stderr, "regexp") {
		t.Fatalf("a bad regexp: %d %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, env, "admin", "policy", "default", "--project", proj.ID, "deny"); code != 0 {
		t.Fatalf("default: %d %s", code, stderr)
	}
	code, out, _ = runCLI(t, env, "admin", "policy", "list", "--project", proj.ID, "--json")
	var list struct {
		DefaultDecision string
		Rules           []struct{ ID string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || list.DefaultDecision != "deny" || len(list.Rules) != 1 || list.Rules[0].ID != r.ID {
		t.Fatalf("list: %d %s", code, out)
	}
	if code, _, _ := runCLI(t, env, "admin", "policy", "delete", "--project", proj.ID, r.ID); code != 0 {
		t.Fatalf("delete: %d", code)
	}
	if code, _, _ := runCLI(t, env, "admin", "policy", "delete", "--project", proj.ID, r.ID); code == 0 {
		t.Fatal("a deleted rule was deleted again")
	}
}
