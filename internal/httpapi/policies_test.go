package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-gw/switchboard/internal/session"
)

// connectDelta stores a delta account for user.
func (f *fixture) connectDelta(t *testing.T, user string) {
	t.Helper()
	cred := fmt.Sprintf(`{"type":"api_key","apiKey":"delta-secret-key","host":%q}`, f.providerHost)
	if st, _, raw := f.json("POST", "/v1/connections", `{"connectorId":"delta","userId":"`+user+`","credential":`+cred+`}`); st != 200 {
		t.Fatalf("connect: %d %s", st, raw)
	}
}

// rule creates a policy rule and returns its id.
func (f *fixture) rule(t *testing.T, body string) string {
	t.Helper()
	st, m, raw := f.json("POST", "/v1/policies", body)
	if st != http.StatusCreated {
		t.Fatalf("create rule %s: %d %s", body, st, raw)
	}
	return dataOf(m)["id"].(string)
}

// newSession creates a session and returns its id.
func (f *fixture) newSession(t *testing.T, body string) string {
	t.Helper()
	st, m, raw := f.json("POST", "/v1/sessions", body)
	if st != http.StatusCreated {
		t.Fatalf("session %s: %d %s", body, st, raw)
	}
	return dataOf(m)["id"].(string)
}

// sessionCall runs a session tool and returns its outcome.
func (f *fixture) sessionCall(t *testing.T, sid, tool, args string) map[string]any {
	t.Helper()
	st, m, raw := f.json("POST", "/v1/sessions/"+sid+"/tools/"+tool, `{"arguments":`+args+`}`)
	if st != 200 {
		t.Fatalf("call %s: %d %s", tool, st, raw)
	}
	return m
}

// refusal returns the refusal of an outcome ("" code when it succeeded).
func refusal(m map[string]any) (string, map[string]any) {
	if m["ok"] == true {
		return "", nil
	}
	e, _ := m["error"].(map[string]any)
	code, _ := e["code"].(string)
	return code, e
}

func approvalID(t *testing.T, m map[string]any) string {
	t.Helper()
	code, e := refusal(m)
	a, _ := e["approval"].(map[string]any)
	if code != "approval_required" || a == nil || a["id"] == "" || !strings.HasPrefix(a["url"].(string), "http://sb.test/v1/approvals/") {
		t.Fatalf("want approval_required with an approval, got %v", m)
	}
	return a["id"].(string)
}

