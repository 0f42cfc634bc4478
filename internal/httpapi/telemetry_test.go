package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/trigger"
	"github.com/switchboard-gw/switchboard/internal/upstream"
)

// obsProvider is a fake provider for the telemetry tests: an OAuth token
// endpoint and the API of "kappa" (bearer kappa-fresh, which only a
// refresh hands out), and delta's API (fakeDelta) for every other path. It
// records the traceparent header of each request it gets.
type obsProvider struct {
	srv          *httptest.Server
	mu           sync.Mutex
	traceparents []seenRequest
}

type seenRequest struct{ path, traceparent string }

func newObsProvider(t *testing.T) *obsProvider {
	p := &obsProvider{}
	p.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		p.traceparents = append(p.traceparents, seenRequest{r.URL.Path, r.Header.Get("traceparent")})
		p.mu.Unlock()
		switch {
		case r.URL.Path == "/oauth/token":
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, `{"access_token":"kappa-fresh","refresh_token":"r2","token_type":"Bearer","expires_in":3600}`)
		case strings.HasPrefix(r.URL.Path, "/api/"):
			w.Header().Set("Content-Type", "application/json")
			if r.Header.Get("Authorization") != "Bearer kappa-fresh" {
				w.WriteHeader(401)
				_, _ = io.WriteString(w, `{"error":"expired"}`)
				return
			}
			_, _ = io.WriteString(w, `{"ok":true}`)
		default:
			fakeDelta(w, r)
		}
	}))
	t.Cleanup(p.srv.Close)
	return p
}

// seen returns the traceparent header of the requests to path, in order.
func (p *obsProvider) seen(path string) []string {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []string
	for _, s := range p.traceparents {
		if s.path == path {
			out = append(out, s.traceparent)
		}
	}
	return out
}

// obsCatalog is the route-test catalog plus "kappa", an OAuth connector on
// the fake provider that accepts traceparent (api.propagateTrace).
func obsCatalog(t *testing.T, p *obsProvider) fs.FS {
	t.Helper()
	mfs := testCatalogCopy()
	mfs["connectors/kappa.yaml"] = &fstest.MapFile{Data: []byte(fmt.Sprintf(`
id: kappa
name: Kappa Notes
description: A test notes application with OAuth, whose API accepts trace context.
category: productivity
api: {baseUrl: "%[1]s/api", propagateTrace: true}
authMethods:
  - id: oauth2
    type: oauth2
    name: Kappa sign-in
    oauth2: {authorizeUrl: "%[1]s/oauth/authorize", tokenUrl: "%[1]s/oauth/token", scopes: [read, write, admin],
      scopeSeparator: ",", pkce: true, tokenAuthStyle: body, refresh: true}
`, p.srv.URL) + fmt.Sprintf(kappaTools, "kappa", ""))}
	mfs["logos/kappa.svg"] = &fstest.MapFile{Data: []byte("<svg/>")}
	if _, err := catalog.Load(mfs); err != nil {
		t.Fatal(err)
	}
	return mfs
}

