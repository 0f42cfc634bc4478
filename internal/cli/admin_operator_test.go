package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

func runCLIStdin(t *testing.T, env map[string]string, stdin string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	p := &Program{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &errOut, Getenv: func(k string) string { return env[k] }}
	code := p.Run(context.Background(), args)
	return code, out.String(), errOut.String()
}

var linkPattern = regexp.MustCompile(`https?://\S+/dashboard/signin/link/[0-9a-f]{64}`)

func TestAdminOperator_CreateListRoleRemove(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	proj := newProject(t, env)
	if code, _, stderr := runCLIStdin(t, env, "", "admin", "operator", "create", "a@example.com"); code != exitUsage || !strings.Contains(stderr, "standard input") {
		t.Fatalf("no password: %d %s", code, stderr)
	}
	if code, _, stderr := runCLIStdin(t, env, "short\n", "admin", "operator", "create", "a@example.com"); code != exitError || !strings.Contains(stderr, "at least 12") {
		t.Fatalf("short password: %d %s", code, stderr)
	}
	if code, _, stderr := runCLIStdin(t, env, "pw long enough\n", "admin", "operator", "create", "not-an-email"); code != exitUsage {
		t.Fatalf("bad email: %d %s", code, stderr)
	}
	code, out, stderr := runCLIStdin(t, env, "pw long enough\n", "admin", "operator", "create", "A@example.com", "--project", proj.ID, "--role", "owner")
	if code != 0 || !strings.Contains(out, "created operator a@example.com") || strings.Contains(out, "pw long enough") {
		t.Fatalf("create: %d %s %s", code, out, stderr)
	}
	if code, _, stderr := runCLIStdin(t, env, "pw long enough\n", "admin", "operator", "create", "a@example.com"); code != exitError || !strings.Contains(stderr, "exists already") {
		t.Fatalf("twice: %d %s", code, stderr)
	}
	code, out, _ = runCLI(t, env, "admin", "operator", "create", "b@example.com", "--link")
	if code != 0 || !linkPattern.MatchString(out) {
		t.Fatalf("create --link: %d %s", code, out)
	}
	if code, _, _ := runCLI(t, env, "admin", "operator", "role", "b@example.com", "--project", proj.ID, "--role", "member"); code != 0 {
		t.Fatalf("role: %d", code)
	}
	code, out, _ = runCLI(t, env, "admin", "operator", "list", "--json")
	var list []struct {
		Email    string
		Projects []struct{ ProjectID, Role string }
	}
	if code != 0 || json.Unmarshal([]byte(out), &list) != nil || len(list) != 2 ||
		list[0].Email != "a@example.com" || list[0].Projects[0].Role != "owner" || list[1].Projects[0].Role != "member" {
		t.Fatalf("list: %d %s", code, out)
	}
	if strings.Contains(out, "argon2") {
		t.Fatal("list shows a password hash")
	}
	if code, _, _ := runCLI(t, env, "admin", "operator", "role", "b@example.com", "--project", proj.ID, "--role", "none"); code != 0 {
		t.Fatalf("role none: %d", code)
	}
	if code, out, _ := runCLI(t, env, "admin", "operator", "link", "a@example.com"); code != 0 || !linkPattern.MatchString(out) {
		t.Fatalf("link: %d %s", code, out)
	}
	if code, _, _ := runCLI(t, env, "admin", "operator", "remove", "b@example.com"); code != 0 {
		t.Fatalf("remove: %d", code)
	}
	if code, _, stderr := runCLI(t, env, "admin", "operator", "remove", "b@example.com"); code != exitError || !strings.Contains(stderr, "no operator") {
		t.Fatalf("remove twice: %d %s", code, stderr)
	}
}

// A fresh install says how to create the first operator; the link the
// command prints opens the dashboard's password page; once an operator
// exists the hint is gone.
func TestServe_FirstStartSaysHowToSignIn(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	srv := startServe(t, nil)
	out := srv.stdout.String()
	if !strings.Contains(out, "No dashboard operator yet") || !strings.Contains(out, "switchboard admin operator create") {
		t.Fatalf("no operator hint on first start:\n%s", out)
	}
	code, out, stderr := runCLI(t, nil, "admin", "operator", "create", "ops@example.com", "--link")
	link := linkPattern.FindString(out)
	if code != 0 || link == "" {
		t.Fatalf("create --link: %d %s %s", code, out, stderr)
	}
	page := srv.base + link[strings.Index(link, "/dashboard/"):]
	if code, body := get(t, page, ""); code != 200 || !strings.Contains(body, "ops@example.com") {
		t.Fatalf("link page: %d %s", code, body)
	}
	srv.stop()
	again := startServe(t, nil)
	if strings.Contains(again.stdout.String(), "No dashboard operator yet") {
		t.Fatalf("hint printed with an operator:\n%s", again.stdout.String())
	}
}