// TestPolicies_SessionAsk_ApprovedCallRunsOnceWithItsInput: an ask rule
// holds a session call; approved through the API, the same call runs once;
// a replay needs a new approval, and so does a changed input.
func TestPolicies_SessionAsk_ApprovedCallRunsOnceWithItsInput(t *testing.T) {
	t.Parallel()
	onBothDatabases(t, func(t *testing.T, f *fixture) {
		f.connectDelta(t, "u1")
		f.rule(t, `{"decision":"ask","match":{"tool":"delta_create_task"}}`)
		sid := f.newSession(t, `{"userId":"u1","connectors":["delta"],"pinned":["delta_create_task","delta_get_task"]}`)

		if code, _ := refusal(f.sessionCall(t, sid, "delta_get_task", `{"id":"1"}`)); code != "" {
			t.Fatalf("a read no rule holds was refused: %s", code)
		}
		first := approvalID(t, f.sessionCall(t, sid, "delta_create_task", `{"title":"ship it"}`))
		// Asking again before a decision answers the same approval.
		if again := approvalID(t, f.sessionCall(t, sid, "delta_create_task", `{"title":"ship it"}`)); again != first {
			t.Fatalf("a second approval %s for the same pending call %s", again, first)
		}
		st, m, raw := f.json("GET", "/v1/approvals/"+first, "")
		if st != 200 || dataOf(m)["status"] != "pending" || dataOf(m)["toolId"] != "delta_create_task" || dataOf(m)["sessionId"] != sid ||
			dataOf(m)["input"].(map[string]any)["title"] != "ship it" {
			t.Fatalf("approval: %d %s", st, raw)
		}
		if st, m, raw := f.json("POST", "/v1/approvals/"+first+"/approve", `{"approver":"ops@example.com"}`); st != 200 ||
			dataOf(m)["status"] != "approved" || dataOf(m)["decidedBy"] != "api: ops@example.com" {
			t.Fatalf("approve: %d %s", st, raw)
		}
		// A changed input is another call: it needs an approval of its own,
		// and leaves the approved one unspent.
		other := approvalID(t, f.sessionCall(t, sid, "delta_create_task", `{"title":"ship it now"}`))
		if other == first {
			t.Fatal("a changed input used the approval of another input")
		}
		out := f.sessionCall(t, sid, "delta_create_task", `{"title":"ship it"}`)
		if out["ok"] != true || !strings.Contains(fmt.Sprint(out["result"]), "ship it") {
			t.Fatalf("the approved call did not run: %v", out)
		}
		if _, m, _ := f.json("GET", "/v1/approvals/"+first, ""); dataOf(m)["status"] != "used" {
			t.Fatalf("after the run: %v", m)
		}
		// A replay of the approved call is held again.
		if replay := approvalID(t, f.sessionCall(t, sid, "delta_create_task", `{"title":"ship it"}`)); replay == first {
			t.Fatal("a spent approval ran a second call")
		}
		if st, _, _ := f.json("POST", "/v1/approvals/"+first+"/approve", ""); st != http.StatusConflict {
			t.Fatalf("a spent approval was approved again: %d", st)
		}
		// Deny answers approval_denied, for the model not to retry.
		if st, _, raw := f.json("POST", "/v1/approvals/"+other+"/deny", ""); st != 200 {
			t.Fatalf("deny: %d %s", st, raw)
		}
		if code, _ := refusal(f.sessionCall(t, sid, "delta_create_task", `{"title":"ship it now"}`)); code != "approval_denied" {
			t.Fatalf("after deny: %s", code)
		}
		st, m, raw = f.json("GET", "/v1/approvals?status=denied", "")
		if list, _ := m["data"].([]any); st != 200 || len(list) != 1 || list[0].(map[string]any)["id"] != other {
			t.Fatalf("denied list: %s", raw)
		}
	})
}

// TestPolicies_DirectExecute_202ThenRuns: direct execute answers 202 with
// the approval, and runs the same call once it is approved.
func TestPolicies_DirectExecute_202ThenRuns(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.connectDelta(t, "u1")
	f.rule(t, `{"decision":"ask","match":{"connector":"delta","effect":"write"}}`)
	body := `{"toolId":"delta_create_task","userId":"u1","input":{"title":"t"}}`
	st, m, raw := f.json("POST", "/v1/tools/execute", body)
	a := dataOf(m)
	if st != http.StatusAccepted || a["status"] != "pending" || a["id"] == nil || a["url"] != "http://sb.test/v1/approvals/"+a["id"].(string) ||
		a["apiKeyId"] != f.keyID {
		t.Fatalf("held call: %d %s", st, raw)
	}
	f.json("POST", "/v1/approvals/"+a["id"].(string)+"/approve", "")
	if st, _, raw := f.json("POST", "/v1/tools/execute", body); st != 200 {
		t.Fatalf("approved call: %d %s", st, raw)
	}
	if st, _, _ := f.json("POST", "/v1/tools/execute", body); st != http.StatusAccepted {
		t.Fatalf("replay: %d, want a new approval", st)
	}
	// A raw proxy write to the connector is held as well.
	st, m, raw = f.json("POST", "/v1/tools/proxy", `{"connectorId":"delta","userId":"u1","endpoint":"/tasks","method":"POST","body":{"title":"x"}}`)
	if st != http.StatusAccepted || dataOf(m)["proxy"] != true {
		t.Fatalf("proxy write: %d %s", st, raw)
	}
}

