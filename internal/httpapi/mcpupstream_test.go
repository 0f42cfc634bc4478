package httpapi

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/session"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/upstream"
)

// crmServer is an upstream MCP server (go-sdk) that needs a static API key
// header and reports the Authorization it was sent.
func crmServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "crm", Title: "Tiny CRM", Version: "1"}, nil)
	destructive := true
	srv.AddTool(&mcp.Tool{Name: "lookupCustomer", Description: "Finds a customer of the CRM by e-mail address.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"email":{"type":"string"}},"required":["email"]}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ Email string }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			out := map[string]any{"email": in.Email, "name": "Ann", "auth": req.Extra.Header.Get("Authorization")}
			b, _ := json.Marshal(out)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: out}, nil
		})
	srv.AddTool(&mcp.Tool{Name: "delete-customer", Description: "Deletes a customer.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"id":{"type":"string"}}}`),
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &destructive}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "customer is locked"}}}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "static-crm-key" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	return ts
}

// TestMCPServer_RunsLikeABuiltIn adds an upstream MCP server to a project and
// runs its tools through execute, a session and an MCP endpoint.
func TestMCPServer_RunsLikeABuiltIn(t *testing.T) {
	t.Parallel()
	upstreamSrv := crmServer(t)
	f := setupWith(t, storeOpen, testCatalogFS, upstreamSrv)
	ctx := context.Background()
	pool := x509.NewCertPool()
	pool.AddCert(upstreamSrv.Certificate())
	client := netguard.New(netguard.Options{AllowLoopback: true, TLSConfig: &tls.Config{RootCAs: pool}}).Client()
	headers := map[string]string{"X-Api-Key": "static-crm-key"}
	if _, err := upstream.DiscoverMCP(ctx, client, upstreamSrv.URL, map[string]string{}, upstream.MCPOptions{ID: "crm"}); err == nil {
		t.Fatal("discovery without the static header succeeded")
	}
	con, err := upstream.DiscoverMCP(ctx, client, upstreamSrv.URL, headers, upstream.MCPOptions{ID: "crm", DataClass: "standard"})
	if err != nil {
		t.Fatal(err)
	}
	effects := map[string]string{}
	for _, tl := range con.Tools {
		effects[tl.ID] = tl.Effect + "/" + tl.UpstreamName
	}
	if con.Name != "Tiny CRM" || len(con.Tools) != 2 || effects["crm_lookup_customer"] != "read/lookupCustomer" ||
		effects["crm_delete_customer"] != "destructive/delete-customer" {
		t.Fatalf("discovered: %v", effects)
	}
	sealed, _ := upstream.SealHeaders(f.ring, f.project.ID, "crm", headers)
	def, _ := json.Marshal(con)
	if err := f.store.PutProjectConnector(ctx, store.ProjectConnector{ProjectID: f.project.ID, ConnectorID: "crm", Origin: catalog.OriginMCP,
		Source: upstreamSrv.URL, Definition: def, Headers: sealed}); err != nil {
		t.Fatal(err)
	}
	st, m, raw := f.json("GET", "/v1/connectors/crm", "")
	if st != 200 || dataOf(m)["mcp"] != true || dataOf(m)["toolIds"] != nil {
		t.Fatalf("detail: %d %s", st, raw)
	}
	if _, _, raw := f.json("GET", "/v1/connectors?query=crm", ""); !strings.Contains(raw, `"mcp":true`) {
		t.Fatalf("list: %s", raw)
	}
	// Without a user account the server still takes calls (static headers).
	st, m, raw = f.json("POST", "/v1/tools/execute", `{"toolId":"crm_lookup_customer","userId":"u1","input":{"email":"ann@example.com"}}`)
	if st != 200 || dataOf(m)["name"] != "Ann" || dataOf(m)["auth"] != "" {
		t.Fatalf("execute: %d %s", st, raw)
	}
	// With one, its key goes to the server as Authorization.
	if st, _, raw := f.json("POST", "/v1/connections", `{"connectorId":"crm","userId":"u1","credential":{"type":"api_key","apiKey":"user-crm-token"}}`); st != 200 {
		t.Fatal(raw)
	}
	_, m, _ = f.json("POST", "/v1/tools/execute", `{"toolId":"crm_lookup_customer","userId":"u1","input":{"email":"ann@example.com"}}`)
	if dataOf(m)["auth"] != "Bearer user-crm-token" {
		t.Fatalf("user credential not sent: %v", m)
	}
	// A connect link offers the project's server like a built-in; the key
	// the user enters on the page reaches the server.
	token := f.link(t, `{"userId":"u2","connectors":["crm"]}`)
	st, m, raw = f.page("GET", "/api/connect/"+token, "")
	offered, _ := dataOf(m)["connectors"].([]any)
	if st != 200 || len(offered) != 1 || offered[0].(map[string]any)["id"] != "crm" || offered[0].(map[string]any)["logo"] != nil {
		t.Fatalf("connect page view: %d %s", st, raw)
	}
	var keyCfg string
	for _, c := range offered[0].(map[string]any)["authConfigs"].([]any) {
		if c.(map[string]any)["type"] == "api_key" {
			keyCfg = c.(map[string]any)["id"].(string)
		}
	}
	if st, _, raw := f.page("POST", "/api/connect/"+token+"/accounts", `{"authConfigId":"`+keyCfg+`","fields":{"apiKey":"u2-crm-token"}}`); st != 201 {
		t.Fatalf("connect page account: %d %s", st, raw)
	}
	_, m, _ = f.json("POST", "/v1/tools/execute", `{"toolId":"crm_lookup_customer","userId":"u2","input":{"email":"ann@example.com"}}`)
	if dataOf(m)["auth"] != "Bearer u2-crm-token" {
		t.Fatalf("connect page credential not sent: %v", m)
	}
	if st, m, _ := f.json("POST", "/v1/tools/execute", `{"toolId":"crm_delete_customer","userId":"u1","input":{"id":"c1"}}`); st != 400 || errCode(m) != "EXECUTION_ERROR" ||
		!strings.Contains(m["error"].(map[string]any)["upstream"].(map[string]any)["body"].(string), "locked") {
		t.Fatalf("tool error: %d %v", st, m)
	}
	if st, m, _ := f.json("POST", "/v1/tools/execute", `{"toolId":"crm_lookup_customer","userId":"u1","input":{}}`); st != 400 || errCode(m) != "VALIDATION_ERROR" {
		t.Fatalf("input not validated: %d %v", st, m)
	}

	_, m, _ = f.json("POST", "/v1/sessions", `{"userId":"u1","connectors":["crm"],"policy":{"readOnly":true}}`)
	id := dataOf(m)["id"].(string)
	_, m, raw = f.json("POST", "/v1/sessions/"+id+"/tools/switchboard_execute", `{"arguments":{"action":"crm_lookup_customer","input":{"email":"b@example.com"}}}`)
	if m["ok"] != true || !strings.Contains(raw, "b@example.com") {
		t.Fatalf("session: %s", raw)
	}
	f.endpoint(t, session.EndpointRequest{Slug: "crm-tools", Connectors: []string{"crm"}})
	if names := toolNames(t, f.rpc(f.h, "/v1/mcp/crm-tools/u1", listReq)); strings.Join(names, ",") != "crm_delete_customer,crm_lookup_customer" {
		t.Fatalf("endpoint: %v", names)
	}
	r := f.rpc(f.h, "/v1/mcp/crm-tools/u1", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"crm_lookup_customer","arguments":{"email":"c@example.com"}}}`)
	if r.status != 200 || !strings.Contains(string(r.body), "c@example.com") || strings.Contains(string(r.body), `"isError":true`) {
		t.Fatalf("endpoint call: %d %s", r.status, r.body)
	}
	if strings.Contains(f.logs.String(), "static-crm-key") || strings.Contains(f.logs.String(), "user-crm-token") ||
		strings.Contains(f.logs.String(), "u2-crm-token") {
		t.Fatal("a secret reached the log")
	}
}

// TestMCPServer_OlderSSETransport adds a server that speaks only the
// 2024-11-05 HTTP+SSE transport: discovery falls back to it, records it, and
// execute reaches the server over it.
func TestMCPServer_OlderSSETransport(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(&mcp.Implementation{Name: "legacy-wiki", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "findPage", Description: "Finds a wiki page by title.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}`),
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ Title string }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			out := map[string]any{"title": in.Title, "transport": "sse"}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Title}}, StructuredContent: out}, nil
		})
	sse := httptest.NewTLSServer(mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(sse.Close)
	f := setupWith(t, storeOpen, testCatalogFS, sse)
	ctx := context.Background()
	pool := x509.NewCertPool()
	pool.AddCert(sse.Certificate())
	client := netguard.New(netguard.Options{AllowLoopback: true, TLSConfig: &tls.Config{RootCAs: pool}}).Client()
	con, err := upstream.DiscoverMCP(ctx, client, sse.URL, nil, upstream.MCPOptions{ID: "wiki"})
	if err != nil {
		t.Fatal(err)
	}
	if con.API.Transport != catalog.TransportSSE || len(con.Tools) != 1 || con.Tools[0].ID != "wiki_find_page" {
		t.Fatalf("discovered transport %q, tools %+v", con.API.Transport, con.Tools)
	}
	def, _ := json.Marshal(con)
	if err := f.store.PutProjectConnector(ctx, store.ProjectConnector{ProjectID: f.project.ID, ConnectorID: "wiki", Origin: catalog.OriginMCP,
		Source: sse.URL, Definition: def}); err != nil {
		t.Fatal(err)
	}
	st, m, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"wiki_find_page","userId":"u1","input":{"title":"Onboarding"}}`)
	if st != 200 || dataOf(m)["title"] != "Onboarding" || dataOf(m)["transport"] != "sse" {
		t.Fatalf("execute over SSE: %d %s", st, raw)
	}
}

// TestMCPServer_SessionsArePooled checks that calls reuse one client session
// (one request per call after the handshake) and that a session the server
// forgot is replaced without failing the call.
func TestMCPServer_SessionsArePooled(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(&mcp.Implementation{Name: "counter", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "ping", Description: "Answers pong to show the server is up.",
		InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{StructuredContent: map[string]any{"pong": true}}, nil
		})
	newHandler := func() http.Handler {
		return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{JSONResponse: true})
	}
	var mu sync.Mutex
	h := newHandler()
	requests := 0
	ts := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		requests++
		cur := h
		mu.Unlock()
		cur.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	count := func() int { mu.Lock(); defer mu.Unlock(); return requests }

	f := setupWith(t, storeOpen, testCatalogFS, ts)
	ctx := context.Background()
	pool := x509.NewCertPool()
	pool.AddCert(ts.Certificate())
	client := netguard.New(netguard.Options{AllowLoopback: true, TLSConfig: &tls.Config{RootCAs: pool}}).Client()
	con, err := upstream.DiscoverMCP(ctx, client, ts.URL, nil, upstream.MCPOptions{ID: "counter"})
	if err != nil {
		t.Fatal(err)
	}
	def, _ := json.Marshal(con)
	if err := f.store.PutProjectConnector(ctx, store.ProjectConnector{ProjectID: f.project.ID, ConnectorID: "counter", Origin: catalog.OriginMCP,
		Source: ts.URL, Definition: def}); err != nil {
		t.Fatal(err)
	}
	call := func() {
		t.Helper()
		if st, m, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"counter_ping","userId":"u1","input":{}}`); st != 200 || dataOf(m)["pong"] != true {
			t.Fatalf("execute: %d %s", st, raw)
		}
	}
	call() // handshake and call
	before := count()
	call()
	call()
	if n := count() - before; n != 2 {
		t.Fatalf("two calls on an open session made %d requests, want 2", n)
	}
	mu.Lock()
	h = newHandler() // the server forgets its sessions (a restart)
	mu.Unlock()
	call()
	before = count()
	call()
	if n := count() - before; n != 1 {
		t.Fatalf("a call after the session was replaced made %d requests, want 1", n)
	}
}
