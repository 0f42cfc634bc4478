package httpapi

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// sensitive are values a provider might answer with, one or more of each
// detector's shapes, made up for this test (the card is a network's public
// test number, the IBAN the registry's example).
var sensitive = []string{
	"jane.doe@example.com",
	"+44 20 7946 0958",
	"4111 1111 1111 1111",
	"GB82 WEST 1234 5698 7654 32",
	"sk_live_4eC39HqLyjWDarjtT1zdp7dc",
	"ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R",
	"AKIAIOSFODNN7EXAMPLE",
	"xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
	"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c",
	"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn\n-----END RSA PRIVATE KEY-----",
	"EMP-123456",
}

// needles are the parts of the sensitive values that survive any JSON
// escaping (a value's longest line), which no answer may contain.
func needles() []string {
	var out []string
	for _, v := range sensitive {
		best := ""
		for _, line := range strings.Split(v, "\n") {
			if len(line) > len(best) && !strings.HasPrefix(line, "-----") {
				best = line
			}
		}
		out = append(out, best)
	}
	return out
}

func leaks(body []byte) []string {
	var found []string
	for _, n := range needles() {
		if strings.Contains(string(body), n) {
			found = append(found, n)
		}
	}
	return found
}

// TestRedaction_NothingSensitiveReachesTheModel: with the project's rules,
// a provider answer full of personal data and secrets reaches the model
// with none of it, on every path to a model (session REST, session MCP,
// endpoint MCP); a direct REST call gets the answer as it is unless the
// rules say restExecute; the execution log keeps none of it either; and
// removing the rules takes effect on the next call.
func TestRedaction_NothingSensitiveReachesTheModel(t *testing.T) {
	t.Parallel()
	f, sessionMCP := mcpCallFixture(t)
	ctx := context.Background()
	if err := f.store.SetLogSettings(ctx, f.project.ID, store.LogSettings{Payloads: true}); err != nil {
		t.Fatal(err)
	}
	f.srv.execlog.LoadSettings(ctx)
	sess := strings.TrimSuffix(sessionMCP, "/mcp")
	title, _ := json.Marshal("contact " + strings.Join(sensitive, " | "))
	input := `{"title":` + string(title) + `}`

	sessionREST := func(hdr ...string) response {
		return f.do(f.h, "POST", sess+"/tools/switchboard_execute", "Bearer "+f.key,
			`{"arguments":{"action":"delta_create_task","input":`+input+`}}`, append([]string{"Content-Type", "application/json"}, hdr...)...)
	}
	restExecute := func() response {
		return f.do(f.h, "POST", "/v1/tools/execute", "Bearer "+f.key,
			`{"toolId":"delta_create_task","userId":"u1","input":`+input+`}`, "Content-Type", "application/json")
	}
	// Without rules the values come back (the fake provider echoes them).
	if r := sessionREST("X-Request-Id", "before-rules"); len(leaks(r.body)) != len(sensitive) {
		t.Fatalf("the test's provider does not echo every value: %s", r.body)
	}

	rules := `{"detectors":["email","phone","card","iban","secret"],"patterns":[{"name":"employee_id","pattern":"EMP-\\d{6}"}]}`
	code, m, raw := f.json("PUT", "/v1/redaction", rules)
	if code != 200 || dataOf(m)["enabled"] != true || dataOf(m)["restExecute"] != false {
		t.Fatalf("PUT /v1/redaction: %d %s", code, raw)
	}
	answers := map[string]response{
		"session REST":  sessionREST(),
		"session MCP":   f.rpc(f.h, sessionMCP, mcpCall("switchboard_execute", `{"action":"delta_create_task","input":`+input+`}`)),
		"endpoint MCP":  f.rpc(f.h, "/v1/mcp/delta-tools/u1", mcpCall("delta_create_task", input)),
		"endpoint meta": f.rpc(f.h, "/v1/mcp/delta-meta/u1", mcpCall("switchboard_execute", `{"action":"delta_create_task","input":`+input+`}`)),
	}
	for name, r := range answers {
		if r.status != 200 || !strings.Contains(string(r.body), "[redacted:email]") || !strings.Contains(string(r.body), "[redacted:employee_id]") {
			t.Errorf("%s: not redacted: %d %s", name, r.status, r.body)
		}
		if l := leaks(r.body); len(l) > 0 {
			t.Errorf("%s: reached the model: %v", name, l)
		}
	}
	// A direct REST call is the application's own: answered as it is.
	if r := restExecute(); r.status != 200 || len(leaks(r.body)) != len(sensitive) {
		t.Fatalf("direct REST call changed without restExecute: %d %s", r.status, r.body)
	}
	// The log keeps the outputs redacted, the direct call's too (inputs
	// are the caller's own and are the execution log's to redact).
	f.srv.execlog.Flush(ctx)
	recs, err := f.store.ListLogRecords(ctx, store.LogFilter{ProjectID: f.project.ID, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	outputs := 0
	for _, rec := range recs {
		if rec.RequestID == "before-rules" || rec.Output == nil {
			continue
		}
		outputs++
		if l := leaks([]byte(*rec.Output)); len(l) > 0 {
			t.Errorf("log record of %s keeps %v: %s", rec.Tool, l, *rec.Output)
		}
	}
	if outputs != len(answers)+1 {
		t.Fatalf("log records with outputs: %d, want %d", outputs, len(answers)+1)
	}

	// With restExecute the direct call is redacted too.
	rules = `{"detectors":["email","phone","card","iban","secret"],"patterns":[{"name":"employee_id","pattern":"EMP-\\d{6}"}],"restExecute":true}`
	if code, _, raw := f.json("PUT", "/v1/redaction", rules); code != 200 {
		t.Fatalf("PUT: %d %s", code, raw)
	}
	if r := restExecute(); r.status != 200 || len(leaks(r.body)) > 0 {
		t.Fatalf("restExecute: %d %v %s", r.status, leaks(r.body), r.body)
	}

	if code, m, raw := f.json("DELETE", "/v1/redaction", ""); code != 200 || dataOf(m)["enabled"] != false {
		t.Fatalf("DELETE: %d %s", code, raw)
	}
	if code, m, _ := f.json("GET", "/v1/redaction", ""); code != 200 || dataOf(m)["enabled"] != false {
		t.Fatalf("GET after DELETE: %v", m)
	}
	if r := sessionREST(); len(leaks(r.body)) != len(sensitive) {
		t.Fatalf("removed rules still apply: %s", r.body)
	}
}

func TestRedaction_BadRulesRefusedWithIssues(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, body := range []string{
		`{}`,
		`{"detectors":["ssn"]}`,
		`{"patterns":[{"name":"x","pattern":"("}]}`,
		`{"patterns":[{"name":"x","pattern":".*"}]}`,
	} {
		code, m, raw := f.json("PUT", "/v1/redaction", body)
		if code != 400 || errCode(m) != "VALIDATION_ERROR" || !strings.Contains(raw, `"issues"`) {
			t.Errorf("%s: %d %s", body, code, raw)
		}
	}
	if code, m, _ := f.json("GET", "/v1/redaction", ""); code != 200 || dataOf(m)["enabled"] != false {
		t.Fatalf("a refused PUT stored rules: %v", m)
	}
}

// TestRedaction_SessionAsksForDetectors: a session's policy.redact turns
// detectors on for its own results, on a project without rules; another
// session of the same user is not affected, and unknown detectors are
// refused.
func TestRedaction_SessionAsksForDetectors(t *testing.T) {
	t.Parallel()
	f := setup(t)
	plain := f.sessionFor(t, "u1")
	code, m, raw := f.json("POST", "/v1/sessions", `{"userId":"u1","connectors":["delta"],"policy":{"redact":["email","card"]}}`)
	if code != 201 {
		t.Fatalf("session with redact: %d %s", code, raw)
	}
	if pol := dataOf(m)["policy"].(map[string]any); len(pol["redact"].([]any)) != 2 {
		t.Fatalf("policy not shown: %s", raw)
	}
	asking := "/v1/sessions/" + dataOf(m)["id"].(string)
	call := func(sess string) string {
		r := f.do(f.h, "POST", sess+"/tools/switchboard_execute", "Bearer "+f.key,
			`{"arguments":{"action":"delta_create_task","input":{"title":"jane@example.com paid with 4111111111111111 from +44 20 7946 0958"}}}`,
			"Content-Type", "application/json")
		return string(r.body)
	}
	got := call(asking)
	if strings.Contains(got, "jane@example.com") || strings.Contains(got, "4111111111111111") || !strings.Contains(got, "+44 20 7946 0958") {
		t.Fatalf("session detectors: %s", got)
	}
	if got := call(plain); !strings.Contains(got, "jane@example.com") {
		t.Fatalf("another session was redacted: %s", got)
	}
	for _, body := range []string{
		`{"userId":"u1","policy":{"redact":["ssn"]}}`,
		`{"userId":"u1","policy":{"redact":["email","email"]}}`,
		`{"userId":"u1","policy":{"redact":"email"}}`,
	} {
		if code, m, raw := f.json("POST", "/v1/sessions", body); code != 400 || errCode(m) != "VALIDATION_ERROR" {
			t.Errorf("%s: %d %s", body, code, raw)
		}
	}
}