// TestPolicies_Expiry: an approval not decided in time expires; it can no
// longer be approved, and the call asks again.
func TestPolicies_Expiry(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.connectDelta(t, "u1")
	f.rule(t, `{"decision":"ask","match":{"tool":"delta_create_task"}}`)
	body := `{"toolId":"delta_create_task","userId":"u1","input":{"title":"t"}}`
	_, m, _ := f.json("POST", "/v1/tools/execute", body)
	id := dataOf(m)["id"].(string)
	f.clock.Advance(15*time.Minute + time.Second)
	if _, m, _ := f.json("GET", "/v1/approvals/"+id, ""); dataOf(m)["status"] != "expired" {
		t.Fatalf("status after 15 minutes: %v", m)
	}
	if st, m, _ := f.json("POST", "/v1/approvals/"+id+"/approve", ""); st != http.StatusConflict || errCode(m) != "CONFLICT" {
		t.Fatalf("approve an expired approval: %d %v", st, m)
	}
	st, m, _ := f.json("POST", "/v1/tools/execute", body)
	if st != http.StatusAccepted || dataOf(m)["id"] == id {
		t.Fatalf("after expiry: %d %v", st, m)
	}
	// An approved call not run in time expires too.
	next := dataOf(m)["id"].(string)
	f.json("POST", "/v1/approvals/"+next+"/approve", "")
	f.clock.Advance(16 * time.Minute)
	if st, m, _ := f.json("POST", "/v1/tools/execute", body); st != http.StatusAccepted || dataOf(m)["id"] == next {
		t.Fatalf("an approval past its expiry ran the call: %d %v", st, m)
	}
}

