package cli

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestAdminQuota_CreateListUpdateDelete(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	_, out, _ := runCLI(t, env, "admin", "project", "create", "acme", "--json")
	var proj map[string]any
	_ = json.Unmarshal([]byte(out), &proj)
	id := proj["id"].(string)

	code, out, stderr := runCLI(t, env, "admin", "quota", "create", "--project", id, "--window", "hour", "--limit", "100",
		"--per-user", "--connector", "github", "--json")
	var q map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &q) != nil || q["window"] != "hour" || q["limit"] != 100.0 || q["perUser"] != true {
		t.Fatalf("create: %d %q %s", code, out, stderr)
	}
	qid := q["id"].(string)
	if code, out, _ := runCLI(t, env, "admin", "quota", "list", "--project", id); code != 0 ||
		!strings.Contains(out, qid) || !strings.Contains(out, "100 calls per hour for each user on github") {
		t.Fatalf("list: %d %q", code, out)
	}
	if code, out, _ := runCLI(t, env, "admin", "quota", "update", "--project", id, "--window", "day", "--limit", "5", qid); code != 0 ||
		!strings.Contains(out, "5 calls per day") {
		t.Fatalf("update: %d %q", code, out)
	}
	if code, _, stderr := runCLI(t, env, "admin", "quota", "create", "--project", id, "--window", "week", "--limit", "1"); code == 0 ||
		!strings.Contains(stderr, "window") {
		t.Fatalf("bad window: %d %s", code, stderr)
	}
	if code, out, _ := runCLI(t, env, "admin", "quota", "delete", "--project", id, qid); code != 0 || !strings.Contains(out, "deleted") {
		t.Fatalf("delete: %d %q", code, out)
	}
	if code, out, _ := runCLI(t, env, "admin", "quota", "list", "--project", id, "--json"); code != 0 || strings.TrimSpace(out) != "[]" {
		t.Fatalf("list after delete: %d %q", code, out)
	}
}

func TestAdminRedaction_SetShowClear(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	_, out, _ := runCLI(t, env, "admin", "project", "create", "acme", "--json")
	var proj map[string]any
	_ = json.Unmarshal([]byte(out), &proj)
	id := proj["id"].(string)

	if code, out, stderr := runCLI(t, env, "admin", "redaction", "set", "--project", id, "--detectors", "email,card",
		"--pattern", `employee_id=EMP-\d{6}`); code != 0 || !strings.Contains(out, "email, card") || !strings.Contains(out, "employee_id") {
		t.Fatalf("set: %d %q %s", code, out, stderr)
	}
	code, out, _ := runCLI(t, env, "admin", "redaction", "show", "--project", id, "--json")
	var r map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r["enabled"] != true || len(r["patterns"].([]any)) != 1 || r["restExecute"] != false {
		t.Fatalf("show: %d %q", code, out)
	}
	if code, _, stderr := runCLI(t, env, "admin", "redaction", "set", "--project", id, "--detectors", "ssn"); code == 0 || !strings.Contains(stderr, "detectors") {
		t.Fatalf("bad detector: %d %s", code, stderr)
	}
	if code, out, _ := runCLI(t, env, "admin", "redaction", "clear", "--project", id); code != 0 || !strings.Contains(out, "redacts nothing") {
		t.Fatalf("clear: %d %q", code, out)
	}
}
