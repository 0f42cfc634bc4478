package httpapi

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/switchboard-gw/switchboard/internal/session"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// textDecoders lets the validator read the non-JSON bodies the document
// describes (pages, assets) as plain text.
var textDecoders sync.Once

// liveCheck drives requests through the fixture's real router and checks
// each request it sends and each answer against openapi.json.
type liveCheck struct {
	t      *testing.T
	f      *fixture
	router routers.Router
	// seen counts the described operations the scenario reached.
	seen map[string]int
}

func newLiveCheck(t *testing.T, f *fixture) *liveCheck {
	t.Helper()
	textDecoders.Do(func() {
		for _, ct := range []string{"text/html", "text/css", "text/javascript", "image/svg+xml", "text/event-stream"} {
			openapi3filter.RegisterBodyDecoder(ct, openapi3filter.PlainBodyDecoder)
		}
	})
	doc := loadOpenAPI(t)
	doc.Servers = nil // match paths on any host
	router, err := legacy.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	return &liveCheck{t: t, f: f, router: router, seen: map[string]int{}}
}

// do sends one request to h and fails the test unless the answer has
// wantStatus and the exchange fits the document: the request's parameters
// and body (for a success; failures are often provoked by bad requests)
// and the answer's status, content type and body.
func (lc *liveCheck) do(h http.Handler, method, path, auth, body string, wantStatus int, hdr ...string) response {
	lc.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	res := response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
	if res.status != wantStatus {
		lc.t.Fatalf("%s %s: status %d, want %d: %s", method, path, res.status, wantStatus, res.body)
	}

	// Route the request as the document sees it.
	vreq := httptest.NewRequest(method, path, strings.NewReader(body))
	vreq.Header = req.Header.Clone()
	route, params, err := lc.router.FindRoute(vreq)
	if err != nil {
		lc.t.Fatalf("%s %s: not in openapi.json: %v", method, path, err)
	}
	lc.seen[method+" "+route.Path]++
	in := &openapi3filter.RequestValidationInput{Request: vreq, PathParams: params, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}}
	if res.status < 300 {
		if err := openapi3filter.ValidateRequest(context.Background(), in); err != nil {
			lc.t.Errorf("%s %s: request does not fit openapi.json: %v", method, path, err)
		}
	}
	opts := &openapi3filter.Options{IncludeResponseStatus: true}
	if len(res.body) == 0 && res.header.Get("Content-Type") == "" && !offersJSON(route, res.status) {
		// An answer described as any media type (trigger ingress) may be empty.
		opts.ExcludeResponseBody = true
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: res.status, Header: res.header,
		Body: io.NopCloser(bytes.NewReader(res.body)), Options: opts,
	}
	if err := openapi3filter.ValidateResponse(context.Background(), out); err != nil {
		lc.t.Errorf("%s %s: answer %d does not fit openapi.json: %v\n%v %s", method, path, res.status, err, res.header, res.body)
	}
	return res
}

// offersJSON reports whether the route's answer with status is described
// as JSON, which must then never be empty.
func offersJSON(route *routers.Route, status int) bool {
	r := route.Operation.Responses.Status(status)
	return r != nil && r.Value != nil && r.Value.Content["application/json"] != nil
}

// TestOpenAPI_LiveAnswersFitTheDocument drives the main routes through the
// real router, on SQLite and on PostgreSQL, and checks every exchange
// against openapi.json: successes and the usual failures.
func TestOpenAPI_LiveAnswersFitTheDocument(t *testing.T) {
	t.Parallel()
	onBothDatabases(t, liveScenario)
}