// TestPolicies_DenyAndNarrowing: deny rules, deny by default, and session
// and endpoint rules that can only narrow; every change applies to the
// next call.
func TestPolicies_DenyAndNarrowing(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.connectDelta(t, "u1")
	get := `{"toolId":"delta_get_task","userId":"u1","input":{"id":"9"}}`
	if st, _, raw := f.json("POST", "/v1/tools/execute", get); st != 200 {
		t.Fatalf("no rules: %d %s", st, raw)
	}
	if st, _, raw := f.json("PUT", "/v1/policies/default", `{"decision":"deny"}`); st != 200 {
		t.Fatalf("default: %d %s", st, raw)
	}
	if st, m, _ := f.json("POST", "/v1/tools/execute", get); st != http.StatusForbidden || errCode(m) != "POLICY_DENIED" {
		t.Fatalf("deny by default: %d %v", st, m)
	}
	allow := f.rule(t, `{"decision":"allow","match":{"connector":"delta","effect":"read"}}`)
	if st, _, raw := f.json("POST", "/v1/tools/execute", get); st != 200 {
		t.Fatalf("allowed read: %d %s", st, raw)
	}
	if st, m, _ := f.json("POST", "/v1/tools/execute", `{"toolId":"delta_create_task","userId":"u1","input":{"title":"x"}}`); st != 403 || errCode(m) != "POLICY_DENIED" {
		t.Fatalf("write under deny by default: %d %v", st, m)
	}
	// A rule on the input: the read of task "secret" is denied.
	f.rule(t, `{"decision":"deny","priority":1,"match":{"tool":"delta_get_task","arguments":[{"path":"id","in":["secret","vault"]}]}}`)
	if st, _, _ := f.json("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","input":{"id":"vault"}}`); st != 403 {
		t.Fatalf("argument rule: %d", st)
	}

	// A session's rules narrow: the project allows reads, the session asks.
	sid := f.newSession(t, `{"userId":"u1","connectors":["delta"],"pinned":["delta_get_task"],
		"policy":{"rules":[{"decision":"ask","match":{"tool":"delta_get_task"}},{"decision":"allow"}]}}`)
	approvalID(t, f.sessionCall(t, sid, "delta_get_task", `{"id":"9"}`))
	// ... and cannot widen: its allow does not lift the project's deny.
	wide := f.newSession(t, `{"userId":"u1","connectors":["delta"],"pinned":["delta_get_task"],"policy":{"rules":[{"decision":"allow"}]}}`)
	if code, _ := refusal(f.sessionCall(t, wide, "delta_get_task", `{"id":"vault"}`)); code != "policy_denied" {
		t.Fatalf("a session allow widened a project deny: %s", code)
	}
	if st, m, _ := f.json("POST", "/v1/sessions", `{"userId":"u1","policy":{"rules":[{"decision":"deny","match":{"arguments":[{"path":"id","regexp":"("}]}}]}}`); st != 400 ||
		!strings.Contains(fmt.Sprint(m), "policy rules[0].match.arguments[0].regexp") && !strings.Contains(fmt.Sprint(m), "regexp") {
		t.Fatalf("a session rule with a bad regexp: %d %v", st, m)
	}

	// An endpoint's rules apply to calls through it only.
	f.endpoint(t, session.EndpointRequest{Slug: "delta-ro", Connectors: []string{"delta"}, Mode: session.ModeTools})
	f.rule(t, `{"endpoint":"delta-ro","decision":"deny","match":{"tool":"delta_get_task"}}`)
	call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delta_get_task","arguments":{"id":"9"}}}`
	r := f.rpc(f.h, "/v1/mcp/delta-ro/u1", call)
	if !strings.Contains(string(r.body), "policy_denied") {
		t.Fatalf("endpoint rule: %s", r.body)
	}
	if st, _, _ := f.json("POST", "/v1/tools/execute", get); st != 200 {
		t.Fatalf("the endpoint's rule applied outside it: %d", st)
	}
	if st, m, _ := f.json("POST", "/v1/policies", `{"endpoint":"no-such","decision":"deny"}`); st != 400 || errCode(m) != "VALIDATION_ERROR" {
		t.Fatalf("rule on an unknown endpoint: %d %v", st, m)
	}
	// Deleting the allow rule applies at once.
	f.json("DELETE", "/v1/policies/"+allow, "")
	if st, _, _ := f.json("POST", "/v1/tools/execute", get); st != 403 {
		t.Fatalf("after deleting the allow rule: %d", st)
	}
}

// TestPolicies_BadRulesRefused: POST /v1/policies validates strictly and
// names every problem.
func TestPolicies_BadRulesRefused(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for body, path := range map[string]string{
		`{"decision":"deny","match":{"tool":"nope_tool"}}`:                            "match.tool",
		`{"decision":"deny","match":{"connector":"nope"}}`:                            "match.connector",
		`{"decision":"deny","match":{"arguments":[{"path":"a","regexp":"a(b"}]}}`:     "match.arguments[0].regexp",
		`{"decision":"deny","extra":1}`:                                               "",
		`{"decision":"sometimes"}`:                                                    "decision",
		`{"decision":"ask","match":{"arguments":[{"path":"a","greaterThan":"ten"}]}}`: "",
		`not json`: "",
	} {
		st, m, raw := f.json("POST", "/v1/policies", body)
		if st != 400 || errCode(m) != "VALIDATION_ERROR" {
			t.Errorf("%s: %d %s", body, st, raw)
			continue
		}
		if path != "" && !strings.Contains(raw, fmt.Sprintf("%q", path)) && !strings.Contains(raw, path) {
			t.Errorf("%s: issues do not name %s: %s", body, path, raw)
		}
	}
	if _, m, _ := f.json("GET", "/v1/policies", ""); len(m["data"].([]any)) != 0 {
		t.Fatalf("a refused rule was stored: %v", m)
	}
}