// observedFixture is a fixture on obsCatalog with a delta account (u1) and
// a kappa account (ann) whose token has expired.
func observedFixture(t *testing.T, obs FixtureApp) (*fixture, *obsProvider) {
	t.Helper()
	p := newObsProvider(t)
	f := setupObserved(t, sqliteDB, obsCatalog(t, p), p.srv, "http://sb.test", "http://web.sb.test", obs)
	addOAuthClient(t, f, "kappa")
	if st, _, raw := f.json("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","userId":"u1","credential":{"type":"api_key","apiKey":"delta-secret-key","host":%q}}`, f.providerHost)); st != 200 {
		t.Fatalf("delta account: %d %s", st, raw)
	}
	if st, _, raw := f.json("POST", "/v1/connections", `{"connectorId":"kappa","userId":"ann","authConfig":"kappa_oauth",
		"credential":{"type":"oauth2","accessToken":"old","refreshToken":"r1","expiresAt":"2000-01-01T00:00:00Z","scopes":["read","write","admin"]}}`); st != 200 {
		t.Fatalf("kappa account: %d %s", st, raw)
	}
	return f, p
}

// scrape reads the fixture's metrics and returns every sample by its
// series (name and labels as exposed, labels sorted by name).
func (f *fixture) scrape(t *testing.T) map[string]float64 {
	t.Helper()
	rec := httptest.NewRecorder()
	f.metrics.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if rec.Code != 200 {
		t.Fatalf("GET /metrics: %d %s", rec.Code, rec.Body)
	}
	out := map[string]float64{}
	for _, line := range strings.Split(rec.Body.String(), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("metrics line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	return out
}

// TestMetrics_ScriptedRun_CountsEveryKindOfCall runs a fixed set of calls
// (execute: ok, provider 500, refusal, unknown tool; proxy; a token
// refresh; trigger ingress accepted, rejected and limited; webhook
// deliveries ok and retried) and checks the exact counters a scrape shows.
func TestMetrics_ScriptedRun_CountsEveryKindOfCall(t *testing.T) {
	t.Parallel()
	f, _ := observedFixture(t, FixtureApp{Metrics: true})
	ctx := context.Background()

	// Tool calls and the proxy.
	calls := []struct {
		path, body string
		status     int
	}{
		{"/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","input":{"id":"t1"}}`, 200},
		{"/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","input":{"id":"t2"}}`, 200},
		{"/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","input":{"id":"broken"}}`, 502},
		{"/v1/tools/execute", `{"toolId":"delta_get_task","userId":"nobody","input":{"id":"t1"}}`, 400},
		{"/v1/tools/execute", `{"toolId":"no_such_tool","userId":"u1"}`, 404},
		{"/v1/tools/execute", `{"toolId":"kappa_read","userId":"ann"}`, 200},
		{"/v1/tools/proxy", `{"connectorId":"delta","userId":"u1","method":"GET","endpoint":"/tasks/t1"}`, 200},
	}
	for _, c := range calls {
		if st, _, raw := f.json("POST", c.path, c.body); st != c.status {
			t.Fatalf("%s %s: %d %s, want %d", c.path, c.body, st, raw, c.status)
		}
	}

	// Trigger ingress and webhook deliveries.
	rc := newReceiver(t)
	_, m, _ := f.json("POST", "/v1/webhooks", `{"url":"`+rc.srv.URL+`/hook"}`)
	rc.secret = dataOf(m)["secret"].(string)
	_, m, _ = f.json("GET", "/v1/connections?userId=u1", "")
	connID := m["data"].([]any)[0].(map[string]any)["id"].(string)
	_, m, raw := f.json("POST", "/v1/triggers", `{"connectionId":"`+connID+`","event":"delta_task_created","secret":"s"}`)
	u, ok := dataOf(m)["url"].(string)
	if !ok {
		t.Fatalf("trigger: %s", raw)
	}
	path := strings.TrimPrefix(u, "http://sb.test")
	first := []byte(`{"action":"created","task":{"id":"t1"}}`)
	if st := f.ingressFrom("192.0.2.10:1", path, first, "X-Delta-Event", "task", "X-Hub-Signature-256", githubSign("s", first)); st != 200 {
		t.Fatalf("signed event: %d", st)
	}
	other := []byte(`{"action":"deleted"}`)
	if st := f.ingressFrom("192.0.2.10:1", path, other, "X-Delta-Event", "task", "X-Hub-Signature-256", githubSign("s", other)); st != 200 {
		t.Fatalf("other event: %d", st)
	}
	if st := f.ingressFrom("192.0.2.10:1", "/api/triggers/unknown-token", first); st != 404 {
		t.Fatalf("unknown token: %d", st)
	}
	// One address sending bad signatures: refused until its limit, then 429.
	for i := range trigger.MaxUnverifiedPerMinute + 1 {
		want := 401
		if i == trigger.MaxUnverifiedPerMinute {
			want = 429
		}
		if st := f.ingressFrom("198.51.100.9:1", path, first, "X-Delta-Event", "task", "X-Hub-Signature-256", "sha256=00"); st != want {
			t.Fatalf("bad signature %d: %d, want %d", i, st, want)
		}
	}
	if _, err := f.worker.RunOnce(ctx); err != nil || len(rc.events()) != 1 {
		t.Fatalf("first delivery: %v, %d received", err, len(rc.events()))
	}
	// The receiver fails the second event's delivery: it is retried later.
	rc.mu.Lock()
	rc.status = 500
	rc.mu.Unlock()
	second := []byte(`{"action":"created","task":{"id":"t2"}}`)
	if st := f.ingressFrom("192.0.2.10:1", path, second, "X-Delta-Event", "task", "X-Hub-Signature-256", githubSign("s", second)); st != 200 {
		t.Fatalf("second event: %d", st)
	}
	if _, err := f.worker.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}

	got := f.scrape(t)
	want := map[string]float64{
		`switchboard_tool_calls_total{connector="delta",outcome="ok",tool="delta_get_task"}`:                 2,
		`switchboard_tool_calls_total{connector="delta",outcome="UPSTREAM_ERROR",tool="delta_get_task"}`:     1,
		`switchboard_tool_calls_total{connector="delta",outcome="MISSING_CONNECTION",tool="delta_get_task"}`: 1,
		`switchboard_tool_calls_total{connector="unknown",outcome="TOOL_NOT_FOUND",tool="unknown"}`:          1,
		`switchboard_tool_calls_total{connector="kappa",outcome="ok",tool="kappa_read"}`:                     1,
		`switchboard_proxy_calls_total{connector="delta",outcome="ok"}`:                                      1,

		`switchboard_http_requests_total{route="POST /v1/tools/execute",status_class="2xx"}`:                 3,
		`switchboard_http_requests_total{route="POST /v1/tools/execute",status_class="4xx"}`:                 2,
		`switchboard_http_requests_total{route="POST /v1/tools/execute",status_class="5xx"}`:                 1,
		`switchboard_http_requests_total{route="POST /v1/tools/proxy",status_class="2xx"}`:                   1,
		`switchboard_http_requests_total{route="POST /api/triggers/{token}",status_class="2xx"}`:             3,
		`switchboard_http_requests_total{route="POST /api/triggers/{token}",status_class="4xx"}`:             1 + trigger.MaxUnverifiedPerMinute + 1,
		`switchboard_http_request_duration_seconds_count{route="POST /v1/tools/execute",status_class="2xx"}`: 3,

		// delta: two executes and the proxy answered 200, one 500; kappa's
		// expired token was refreshed before its one call.
		`switchboard_provider_request_duration_seconds_count{connector="delta",status_class="2xx"}`: 3,
		`switchboard_provider_request_duration_seconds_count{connector="delta",status_class="5xx"}`: 1,
		`switchboard_provider_request_duration_seconds_count{connector="kappa",status_class="2xx"}`: 1,
		`switchboard_token_refreshes_total{connector="kappa",result="ok"}`:                          1,

		`switchboard_trigger_ingress_total{reason="fired",result="accepted"}`:            2,
		`switchboard_trigger_ingress_total{reason="not_matched",result="accepted"}`:      1,
		`switchboard_trigger_ingress_total{reason="unknown_trigger",result="rejected"}`:  1,
		`switchboard_trigger_ingress_total{reason="bad_signature",result="rejected"}`:    trigger.MaxUnverifiedPerMinute,
		`switchboard_trigger_ingress_total{reason="client_limit",result="rate_limited"}`: 1,
		`switchboard_webhook_deliveries_total{result="ok"}`:                              1,
		`switchboard_webhook_deliveries_total{result="retry"}`:                           1,
		`switchboard_webhook_queue_depth`:                                                1,
	}
	for series, v := range want {
		if got[series] != v {
			t.Errorf("%s = %v, want %v", series, got[series], v)
		}
	}
	// The execution log's queue kept up: its drop counter is there, at 0.
	if v, ok := got[`switchboard_execution_log_dropped_total`]; !ok || v != 0 {
		t.Errorf("switchboard_execution_log_dropped_total = %v (present %v), want 0", v, ok)
	}
	// Series that must not exist: no refusal of kappa's first answer, no
	// failed refresh, no failed delivery.
	for _, series := range []string{
		`switchboard_provider_request_duration_seconds_count{connector="kappa",status_class="4xx"}`,
		`switchboard_token_refreshes_total{connector="kappa",result="failed"}`,
		`switchboard_webhook_deliveries_total{result="failed"}`,
	} {
		if _, ok := got[series]; ok {
			t.Errorf("unexpected series %s = %v", series, got[series])
		}
	}
	// No raw path, user id or token ever becomes a label.
	for series := range got {
		for _, leak := range []string{"unknown-token", "/tasks/", "u1", "ann", "nobody", strings.TrimPrefix(path, "/api/triggers/")} {
			if strings.Contains(series, leak) {
				t.Errorf("series %s carries %q", series, leak)
			}
		}
	}
	// The store's pools and caches are read at scrape time.
	if got[`go_sql_max_open_connections{db_name="read"}`] != 4 {
		t.Errorf("read pool max open = %v, want 4", got[`go_sql_max_open_connections{db_name="read"}`])
	}
	var keyLookups float64
	for _, r := range []string{"hit", "miss"} {
		keyLookups += got[`switchboard_cache_lookups_total{cache="api_keys",result="`+r+`"}`]
	}
	if keyLookups == 0 {
		t.Error("no API key cache lookups counted")
	}
}

