package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestSessionCreate_EveryBodyRule(t *testing.T) {
	t.Parallel()
	f := setup(t)
	many := func(n int, v string) string {
		parts := make([]string, n)
		for i := range parts {
			parts[i] = fmt.Sprintf("%q", v)
		}
		return "[" + strings.Join(parts, ",") + "]"
	}
	cases := []struct{ body, path string }{
		{`{}`, "userId"},
		{`not json`, "userId"},
		{`{"userId":"` + strings.Repeat("u", 257) + `"}`, "userId"},
		{`{"userId":5}`, "userId"},
		{`{"userId":"u","connectors":[]}`, "connectors"},
		{`{"userId":"u","connectors":` + many(201, "alpha") + `}`, "connectors"},
		{`{"userId":"u","connectors":["nope"]}`, "connectors[0]"},
		{`{"userId":"u","actions":[]}`, "actions"},
		{`{"userId":"u","actions":` + many(501, "alpha_*") + `}`, "actions"},
		{`{"userId":"u","actions":["al*pha"]}`, "actions[0]"},
		{`{"userId":"u","actions":["nope_tool"]}`, "actions[0]"},
		{`{"userId":"u","pinned":` + many(21, "alpha_send_message") + `}`, "pinned"},
		{`{"userId":"u","connectors":["beta"],"pinned":["alpha_send_message"]}`, "pinned[0]"},
		{`{"userId":"u","accounts":{"nope":"x"}}`, "accounts.nope"},
		{`{"userId":"u","accounts":{"delta":"no-such-account"}}`, "accounts.delta"},
		{`{"userId":"u","policy":{"maxDataClass":"secret"}}`, "policy.maxDataClass"},
		{`{"userId":"u","policy":{"colour":"red"}}`, "policy.colour"},
		{`{"userId":"u","policy":{"readOnly":"yes"}}`, "policy.readOnly"},
		{`{"userId":"u","policy":"strict"}`, "policy"},
		{`{"userId":"u","ttlMinutes":4}`, "ttlMinutes"},
		{`{"userId":"u","ttlMinutes":43201}`, "ttlMinutes"},
		{`{"userId":"u","ttlMinutes":"long"}`, "ttlMinutes"},
	}
	for _, c := range cases {
		status, m, raw := f.json("POST", "/v1/sessions", c.body)
		if status != 400 || errCode(m) != "VALIDATION_ERROR" || !strings.Contains(raw, `"path":`+pathJSON(c.path)) {
			t.Errorf("%.80s: %d %s, want an issue at %s", c.body, status, raw, c.path)
		}
	}
}

// pathJSON renders a dotted path (a.b[0]) as the JSON array issues carry.
func pathJSON(p string) string {
	var parts []string
	for _, seg := range strings.Split(p, ".") {
		name, idx, hasIdx := strings.Cut(seg, "[")
		parts = append(parts, fmt.Sprintf("%q", name))
		if hasIdx {
			parts = append(parts, strings.TrimSuffix(idx, "]"))
		}
	}
	return "[" + strings.Join(parts, ",") + "]"
}