// TestApprovalLink_SingleUseAndCSRFSafe: the link's page decides only
// through its own form, once.
func TestApprovalLink_SingleUseAndCSRFSafe(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.connectDelta(t, "u1")
	st, m, raw := f.json("POST", "/v1/webhooks", `{"url":"https://hooks.example.com/approvals","events":["approval.requested"]}`)
	if st != 201 {
		t.Fatalf("webhook: %d %s", st, raw)
	}
	hook := dataOf(m)["id"].(string)
	f.rule(t, `{"decision":"ask","match":{"tool":"delta_create_task"}}`)
	body := `{"toolId":"delta_create_task","userId":"u1","input":{"title":"via link"}}`
	_, m, _ = f.json("POST", "/v1/tools/execute", body)
	id := dataOf(m)["id"].(string)

	deliveries, err := f.store.ListDeliveries(context.Background(), f.project.ID, hook, 10)
	if err != nil || len(deliveries) != 1 {
		t.Fatalf("deliveries: %v %v", deliveries, err)
	}
	var ev struct {
		Type string
		Data struct {
			Approval    map[string]any
			DecisionURL string `json:"decisionUrl"`
		}
	}
	if err := json.Unmarshal(deliveries[0].Payload, &ev); err != nil || ev.Type != "approval.requested" || ev.Data.Approval["id"] != id ||
		!strings.HasPrefix(ev.Data.DecisionURL, "http://web.sb.test/approvals/") {
		t.Fatalf("event: %s", deliveries[0].Payload)
	}
	u, _ := url.Parse(ev.Data.DecisionURL)
	page := f.do(f.h, "GET", u.Path, "", "")
	if page.status != 200 || !strings.Contains(string(page.body), "via link") || page.header.Get("Content-Security-Policy") == "" {
		t.Fatalf("page: %d %s", page.status, page.body)
	}
	// Opening the page decided nothing.
	if _, m, _ := f.json("GET", "/v1/approvals/"+id, ""); dataOf(m)["status"] != "pending" {
		t.Fatalf("GET changed the approval: %v", m)
	}
	csrf := string(csrfField.FindSubmatch(page.body)[1])
	var cookie string
	for _, c := range (&http.Response{Header: page.header}).Cookies() {
		if c.Name == approvalCSRFCookie {
			cookie = c.Name + "=" + c.Value
			if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode {
				t.Fatalf("cookie: %+v", c)
			}
		}
	}
	form := "decision=approve&csrf=" + url.QueryEscape(csrf)
	ct := "application/x-www-form-urlencoded"
	for name, hdr := range map[string][]string{
		"no cookie":        {"Content-Type", ct},
		"another site":     {"Content-Type", ct, "Cookie", cookie, "Origin", "https://evil.example"},
		"cross-site fetch": {"Content-Type", ct, "Cookie", cookie, "Sec-Fetch-Site", "cross-site"},
		"wrong cookie":     {"Content-Type", ct, "Cookie", approvalCSRFCookie + "=other"},
	} {
		if r := f.do(f.h, "POST", u.Path, "", form, hdr...); r.status != http.StatusForbidden {
			t.Fatalf("%s: %d %s", name, r.status, r.body)
		}
	}
	if _, m, _ := f.json("GET", "/v1/approvals/"+id, ""); dataOf(m)["status"] != "pending" {
		t.Fatalf("a refused form decided: %v", m)
	}
	if r := f.do(f.h, "POST", u.Path, "", form, "Content-Type", ct, "Cookie", cookie, "Origin", "http://web.sb.test"); r.status != 200 ||
		!strings.Contains(string(r.body), "Approved") {
		t.Fatalf("approve: %d %s", r.status, r.body)
	}
	if r := f.do(f.h, "POST", u.Path, "", form, "Content-Type", ct, "Cookie", cookie); r.status != http.StatusNotFound {
		t.Fatalf("a used link decided again: %d", r.status)
	}
	if r := f.do(f.h, "GET", u.Path, "", ""); r.status != http.StatusNotFound {
		t.Fatalf("a used link still opens: %d", r.status)
	}
	_, m, _ = f.json("GET", "/v1/approvals/"+id, "")
	if dataOf(m)["status"] != "approved" || dataOf(m)["decidedBy"] != "approval link" {
		t.Fatalf("after the link: %v", m)
	}
	if st, _, raw := f.json("POST", "/v1/tools/execute", body); st != 200 {
		t.Fatalf("the approved call: %d %s", st, raw)
	}
}

