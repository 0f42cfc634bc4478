package httpapi

import (
	"net/http"
	"testing"
	"time"
)

// TestExecLog_PolicyDecisionOfEveryRuledCall: a call held by an ask rule,
// one denied by a rule, and the approved call that ran each carry the
// decision in their log record (the ran call with its approver and the
// approval's latency); a call no rule matched carries none, before and
// after the project has rules.
func TestExecLog_PolicyDecisionOfEveryRuledCall(t *testing.T) {
	t.Parallel()
	onBothDatabases(t, func(t *testing.T, f *fixture) {
		f.connectDelta(t, "u1")
		get := `{"toolId":"delta_get_task","userId":"u1","input":{"id":"9"}}`
		create := `{"toolId":"delta_create_task","userId":"u1","input":{"title":"t"}}`
		if r := f.logCall(t, "POST", "/v1/tools/execute", get, "norules"); r.status != 200 {
			t.Fatalf("no rules: %d %s", r.status, r.body)
		}
		ask := f.rule(t, `{"decision":"ask","match":{"tool":"delta_create_task"}}`)
		deny := f.rule(t, `{"decision":"deny","match":{"tool":"delta_get_task","arguments":[{"path":"id","equals":"vault"}]}}`)

		if r := f.logCall(t, "POST", "/v1/tools/execute", get, "unmatched"); r.status != 200 {
			t.Fatalf("a call no rule matches: %d %s", r.status, r.body)
		}
		if r := f.logCall(t, "POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","input":{"id":"vault"}}`, "denied"); r.status != http.StatusForbidden {
			t.Fatalf("denied call: %d %s", r.status, r.body)
		}
		held := f.logCall(t, "POST", "/v1/tools/execute", create, "held")
		if held.status != http.StatusAccepted {
			t.Fatalf("held call: %d %s", held.status, held.body)
		}
		_, m, _ := f.json("GET", "/v1/approvals", "")
		list, _ := m["data"].([]any)
		if len(list) != 1 {
			t.Fatalf("approvals: %v", m)
		}
		approval := list[0].(map[string]any)["id"].(string)
		f.clock.Advance(90 * time.Second)
		if st, _, raw := f.json("POST", "/v1/approvals/"+approval+"/approve", `{"approver":"ops@example.com"}`); st != 200 {
			t.Fatalf("approve: %d %s", st, raw)
		}
		if r := f.logCall(t, "POST", "/v1/tools/execute", create, "approved"); r.status != 200 {
			t.Fatalf("approved call: %d %s", r.status, r.body)
		}

		// A session's own rule: the record names the session level.
		sid := f.newSession(t, `{"userId":"u1","connectors":["delta"],"pinned":["delta_get_task"],
			"policy":{"rules":[{"decision":"ask","match":{"tool":"delta_get_task"}}]}}`)
		if r := f.logCall(t, "POST", "/v1/sessions/"+sid+"/tools/delta_get_task", `{"arguments":{"id":"9"}}`, "session"); r.status != 200 {
			t.Fatalf("session call: %d %s", r.status, r.body)
		}

		logs := f.logsByRequest(t, f.key)
		for _, id := range []string{"norules", "unmatched"} {
			if rec := logs[id]; rec == nil || rec["outcome"] != "ok" {
				t.Fatalf("%s: record %v", id, rec)
			} else if _, has := rec["policy"]; has {
				t.Errorf("%s: a call no rule decided has a policy: %v", id, rec["policy"])
			}
		}
		want := map[string]struct {
			outcome string
			policy  map[string]any
		}{
			"denied":  {"POLICY_DENIED", map[string]any{"decision": "deny", "ruleId": deny, "level": "project"}},
			"held":    {"APPROVAL_REQUIRED", map[string]any{"decision": "ask", "ruleId": ask, "level": "project"}},
			"session": {"approval_required", map[string]any{"decision": "ask", "ruleId": "session:0", "level": "session"}},
			"approved": {"ok", map[string]any{"decision": "ask", "ruleId": ask, "level": "project", "approvalId": approval,
				"approver": "api: ops@example.com", "approvalLatencyMs": float64(90000)}},
		}
		for id, w := range want {
			rec := logs[id]
			if rec == nil || rec["outcome"] != w.outcome {
				t.Fatalf("%s: record %v, want outcome %s", id, rec, w.outcome)
			}
			p, _ := rec["policy"].(map[string]any)
			if len(p) != len(w.policy) {
				t.Errorf("%s: policy %v, want %v", id, p, w.policy)
				continue
			}
			for k, v := range w.policy {
				if p[k] != v {
					t.Errorf("%s: policy.%s = %v, want %v", id, k, p[k], v)
				}
			}
		}
		// One record, by id, shows the decision as the list does.
		st, m, raw := f.json("GET", "/v1/logs/"+logs["approved"]["id"].(string), "")
		if p, _ := dataOf(m)["policy"].(map[string]any); st != 200 || p["approver"] != "api: ops@example.com" || p["approvalId"] != approval {
			t.Fatalf("GET /v1/logs/:id: %d %s", st, raw)
		}
		st, m, raw = f.json("GET", "/v1/logs/"+logs["norules"]["id"].(string), "")
		if _, has := dataOf(m)["policy"]; st != 200 || has {
			t.Fatalf("GET /v1/logs/:id without a decision: %d %s", st, raw)
		}
	})
}