func TestSession_ViewToolsAndCalls(t *testing.T) {
	t.Parallel()
	f := setup(t)
	status, m, raw := f.json("POST", "/v1/sessions", `{"userId":"u1","connectors":["alpha","delta","gamma"],"pinned":["delta_get_task"],"policy":{"maxDataClass":"pii"}}`)
	if status != 201 {
		t.Fatalf("create: %d %s", status, raw)
	}
	s := dataOf(m)
	id := s["id"].(string)
	if s["actionCount"] != float64(4) || s["userId"] != "u1" || s["mcpUrl"] != "http://sb.test/v1/sessions/"+id+"/mcp" ||
		s["policy"].(map[string]any)["maxDataClass"] != "pii" || s["policy"].(map[string]any)["readOnly"] != false ||
		s["allowGlobalAccounts"] != false || len(s["pinned"].([]any)) != 1 || s["scopeHash"] == "" {
		t.Fatalf("session: %s", raw)
	}
	exp, _ := time.Parse(time.RFC3339, s["expiresAt"].(string))
	if !exp.Equal(f.clock.Now().Add(1440 * time.Minute)) {
		t.Fatalf("expiresAt %v", exp)
	}
	conns := s["connectors"].([]any)
	if len(conns) != 3 || conns[2].(map[string]any)["id"] != "gamma" || conns[2].(map[string]any)["actions"] != float64(0) ||
		conns[1].(map[string]any)["connection"].(map[string]any)["status"] != "missing" {
		t.Fatalf("connectors: %v", conns)
	}

	_, got, _ := f.json("GET", "/v1/sessions/"+id, "")
	if dataOf(got)["scopeHash"] != s["scopeHash"] {
		t.Fatal("GET answered another scope hash")
	}
	if st, m, _ := f.json("GET", "/v1/sessions/00000000-0000-7000-8000-000000000000", ""); st != 404 || errCode(m) != "SESSION_NOT_FOUND" {
		t.Fatalf("unknown session: %d", st)
	}

	// Tools: meta first, then pinned.
	_, tl, _ := f.json("GET", "/v1/sessions/"+id+"/tools", "")
	tools := dataOf(tl)["tools"].([]any)
	var names []string
	for _, tool := range tools {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	if strings.Join(names, ",") != "switchboard_search_actions,switchboard_execute,switchboard_connect_account,switchboard_list_accounts,delta_get_task" {
		t.Fatalf("tools: %v", names)
	}
	pinned := tools[4].(map[string]any)
	if pinned["kind"] != "action" || pinned["annotations"].(map[string]any)["readOnlyHint"] != true || tools[0].(map[string]any)["kind"] != "meta" {
		t.Fatalf("pinned: %v", pinned)
	}
	_, strict, raw := f.json("GET", "/v1/sessions/"+id+"/tools?format=openai-strict", "")
	for _, tool := range dataOf(strict)["tools"].([]any) {
		if tool.(map[string]any)["strict"] != true {
			t.Fatalf("strict format: %s", raw)
		}
	}
	if st, m, _ := f.json("GET", "/v1/sessions/"+id+"/tools?format=yaml", ""); st != 400 || errCode(m) != "VALIDATION_ERROR" {
		t.Fatalf("bad format: %d", st)
	}

	call := func(name, args string) map[string]any {
		t.Helper()
		st, m, raw := f.json("POST", "/v1/sessions/"+id+"/tools/"+name, `{"arguments":`+args+`}`)
		if st != 200 {
			t.Fatalf("%s %s: %d %s", name, args, st, raw)
		}
		return m
	}
	refusal := func(m map[string]any) map[string]any {
		t.Helper()
		if m["ok"] != false {
			t.Fatalf("want a refusal, got %v", m)
		}
		return m["error"].(map[string]any)
	}

	res := call("switchboard_search_actions", `{"queries":["look up a task"]}`)
	first := res["result"].(map[string]any)["results"].([]any)[0].(map[string]any)["actions"].([]any)[0].(map[string]any)
	if res["ok"] != true || first["id"] != "delta_get_task" || first["connection"] != "missing" || first["inputSchema"] == nil {
		t.Fatalf("search: %v", res)
	}
	r := refusal(call("switchboard_execute", `{"action":"delta_get_task","input":{"id":"1"}}`))
	if r["code"] != "connection_required" || r["connector"] != "delta" || !strings.HasPrefix(r["connectUrl"].(string), "http://web.sb.test/connect/") {
		t.Fatalf("connection_required: %v", r)
	}
	link := call("switchboard_connect_account", `{"connector":"delta"}`)
	if link["ok"] != true || !strings.HasPrefix(link["result"].(map[string]any)["url"].(string), "http://web.sb.test/connect/") {
		t.Fatalf("connect: %v", link)
	}
	if st, _, raw := f.json("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","userId":"u1","credential":{"type":"api_key","apiKey":"delta-secret-key","host":%q}}`, f.providerHost)); st != 200 {
		t.Fatalf("connect account: %s", raw)
	}
	if res := call("switchboard_execute", `{"action":"delta_get_task","input":{"id":"9"}}`); res["ok"] != true || res["result"].(map[string]any)["path"] != "/v1/tasks/9" {
		t.Fatalf("execute: %v", res)
	}
	if res := call("delta_get_task", `{"id":"5"}`); res["ok"] != true {
		t.Fatalf("pinned call: %v", res)
	}
	if r := refusal(call("switchboard_execute", `{"action":"gamma_get_record","input":{"id":"1"}}`)); r["code"] != "data_class_not_allowed" {
		t.Fatalf("data class: %v", r)
	}
	for _, action := range []string{"beta_create_invoice", "no_such_action"} {
		if r := refusal(call("switchboard_execute", `{"action":"`+action+`","input":{}}`)); r["code"] != "not_in_scope" {
			t.Fatalf("%s: %v", action, r)
		}
	}
	r = refusal(call("switchboard_execute", `{"action":"delta_get_task","input":{}}`))
	if r["code"] != "invalid_arguments" || len(r["issues"].([]any)) == 0 {
		t.Fatalf("invalid arguments: %v", r)
	}
	// A null for an optional field (strict mode) is treated as absent.
	if res := call("switchboard_execute", `{"action":"delta_get_task","input":{"id":"3"},"account":null}`); res["ok"] != true {
		t.Fatalf("null account: %v", res)
	}
	if r := refusal(call("switchboard_execute", `{"action":"delta_get_task","input":{"id":"missing"}}`)); r["code"] != "execution_error" || r["upstream"] == nil {
		t.Fatalf("execution error: %v", r)
	}
	if r := refusal(call("switchboard_execute", `{"action":"delta_get_task","input":{"id":"broken"}}`)); r["code"] != "upstream_error" {
		t.Fatalf("upstream error: %v", r)
	}
	for _, name := range []string{"nope", "switchboard_disconnect_account", "switchboard_proxy", "delta_create_task"} {
		if st, m, _ := f.json("POST", "/v1/sessions/"+id+"/tools/"+name, `{"arguments":{}}`); st != 404 || errCode(m) != "TOOL_NOT_FOUND" {
			t.Errorf("%s: %d %v", name, st, m)
		}
	}

	// The scope hash follows the project's tool switches.
	if err := f.store.SetToolsEnabled(context.Background(), f.project.ID, []string{"alpha_list_channels"}, false); err != nil {
		t.Fatal(err)
	}
	_, after, _ := f.json("GET", "/v1/sessions/"+id, "")
	if dataOf(after)["scopeHash"] == s["scopeHash"] || dataOf(after)["actionCount"] != float64(3) {
		t.Fatalf("scope did not change: %v", dataOf(after))
	}

	f.clock.Advance(1441 * time.Minute)
	if st, m, _ := f.json("GET", "/v1/sessions/"+id, ""); st != 404 || errCode(m) != "SESSION_NOT_FOUND" {
		t.Fatalf("expired session: %d", st)
	}
}

func TestSession_PolicyToolsAndAccounts(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for i := range 2 {
		if st, _, raw := f.json("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","userId":"u1","credential":{"type":"api_key","apiKey":"delta-secret-key","host":%q}}`, f.providerHost)); st != 200 {
			t.Fatalf("account %d: %s", i, raw)
		}
	}
	_, m, raw := f.json("POST", "/v1/sessions", `{"userId":"u1","connectors":["delta"],"accounts":{"delta":"default-2"},"policy":{"readOnly":true,"allowDisconnect":true,"allowProxy":true}}`)
	s := dataOf(m)
	id := s["id"].(string)
	d := s["connectors"].([]any)[0].(map[string]any)
	if d["connection"].(map[string]any)["status"] != "connected" || len(d["accounts"].([]any)) != 2 || s["actionCount"] != float64(1) {
		t.Fatalf("session: %s", raw)
	}
	_, tl, _ := f.json("GET", "/v1/sessions/"+id+"/tools", "")
	if n := len(dataOf(tl)["tools"].([]any)); n != 6 {
		t.Fatalf("%d tools, want the six meta tools", n)
	}
	call := func(name, args string) map[string]any {
		_, m, _ := f.json("POST", "/v1/sessions/"+id+"/tools/"+name, `{"arguments":`+args+`}`)
		return m
	}
	if r := call("switchboard_execute", `{"action":"delta_create_task","input":{"title":"x"}}`); r["error"].(map[string]any)["code"] != "read_only" {
		t.Fatalf("read only: %v", r)
	}
	if r := call("switchboard_proxy", `{"connector":"delta","endpoint":"/tasks/4"}`); r["ok"] != true {
		t.Fatalf("proxy: %v", r)
	}
	if r := call("switchboard_proxy", `{"connector":"delta","endpoint":"/tasks/4","method":"TRACE"}`); r["error"].(map[string]any)["code"] != "invalid_arguments" {
		t.Fatalf("proxy with TRACE: %v", r)
	}
	accts := call("switchboard_list_accounts", `{}`)["result"].(map[string]any)["accounts"].([]any)
	if len(accts) != 2 {
		t.Fatalf("accounts: %v", accts)
	}
	if r := call("switchboard_disconnect_account", `{"connector":"delta","account":"default-2"}`); r["ok"] != true {
		t.Fatalf("disconnect: %v", r)
	}
	if r := call("switchboard_disconnect_account", `{"connector":"delta","account":"default-2"}`); r["error"].(map[string]any)["code"] != "invalid_arguments" {
		t.Fatalf("disconnect twice: %v", r)
	}
}