// spanNamed returns the one span called name, failing when there is not
// exactly one.
func spanNamed(t *testing.T, spans tracetest.SpanStubs, name string) tracetest.SpanStub {
	t.Helper()
	var found []tracetest.SpanStub
	var names []string
	for _, s := range spans {
		names = append(names, s.Name)
		if s.Name == name {
			found = append(found, s)
		}
	}
	if len(found) != 1 {
		t.Fatalf("%d spans named %q among %q", len(found), name, names)
	}
	return found[0]
}

// childOf fails unless span's parent is parent.
func childOf(t *testing.T, span, parent tracetest.SpanStub) {
	t.Helper()
	if span.Parent.SpanID() != parent.SpanContext.SpanID() || span.SpanContext.TraceID() != parent.SpanContext.TraceID() {
		t.Errorf("span %q: parent %s, want %q (%s)", span.Name, span.Parent.SpanID(), parent.Name, parent.SpanContext.SpanID())
	}
}

// TestTraces_SpansNestUnderTheRequest_TraceparentOnlyWhereAllowed checks the
// spans of a REST execute that refreshes a token (under the caller's
// traceparent), of one that does not, and of an MCP tools/call: their names,
// kinds and parents; that traceparent reaches the provider only for a
// connector with api.propagateTrace; and that log lines carry the trace id.
func TestTraces_SpansNestUnderTheRequest_TraceparentOnlyWhereAllowed(t *testing.T) {
	t.Parallel()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	t.Cleanup(func() { _ = tp.Shutdown(context.Background()) })
	f, p := observedFixture(t, FixtureApp{TracerProvider: tp})

	// kappa (propagateTrace: true), with an expired token, under the
	// caller's trace.
	const callerTrace, callerSpan = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	exp.Reset()
	r := f.do(f.h, "POST", "/v1/tools/execute", "Bearer "+f.key, `{"toolId":"kappa_read","userId":"ann"}`,
		"Content-Type", "application/json", "traceparent", "00-"+callerTrace+"-"+callerSpan+"-01")
	if r.status != 200 {
		t.Fatalf("kappa_read: %d %s", r.status, r.body)
	}
	spans := exp.GetSpans()
	server := spanNamed(t, spans, "POST /v1/tools/execute")
	if server.SpanKind != trace.SpanKindServer || server.SpanContext.TraceID().String() != callerTrace || server.Parent.SpanID().String() != callerSpan {
		t.Fatalf("server span: kind %v trace %s parent %s", server.SpanKind, server.SpanContext.TraceID(), server.Parent.SpanID())
	}
	childOf(t, spanNamed(t, spans, "account.resolve"), server)
	childOf(t, spanNamed(t, spans, "oauth.refresh"), server)
	provider := spanNamed(t, spans, "provider kappa")
	childOf(t, provider, server)
	if provider.SpanKind != trace.SpanKindClient {
		t.Errorf("provider span kind %v", provider.SpanKind)
	}
	want := "00-" + callerTrace + "-" + provider.SpanContext.SpanID().String() + "-01"
	if got := p.seen("/api/read"); len(got) != 1 || got[0] != want {
		t.Errorf("kappa got traceparent %q, want [%s]", got, want)
	}
	if got := p.seen("/oauth/token"); len(got) != 1 || got[0] != "" {
		t.Errorf("the token endpoint got traceparent %q", got)
	}
	if !strings.Contains(f.logs.String(), `"trace_id":"`+callerTrace+`"`) {
		t.Error("no log line carries the trace id")
	}

	// delta (no propagateTrace): a span, and no header.
	exp.Reset()
	if st, _, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","input":{"id":"t9"}}`); st != 200 {
		t.Fatalf("delta: %d %s", st, raw)
	}
	spans = exp.GetSpans()
	childOf(t, spanNamed(t, spans, "provider delta"), spanNamed(t, spans, "POST /v1/tools/execute"))
	if got := p.seen("/v1/tasks/t9"); len(got) != 1 || got[0] != "" {
		t.Errorf("delta got traceparent %q", got)
	}

	// An MCP tools/call has a span named after the tool, under the request's.
	_, m, raw := f.json("POST", "/v1/sessions", `{"userId":"u1","connectors":["delta"],"pinned":["delta_get_task"]}`)
	id, _ := dataOf(m)["id"].(string)
	if id == "" {
		t.Fatalf("session: %s", raw)
	}
	exp.Reset()
	r = f.rpc(f.h, "/v1/sessions/"+id+"/mcp", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delta_get_task","arguments":{"id":"t10"}}}`,
		"Mcp-Protocol-Version", "2025-06-18")
	if r.status != 200 || !strings.Contains(string(r.body), "t10") {
		t.Fatalf("tools/call: %d %s", r.status, r.body)
	}
	spans = exp.GetSpans()
	call := spanNamed(t, spans, "tools/call delta_get_task")
	childOf(t, call, spanNamed(t, spans, "POST /v1/sessions/{id}/mcp"))
	childOf(t, spanNamed(t, spans, "provider delta"), call)
}

