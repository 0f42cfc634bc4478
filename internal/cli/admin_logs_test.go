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

// TestAdminLogs_ShowsTheDeliveriesACallCaused: a record lists the
// approval.requested delivery of its held call (table and JSON), and
// `admin webhook deliveries` names the record and request it came from.
func TestAdminLogs_ShowsTheDeliveriesACallCaused(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	proj := newProject(t, env)
	ctx := context.Background()
	st, err := store.Open(ctx, env["SWITCHBOARD_DATABASE_URL"], store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	logID := store.NewID()
	now := time.Now().UTC().Truncate(time.Millisecond)
	hook, err := st.CreateWebhook(ctx, store.Webhook{ID: store.NewID(), ProjectID: proj.ID, URL: "https://hooks.example.com/a",
		Events: []string{"approval.requested"}, Secret: []byte("sealed")})
	if err == nil {
		err = st.InsertLogRecords(ctx, []store.LogRecord{
			{ID: logID, ProjectID: proj.ID, CreatedAt: now, UserID: "ann", Tool: "github_create_issue", Outcome: "APPROVAL_REQUIRED", RequestID: "req-held"},
			{ID: store.NewID(), ProjectID: proj.ID, CreatedAt: now.Add(-time.Minute), UserID: "ann", Tool: "github_get_issue", Outcome: "ok", RequestID: "req-plain"},
		})
	}
	var ids []string
	if err == nil {
		a := store.Approval{ID: store.NewID(), ProjectID: proj.ID, ToolKey: "github_create_issue", UserID: "ann", Input: []byte(`{}`),
			InputHash: "h", Status: store.ApprovalPending, CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
		ids, err = st.CreateApproval(ctx, a, "approval.requested", store.EventCause{LogID: logID, RequestID: "req-held"},
			func() ([]byte, error) { return []byte(`{}`), nil })
	}
	st.Close()
	if err != nil || len(ids) != 1 {
		t.Fatalf("setup: %v %v", ids, err)
	}

	code, out, stderr := runCLI(t, env, "admin", "logs", "--project", proj.ID)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != 3 || !strings.Contains(lines[0], "DELIVERIES") || !strings.Contains(lines[1], "approval.requested "+ids[0]) ||
		strings.Contains(lines[2], ids[0]) {
		t.Fatalf("table: %d\n%s\n%s", code, out, stderr)
	}
	code, out, stderr = runCLI(t, env, "admin", "logs", "--project", proj.ID, "--json")
	var rows []struct {
		RequestID  string `json:"requestId"`
		Deliveries []struct {
			ID        string `json:"id"`
			WebhookID string `json:"webhookId"`
		} `json:"deliveries"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rows) != nil || len(rows) != 2 || len(rows[0].Deliveries) != 1 ||
		rows[0].Deliveries[0].ID != ids[0] || rows[0].Deliveries[0].WebhookID != hook.ID || rows[1].Deliveries == nil || len(rows[1].Deliveries) != 0 {
		t.Fatalf("json: %d %s %s", code, out, stderr)
	}
	code, out, stderr = runCLI(t, env, "admin", "webhook", "deliveries", "--project", proj.ID, hook.ID, "--json")
	var ds []map[string]any
	if code != 0 || json.Unmarshal([]byte(out), &ds) != nil || len(ds) != 1 || ds[0]["logId"] != logID || ds[0]["requestId"] != "req-held" {
		t.Fatalf("webhook deliveries: %d %s %s", code, out, stderr)
	}
	code, out, _ = runCLI(t, env, "admin", "webhook", "deliveries", "--project", proj.ID, hook.ID)
	if code != 0 || !strings.Contains(out, "log "+logID+" request req-held") {
		t.Fatalf("webhook deliveries table: %d %s", code, out)
	}
	if code, _, _ := runCLI(t, env, "admin", "webhook", "deliveries", "--project", proj.ID); code != exitUsage {
		t.Fatalf("no webhook id: exit %d", code)
	}
}