func TestSession_ReadOnlyProxySendsOnlyGET(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var methods []string
	provider := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Only this test's calls carry its key: a loopback port freed by
		// another test's server can be reused by this one while a client
		// of that test still sends to it.
		if r.Header.Get("Authorization") == "Bearer read-only-test-key" {
			mu.Lock()
			methods = append(methods, r.Method+" "+r.URL.Path)
			mu.Unlock()
		}
		fakeDelta(w, r)
	}))
	t.Cleanup(provider.Close)
	f := setupWith(t, storeOpen, testCatalogFS, provider)
	if st, _, raw := f.json("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","userId":"u1","credential":{"type":"api_key","apiKey":"read-only-test-key","host":%q}}`, f.providerHost)); st != 200 {
		t.Fatal(raw)
	}
	_, m, _ := f.json("POST", "/v1/sessions", `{"userId":"u1","connectors":["delta"],"policy":{"readOnly":true,"allowProxy":true}}`)
	id := dataOf(m)["id"].(string)
	_, tl, _ := f.json("GET", "/v1/sessions/"+id+"/tools", "")
	for _, tool := range dataOf(tl)["tools"].([]any) {
		tm := tool.(map[string]any)
		if tm["name"] != "switchboard_proxy" {
			continue
		}
		enum := tm["inputSchema"].(map[string]any)["properties"].(map[string]any)["method"].(map[string]any)["enum"].([]any)
		if len(enum) != 1 || enum[0] != "GET" {
			t.Fatalf("a read-only session's proxy tool offers %v", enum)
		}
	}
	for _, method := range []string{"DELETE", "POST", "PUT", "PATCH"} {
		_, r, raw := f.json("POST", "/v1/sessions/"+id+"/tools/switchboard_proxy",
			`{"arguments":{"connector":"delta","endpoint":"/tasks/4","method":"`+method+`","body":{"x":1}}}`)
		if e, _ := r["error"].(map[string]any); e == nil || e["code"] != "read_only" {
			t.Fatalf("%s through a read-only session's proxy: %s", method, raw)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(methods) != 0 {
		t.Fatalf("the provider received %v from a read-only session", methods)
	}
}

// authTransport adds the API key to every request of the MCP client.
type authTransport struct {
	key  string
	next http.RoundTripper
}

func (a authTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+a.key)
	return a.next.RoundTrip(r)
}

func TestSessionMCP_GoSDKClientAndHTTPRules(t *testing.T) {
	t.Parallel()
	f := setup(t)
	_, m, _ := f.json("POST", "/v1/sessions", `{"userId":"u1","connectors":["delta"],"pinned":["delta_get_task"]}`)
	id := dataOf(m)["id"].(string)
	srv := httptest.NewServer(f.h)
	defer srv.Close()
	if _, _, raw := f.json("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","userId":"u1","credential":{"type":"api_key","apiKey":"delta-secret-key","host":%q}}`, f.providerHost)); !strings.Contains(raw, `"data"`) {
		t.Fatal(raw)
	}

	ctx := context.Background()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: srv.URL + "/v1/sessions/" + id + "/mcp",
		HTTPClient: &http.Client{Transport: authTransport{key: f.key, next: http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if err := cs.Ping(ctx, &mcp.PingParams{}); err != nil {
		t.Fatalf("ping: %v", err)
	}
	list, err := cs.ListTools(ctx, nil)
	if err != nil || len(list.Tools) != 5 {
		t.Fatalf("tools/list: %v %v", list, err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		if tool.Name == "delta_get_task" && (tool.Annotations == nil || !tool.Annotations.ReadOnlyHint) {
			t.Fatalf("annotations: %+v", tool.Annotations)
		}
	}
	if !slices.Contains(names, "switchboard_search_actions") || !slices.Contains(names, "delta_get_task") {
		t.Fatalf("tools/list names: %v", names)
	}
	if v := cs.InitializeResult().ProtocolVersion; v != "2026-07-28" {
		t.Fatalf("the go-sdk client negotiated %s", v)
	}
	before := f.srv.mcp.DirectCalls()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "switchboard_execute", Arguments: map[string]any{"action": "delta_get_task", "input": map[string]any{"id": "2"}}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, `"/v1/tasks/2"`) {
		t.Fatalf("tools/call: %v %v", res, err)
	}
	// The go-sdk client's own requests (2026-07-28, per-request _meta) take
	// the direct path.
	if f.srv.mcp.DirectCalls() != before+1 {
		t.Fatalf("the go-sdk client's tools/call did not take the direct path")
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "switchboard_execute", Arguments: map[string]any{"action": "beta_create_invoice", "input": map[string]any{}}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "not_in_scope") {
		t.Fatalf("refusal: %v %v", res, err)
	}

	post := func(path, origin, body string) response {
		return f.do(f.h, "POST", path, "Bearer "+f.key, body, "Content-Type", "application/json",
			"Accept", "application/json, text/event-stream", "Origin", origin)
	}
	for _, method := range []string{"GET", "DELETE"} {
		r := f.do(f.h, method, "/v1/sessions/"+id+"/mcp", "Bearer "+f.key, "")
		if r.status != 405 || r.header.Get("Allow") != "POST" || len(r.body) != 0 {
			t.Fatalf("%s: %d %v %s", method, r.status, r.header, r.body)
		}
	}
	list1 := `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`
	r := post("/v1/sessions/00000000-0000-7000-8000-000000000000/mcp", "", list1)
	if r.status != 404 || !strings.Contains(string(r.body), `"jsonrpc":"2.0"`) || !strings.Contains(string(r.body), `"id":7`) || !strings.Contains(string(r.body), `"error"`) {
		t.Fatalf("unknown session: %d %s", r.status, r.body)
	}
	if r := post("/v1/sessions/"+id+"/mcp", "https://evil.example", list1); r.status != 403 {
		t.Fatalf("foreign origin: %d", r.status)
	}
	if r := post("/v1/sessions/"+id+"/mcp", "http://web.sb.test", list1); r.status != 200 || !strings.Contains(string(r.body), "switchboard_execute") {
		t.Fatalf("own origin: %d %s", r.status, r.body)
	}
	if r := f.do(f.h, "POST", "/v1/sessions/"+id+"/mcp", "", list1); r.status != 401 {
		t.Fatalf("no key: %d", r.status)
	}
	if r := post("/v1/sessions/"+id+"/mcp", "", `{"jsonrpc":"2.0","id":3,"method":"ping"}`); r.status != 200 || !strings.Contains(string(r.body), `"result":{}`) {
		t.Fatalf("ping: %d %s", r.status, r.body)
	}
	var decoded map[string]any
	_ = json.Unmarshal(post("/v1/sessions/"+id+"/mcp", "", list1).body, &decoded)
	if decoded["result"] == nil {
		t.Fatalf("stateless tools/list without initialize: %v", decoded)
	}
}

func TestConnectLinks_Create(t *testing.T) {
	t.Parallel()
	f := setup(t)
	st, m, raw := f.json("POST", "/v1/connect-links", `{"userId":"u1","connectors":["delta"]}`)
	d := dataOf(m)
	if st != 201 || !strings.HasPrefix(d["url"].(string), "http://web.sb.test/connect/") || d["authConfigs"] != nil || d["userId"] != "u1" {
		t.Fatalf("create: %d %s", st, raw)
	}
	exp, _ := time.Parse(time.RFC3339, d["expiresAt"].(string))
	if !exp.Equal(f.clock.Now().Add(30 * time.Minute)) {
		t.Fatalf("default expiry: %v", exp)
	}
	for body, path := range map[string]string{
		`{}`: "userId", `{"userId":"u","expiresInMinutes":4}`: "expiresInMinutes", `{"userId":"u","expiresInMinutes":1441}`: "expiresInMinutes",
		`{"userId":"u","connectors":["nope"]}`: "connectors", `{"userId":"u","authConfigs":["nope"]}`: "authConfigs",
		`{"userId":"u","redirectUrl":"https://app.example/done"}`: "redirectUrl",
	} {
		if st, m, raw := f.json("POST", "/v1/connect-links", body); st != 400 || errCode(m) != "VALIDATION_ERROR" || !strings.Contains(raw, `"path":["`+path) {
			t.Errorf("%s: %d %s", body, st, raw)
		}
	}
	if err := f.store.SetRedirectURLs(context.Background(), f.project.ID, []string{"https://app.example/done"}); err != nil {
		t.Fatal(err)
	}
	if st, _, raw := f.json("POST", "/v1/connect-links", `{"userId":"u","redirectUrl":"https://app.example/done","expiresInMinutes":5}`); st != 201 {
		t.Fatalf("allowed redirect: %d %s", st, raw)
	}
}