// TestTraces_Off_NoSpanNoHeader: without tracing no provider request
// carries a traceparent, even for a connector that accepts one, and no log
// line has a trace id.
func TestTraces_Off_NoSpanNoHeader(t *testing.T) {
	t.Parallel()
	f, p := observedFixture(t, FixtureApp{})
	if st, _, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"kappa_read","userId":"ann"}`); st != 200 {
		t.Fatalf("kappa_read: %d %s", st, raw)
	}
	if got := p.seen("/api/read"); len(got) != 1 || got[0] != "" {
		t.Errorf("kappa got traceparent %q with tracing off", got)
	}
	if strings.Contains(f.logs.String(), "trace_id") {
		t.Error("a log line has a trace id with tracing off")
	}
}

// TestReady_DatabaseAndMigrations: /ready is 200 on a migrated database,
// 503 "migrations pending" when one is missing, 503 "unreachable" when
// the database is closed; /health does not look at migrations. On SQLite
// and on PostgreSQL.
func TestReady_DatabaseAndMigrations(t *testing.T) {
	t.Parallel()
	onBothDatabases(t, readyScenario)
}

func readyScenario(t *testing.T, f *fixture) {
	check := func(path string, status int, want string) {
		t.Helper()
		r := f.do(f.h, "GET", path, "", "")
		if r.status != status || strings.TrimSpace(string(r.body)) != want {
			t.Errorf("GET %s: %d %s, want %d %s", path, r.status, r.body, status, want)
		}
	}
	check("/ready", 200, `{"data":{"status":"ready"}}`)
	states, err := f.store.MigrationStatus(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	last := states[len(states)-1].Version
	// The first pool writes (SQLite's writer, PostgreSQL's main pool).
	if _, err := f.store.Pools()[0].DB.ExecContext(context.Background(), `DELETE FROM schema_migrations WHERE version = $1`, last); err != nil {
		t.Fatal(err)
	}
	check("/ready", 503, `{"data":{"migrations":"pending","status":"unavailable"}}`)
	check("/health", 200, `{"data":{"status":"ok"}}`)
	f.store.Close()
	check("/ready", 503, `{"data":{"database":"unreachable","status":"unavailable"}}`)
	check("/health", 503, `{"data":{"database":"unreachable","status":"unavailable"}}`)
}

// TestMetrics_ProjectConnectors_FoldedIntoCustom: a project's own
// connector (an imported OpenAPI document, ids chosen by the project) is
// counted as connector and tool "custom", so its ids never become labels.
func TestMetrics_ProjectConnectors_FoldedIntoCustom(t *testing.T) {
	t.Parallel()
	f, _ := observedFixture(t, FixtureApp{Metrics: true})
	ctx := context.Background()
	data, err := os.ReadFile("../upstream/testdata/notes-31.yaml")
	if err != nil {
		t.Fatal(err)
	}
	con, _, err := upstream.ImportOpenAPI(ctx, data, upstream.ImportOptions{ID: "notes", BaseURL: "https://" + f.providerHost + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	def, _ := json.Marshal(con)
	if err := f.store.PutProjectConnector(ctx, store.ProjectConnector{ProjectID: f.project.ID, ConnectorID: "notes",
		Origin: catalog.OriginOpenAPI, Definition: def}); err != nil {
		t.Fatal(err)
	}
	if st, _, raw := f.json("POST", "/v1/connections", `{"connectorId":"notes","userId":"u1","credential":{"type":"api_key","apiKey":"delta-secret-key"}}`); st != 200 {
		t.Fatalf("connect: %s", raw)
	}
	if st, _, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"notes_list_notes","userId":"u1","input":{"q":"x"}}`); st != 200 {
		t.Fatalf("execute: %d %s", st, raw)
	}
	if st, _, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"notes_list_notes","userId":"u1","input":{"limit":500}}`); st != 400 {
		t.Fatalf("invalid input: %d %s", st, raw)
	}
	got := f.scrape(t)
	for series, v := range map[string]float64{
		`switchboard_tool_calls_total{connector="custom",outcome="ok",tool="custom"}`:                1,
		`switchboard_tool_calls_total{connector="custom",outcome="VALIDATION_ERROR",tool="custom"}`:  1,
		`switchboard_provider_request_duration_seconds_count{connector="custom",status_class="2xx"}`: 1,
	} {
		if got[series] != v {
			t.Errorf("%s = %v, want %v", series, got[series], v)
		}
	}
	for series := range got {
		if strings.Contains(series, "notes") {
			t.Errorf("a project's id became a label: %s", series)
		}
	}
}