func liveScenario(t *testing.T, f *fixture) {
	lc := newLiveCheck(t, f)
	key := "Bearer " + f.key
	v1 := func(method, path, body string, status int) map[string]any {
		t.Helper()
		return decodeMap(lc.do(f.h, method, path, key, body, status).body)
	}
	public := func(method, path, body string, status int, hdr ...string) map[string]any {
		t.Helper()
		return decodeMap(lc.do(f.h, method, path, "", body, status, hdr...).body)
	}

	// Public routes.
	public("GET", "/health", "", 200)
	public("GET", "/ready", "", 200)
	public("GET", "/openapi.json", "", 200)
	public("GET", "/api/catalog", "", 200)
	public("GET", "/api/catalog?facets=true&limit=1", "", 200)
	public("GET", "/api/catalog?limit=0", "", 400)
	public("GET", "/api/catalog/delta", "", 200)
	public("GET", "/api/catalog/nope", "", 404)
	public("GET", "/assets/logos/delta", "", 200)
	public("GET", "/assets/logos/nope", "", 404)
	public("GET", "/assets/nope", "", 404)
	public("GET", "/api/oauth/callback", "", 400)

	// Catalog.
	public("GET", "/v1/connectors", "", 401)
	v1("GET", "/v1/connectors", "", 200)
	v1("GET", "/v1/connectors?facets=true&popular=false&limit=2", "", 200)
	v1("GET", "/v1/connectors?popular=maybe", "", 400)
	v1("GET", "/v1/connectors/delta", "", 200)
	v1("GET", "/v1/connectors/nope", "", 404)
	v1("GET", "/v1/tools", "", 200)
	v1("GET", "/v1/tools?view=index&facets=true&dataClassification=standard", "", 200)
	v1("GET", "/v1/tools?view=wide", "", 400)

	// Connections.
	cred := fmt.Sprintf(`{"type":"api_key","apiKey":"delta-secret-key","host":%q}`, f.providerHost)
	v1("POST", "/v1/connections", `{"connectorId":"delta"}`, 400)
	first := dataOf(v1("POST", "/v1/connections", `{"connectorId":"delta","userId":"u1","credential":`+cred+`}`, 200))
	second := dataOf(v1("POST", "/v1/connections", `{"connectorId":"delta","userId":"u1","name":"work","credential":`+cred+`}`, 200))
	v1("POST", "/v1/connections", `{"connectorId":"delta","userId":"u1","name":"work","credential":`+cred+`}`, 409)
	global := dataOf(v1("POST", "/v1/connections", `{"connectorId":"delta","global":true,"credential":`+cred+`}`, 200))
	list := v1("GET", "/v1/connections?userId=u1", "", 200)["data"].([]any)
	rev := list[1].(map[string]any)["revision"]
	secondID := second["id"].(string)
	v1("PATCH", "/v1/connections/"+secondID, `{"name":"office"}`, 200)
	v1("PATCH", "/v1/connections/"+secondID, fmt.Sprintf(`{"credential":%s,"expectedRevision":%v}`, cred, rev), 200)
	v1("PATCH", "/v1/connections/"+secondID, fmt.Sprintf(`{"credential":%s,"expectedRevision":%v}`, cred, rev), 409)
	v1("POST", "/v1/connections/"+secondID+"/default", "", 200)
	v1("POST", "/v1/connections/"+global["id"].(string)+"/default", "", 400)
	v1("POST", "/v1/connections/"+secondID+"/default", "", 200)

	// Execute and proxy.
	v1("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","connectionId":"`+first["id"].(string)+`","input":{"id":"7"}}`, 200)
	v1("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u2","input":{"id":"7"}}`, 400)
	v1("POST", "/v1/tools/execute", `{"toolId":"nope","userId":"u1"}`, 404)
	v1("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u2","allowGlobalAccounts":true,"input":{"id":"7"}}`, 403)
	v1("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","input":{"id":"broken"}}`, 502)
	v1("POST", "/v1/tools/proxy", `{"connectorId":"delta","userId":"u1","endpoint":"/tasks/3","method":"POST","body":{"a":1}}`, 200)
	v1("POST", "/v1/tools/proxy", `{"connectorId":"delta","userId":"u1","endpoint":"//evil.example/x"}`, 403)

	// Sessions and their MCP server.
	ss := dataOf(v1("POST", "/v1/sessions", `{"userId":"u1","connectors":["delta"],"pinned":["delta_get_task"],"policy":{"allowProxy":true}}`, 201))
	sid := ss["id"].(string)
	v1("POST", "/v1/sessions", `{"userId":"u1","ttlMinutes":1}`, 400)
	v1("GET", "/v1/sessions/"+sid, "", 200)
	v1("GET", "/v1/sessions/"+sid+"/tools", "", 200)
	v1("GET", "/v1/sessions/"+sid+"/tools?format=openai-strict", "", 200)
	v1("GET", "/v1/sessions/"+sid+"/tools?format=xml", "", 400)
	v1("POST", "/v1/sessions/"+sid+"/tools/switchboard_search_actions", `{"arguments":{"queries":["get a task"]}}`, 200)
	v1("POST", "/v1/sessions/"+sid+"/tools/switchboard_execute", `{"arguments":{"action":"alpha_post","input":{}}}`, 200)
	v1("POST", "/v1/sessions/"+sid+"/tools/delta_get_task", `{"arguments":{"id":"7"}}`, 200)
	v1("POST", "/v1/sessions/"+sid+"/tools/nope", `{}`, 404)
	v1("GET", "/v1/sessions/00000000-0000-4000-8000-000000000000", "", 404)
	mcp := []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}
	lc.do(f.h, "POST", "/v1/sessions/"+sid+"/mcp", key, listReq, 200, mcp...)
	lc.do(f.h, "POST", "/v1/sessions/00000000-0000-4000-8000-000000000000/mcp", key, listReq, 404, mcp...)
	lc.do(f.h, "POST", "/v1/sessions/"+sid+"/mcp", key, listReq, 403, append(mcp, "Origin", "https://evil.example")...)

	// MCP endpoints.
	f.endpoint(t, session.EndpointRequest{Slug: "delta-tools", Connectors: []string{"delta"}, Mode: session.ModeTools})
	lc.do(f.h, "POST", "/v1/mcp/delta-tools/u1", key, listReq, 200, mcp...)
	lc.do(f.h, "POST", "/v1/mcp/delta-tools?user=u1", key, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delta_get_task","arguments":{"id":"7"}}}`, 200, mcp...)
	lc.do(f.h, "POST", "/v1/mcp/no-such-slug/u1", key, listReq, 404, mcp...)

	// Connect links and the hosted page's backend.
	v1("POST", "/v1/connect-links", `{"userId":"ann","expiresInMinutes":1}`, 400)
	link := dataOf(v1("POST", "/v1/connect-links", `{"userId":"ann","connectors":["delta"]}`, 201))
	token := link["url"].(string)[strings.LastIndex(link["url"].(string), "/")+1:]
	public("GET", "/connect/"+token, "", 200)
	public("GET", "/connect/static/page.css", "", 200)
	public("GET", "/connect/static/nope.css", "", 404)
	public("OPTIONS", "/api/connect/"+token, "", 204, "Origin", "http://web.sb.test", "Access-Control-Request-Method", "POST")
	view := dataOf(public("GET", "/api/connect/"+token, "", 200))
	var keyConfig string
	for _, c := range view["connectors"].([]any)[0].(map[string]any)["authConfigs"].([]any) {
		if c.(map[string]any)["type"] == "api_key" {
			keyConfig = c.(map[string]any)["id"].(string)
		}
	}
	public("GET", "/api/connect/not-a-token", "", 404)
	public("GET", "/api/connect/"+token+"/connections", "", 403)
	public("POST", "/api/connect/"+token+"/authorize", `{"authConfigId":"`+keyConfig+`"}`, 400)
	public("POST", "/api/connect/"+token+"/accounts",
		fmt.Sprintf(`{"authConfigId":%q,"fields":{"apiKey":"delta-secret-key","host":%q},"name":"page"}`, keyConfig, f.providerHost), 201)
	public("POST", "/api/connect/"+token+"/accounts", `{"authConfigId":"`+keyConfig+`","fields":{}}`, 410)

	// Self-management through a second link, and a project upload.
	ctx := context.Background()
	if err := f.store.SetConnectSettings(ctx, f.project.ID, store.ConnectSettings{Name: "Acme", Accent: "#ff0066", SelfManage: true}); err != nil {
		t.Fatal(err)
	}
	link = dataOf(v1("POST", "/v1/connect-links", `{"userId":"ann"}`, 201))
	token = link["url"].(string)[strings.LastIndex(link["url"].(string), "/")+1:]
	accts := public("GET", "/api/connect/"+token+"/connections", "", 200)["data"].([]any)
	acct := accts[0].(map[string]any)["id"].(string)
	public("PATCH", "/api/connect/"+token+"/connections/"+acct, `{"name":"home"}`, 200)
	public("PATCH", "/api/connect/"+token+"/connections/"+acct, `{"name":""}`, 400)
	public("DELETE", "/api/connect/"+token+"/connections/"+acct, "", 200)
	public("DELETE", "/api/connect/"+token+"/connections/"+acct, "", 404)
	asset := "projects/" + f.project.ID + "/" + strings.Repeat("a", 64) + ".svg"
	if err := f.store.PutAsset(ctx, store.Asset{Key: asset, ProjectID: f.project.ID, ContentType: "image/svg+xml", Data: []byte("<svg/>")}); err != nil {
		t.Fatal(err)
	}
	public("GET", "/assets/"+asset, "", 200)
	public("GET", "/assets/projects/"+f.project.ID+"/missing.png", "", 404)

	// Triggers and ingress.
	trig := dataOf(v1("POST", "/v1/triggers", `{"connectionId":"`+first["id"].(string)+`","event":"delta_task_created","secret":"gh-secret"}`, 201))
	v1("POST", "/v1/triggers", `{}`, 400)
	v1("GET", "/v1/triggers", "", 200)
	v1("GET", "/v1/triggers?userId=u1", "", 200)
	ingress := strings.TrimPrefix(trig["url"].(string), "http://sb.test")
	event := `{"action":"created","task":{"id":"t1"}}`
	public("POST", ingress, event, 200, "X-Delta-Event", "task", "X-Hub-Signature-256", githubSign("gh-secret", []byte(event)))
	public("POST", ingress, event, 401, "X-Delta-Event", "task", "X-Hub-Signature-256", githubSign("wrong", []byte(event)))
	public("POST", "/api/triggers/no-such-token", event, 404)
	v1("DELETE", "/v1/triggers/"+trig["id"].(string), "", 200)
	v1("DELETE", "/v1/triggers/"+trig["id"].(string), "", 404)

	// Webhooks.
	hook := dataOf(v1("POST", "/v1/webhooks", `{"url":"https://hooks.example.com/sb","description":"test"}`, 201))
	v1("POST", "/v1/webhooks", `{"url":"ftp://hooks.example.com"}`, 400)
	v1("GET", "/v1/webhooks", "", 200)
	v1("GET", "/v1/webhooks/"+hook["id"].(string)+"/deliveries", "", 200)
	v1("POST", "/v1/webhooks/"+hook["id"].(string)+"/deliveries/00000000-0000-4000-8000-000000000000/retry", "", 404)
	v1("DELETE", "/v1/webhooks/"+hook["id"].(string), "", 200)

	// The execution log of the calls above.
	f.srv.execlog.Flush(ctx)
	page := v1("GET", "/v1/logs?limit=2&userId=u1", "", 200)
	records := page["data"].([]any)
	if len(records) != 2 || page["nextCursor"] == nil {
		t.Fatalf("log page: %v", page)
	}
	v1("GET", "/v1/logs?cursor="+page["nextCursor"].(string)+"&outcome=ok&since=2020-01-01T00:00:00Z", "", 200)
	v1("GET", "/v1/logs?since=yesterday", "", 400)
	v1("GET", "/v1/logs/"+records[0].(map[string]any)["id"].(string), "", 200)
	v1("GET", "/v1/logs/00000000-0000-4000-8000-000000000000", "", 404)
	policyScenario(lc, f, first["id"].(string))

	// Quotas and redaction: the 429 and a rate_limited refusal, redacted
	// session results.
	v1("GET", "/v1/quotas", "", 200)
	v1("POST", "/v1/quotas", `{"window":"week","limit":1}`, 400)
	quotaID := dataOf(v1("POST", "/v1/quotas", `{"window":"day","limit":1000,"userId":"u1","toolId":"delta_*"}`, 201))["id"].(string)
	v1("GET", "/v1/quotas/"+quotaID, "", 200)
	v1("GET", "/v1/quotas/nope", "", 404)
	v1("PATCH", "/v1/quotas/"+quotaID, `{"window":"minute","limit":1}`, 200)
	v1("PATCH", "/v1/quotas/"+quotaID, `{"window":"minute"}`, 400)
	v1("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","connectionId":"`+first["id"].(string)+`","input":{"id":"7"}}`, 200)
	v1("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","connectionId":"`+first["id"].(string)+`","input":{"id":"7"}}`, 429)
	v1("POST", "/v1/sessions/"+sid+"/tools/delta_get_task", `{"arguments":{"id":"7"}}`, 200)
	v1("DELETE", "/v1/quotas/"+quotaID, "", 200)
	v1("DELETE", "/v1/quotas/"+quotaID, "", 404)
	v1("GET", "/v1/redaction", "", 200)
	v1("PUT", "/v1/redaction", `{"detectors":["nope"]}`, 400)
	v1("PUT", "/v1/redaction", `{"detectors":["email","secret"],"patterns":[{"name":"employee_id","pattern":"EMP-\\d{6}"}],"restExecute":true}`, 200)
	v1("POST", "/v1/sessions/"+sid+"/tools/delta_get_task", `{"arguments":{"id":"jane@example.com"}}`, 200)
	v1("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","connectionId":"`+first["id"].(string)+`","input":{"id":"jane@example.com"}}`, 200)
	v1("DELETE", "/v1/redaction", "", 200)

	// Removing accounts.
	v1("DELETE", "/v1/connections/"+first["id"].(string), "", 200)
	v1("DELETE", "/v1/connections/"+first["id"].(string), "", 404)

	// MCP OAuth sign-in (mcpoauth_test.go).
	liveOAuth(t, lc, f)

	var missed []string
	doc := loadOpenAPI(t)
	for path, item := range doc.Paths.Map() {
		for method := range item.Operations() {
			if lc.seen[method+" "+path] == 0 {
				missed = append(missed, method+" "+path)
			}
		}
	}
	sort.Strings(missed)
	// Every described operation is reached (the OAuth success paths, which
	// need a provider, are driven by connectpage_test.go).
	for _, m := range missed {
		t.Errorf("the live scenario never reached %s", m)
	}
}
