package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

func TestAdminLogs_FiltersAndPrintsNewestFirst(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	proj := newProject(t, env)
	st, err := store.Open(context.Background(), env["SWITCHBOARD_DATABASE_URL"], store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	base := time.Date(2026, 4, 1, 10, 0, 0, 0, time.UTC)
	input := `{"id":"7"}`
	decision := `{"decision":"ask","ruleId":"pol_1","level":"project"}`
	err = st.InsertLogRecords(context.Background(), []store.LogRecord{
		{ID: store.NewID(), ProjectID: proj.ID, CreatedAt: base, UserID: "ann", ConnectorID: "github", Tool: "github_get_issue",
			Outcome: "ok", ProviderStatus: 200, TotalMicros: 12345, ProviderMicros: 10000, RequestID: "req-1", Input: &input},
		{ID: store.NewID(), ProjectID: proj.ID, CreatedAt: base.Add(time.Minute), UserID: "bob", ConnectorID: "github",
			Tool: "GET /user", Outcome: "UPSTREAM_ERROR", RequestID: "req-2", SessionID: "s-1", Policy: &decision},
		{ID: store.NewID(), ProjectID: "another", CreatedAt: base, UserID: "ann", Tool: "github_get_issue", Outcome: "ok", RequestID: "req-3"},
	})
	st.Close()
	if err != nil {
		t.Fatal(err)
	}

	code, out, stderr := runCLI(t, env, "admin", "logs", "--project", proj.ID)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || !strings.Contains(lines[1], "req-2") || !strings.Contains(lines[1], "session s-1") ||
		!strings.Contains(lines[2], "12.345") || !strings.Contains(lines[2], "200") {
		t.Fatalf("table: %d\n%s\n%s", code, out, stderr)
	}
	code, out, stderr = runCLI(t, env, "admin", "logs", "--project", proj.ID, "--user", "ann", "--since", "2026-04-01T09:00:00Z", "--json")
	var rows []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 1 || rows[0]["requestId"] != "req-1" ||
		rows[0]["durationMs"] != 12.345 || rows[0]["input"].(map[string]any)["id"] != "7" {
		t.Fatalf("json: %d %s %s", code, out, stderr)
	}
	// The decision of a policy rule behind a call is printed with it.
	code, out, _ = runCLI(t, env, "admin", "logs", "--project", proj.ID, "--user", "bob", "--json")
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 1 || rows[0]["policy"] == nil ||
		rows[0]["policy"].(map[string]any)["ruleId"] != "pol_1" {
		t.Fatalf("policy: %d %s", code, out)
	}
	for _, args := range [][]string{
		{"admin", "logs"},
		{"admin", "logs", "--project", proj.ID, "--since", "yesterday"},
		{"admin", "logs", "--project", proj.ID, "--limit", "0"},
	} {
		if code, _, _ := runCLI(t, env, args...); code != exitUsage {
			t.Errorf("%v: exit %d, want usage", args, code)
		}
	}
}

func TestAdminProjectSet_LogPayloadsAndRedactedNames(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	proj := newProject(t, env)
	code, out, stderr := runCLI(t, env, "admin", "project", "set", proj.ID, "--log-payloads", "--log-redact", "ssn, dob", "--json")
	if code != 0 || !strings.Contains(out, `"payloads": true`) || !strings.Contains(out, `"ssn"`) || !strings.Contains(out, `"dob"`) {
		t.Fatalf("set: %d %s %s", code, out, stderr)
	}
	// Another setting leaves the log settings as they were; --log-payloads=false turns payloads off.
	if code, out, _ := runCLI(t, env, "admin", "project", "set", proj.ID, "--connect-name", "Acme", "--json"); code != 0 || !strings.Contains(out, `"payloads": true`) {
		t.Fatalf("connect name changed the log settings: %s", out)
	}
	if code, out, _ := runCLI(t, env, "admin", "project", "set", proj.ID, "--log-payloads=false", "--json"); code != 0 ||
		!strings.Contains(out, `"payloads": false`) || !strings.Contains(out, `"ssn"`) {
		t.Fatalf("payloads off: %s", out)
	}
}