// elicitClient connects a go-sdk client to a session's MCP server; with a
// handler, it declares the elicitation capability.
func elicitClient(t *testing.T, f *fixture, sid string, handler func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error)) *mcp.ClientSession {
	t.Helper()
	srv := httptest.NewServer(f.h)
	t.Cleanup(srv.Close)
	var opts *mcp.ClientOptions
	if handler != nil {
		opts = &mcp.ClientOptions{ElicitationHandler: handler}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "approver-client", Version: "1"}, opts).Connect(context.Background(),
		&mcp.StreamableClientTransport{Endpoint: srv.URL + "/v1/sessions/" + sid + "/mcp",
			HTTPClient: &http.Client{Transport: authTransport{key: f.key, next: http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func callText(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	if len(res.Content) == 0 {
		t.Fatalf("call %s: no content: %+v", name, res)
	}
	return res.Content[0].(*mcp.TextContent).Text, res.IsError
}

// TestPolicies_MCPElicitation: an MCP client that can answer an
// elicitation approves a held call in place, and it runs in the same
// tools/call; declined, the call is denied; a client without the
// capability, or a rule that wants an approver, gets the refusal.
func TestPolicies_MCPElicitation(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.connectDelta(t, "u1")
	f.rule(t, `{"decision":"ask","match":{"tool":"delta_create_task","arguments":[{"path":"title","regexp":"^client"}]}}`)
	f.rule(t, `{"decision":"ask","clientApproval":false,"match":{"tool":"delta_create_task"}}`)
	sid := f.newSession(t, `{"userId":"u1","connectors":["delta"],"pinned":["delta_create_task"]}`)

	var asked []string
	approve := elicitClient(t, f, sid, func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		asked = append(asked, req.Params.Message)
		return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"approve": true}}, nil
	})
	text, isErr := callText(t, approve, "delta_create_task", map[string]any{"title": "client ok"})
	if isErr || !strings.Contains(text, `"ok":true`) || len(asked) != 1 || !strings.Contains(asked[0], "delta_create_task") ||
		!strings.Contains(asked[0], "client ok") {
		t.Fatalf("approved in place: %v %s (asked %q)", isErr, text, asked)
	}
	_, m, _ := f.json("GET", "/v1/approvals?status=used", "")
	list := m["data"].([]any)
	if len(list) != 1 || !strings.HasPrefix(list[0].(map[string]any)["decidedBy"].(string), "mcp client approver-client") {
		t.Fatalf("the in-place approval: %v", m)
	}

	decline := elicitClient(t, f, sid, func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: "decline"}, nil
	})
	if text, isErr := callText(t, decline, "delta_create_task", map[string]any{"title": "client no"}); !isErr || !strings.Contains(text, "approval_denied") {
		t.Fatalf("declined in place: %s", text)
	}

	plain := elicitClient(t, f, sid, nil)
	text, isErr = callText(t, plain, "delta_create_task", map[string]any{"title": "client plain"})
	if !isErr || !strings.Contains(text, "approval_required") || !strings.Contains(text, "/v1/approvals/") {
		t.Fatalf("a client without elicitation: %s", text)
	}
	asked = nil
	text, isErr = callText(t, approve, "delta_create_task", map[string]any{"title": "needs an approver"})
	if !isErr || !strings.Contains(text, "approval_required") || len(asked) != 0 {
		t.Fatalf("a rule without client approval asked the client: %s %q", text, asked)
	}
}
