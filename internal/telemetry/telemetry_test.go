package telemetry

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// Off, every call is a nil check: nothing is allocated, no span is made and
// no header is written.
func TestOff_NilMetricsAndTracer_AllocateNothing(t *testing.T) {
	var m *Metrics
	var tr *Tracer
	con := &catalog.Connector{ID: "github"}
	route := m.Route("POST /v1/tools/execute")
	h := http.Header{}
	ctx := context.Background()
	allocs := testing.AllocsPerRun(100, func() {
		m.ToolCall(nil, nil)
		m.ProxyCall(con, nil)
		m.ProviderCall(con, 200, time.Millisecond)
		m.TokenRefresh("github", RefreshOK)
		m.WebhookDelivery(DeliveryOK)
		m.TriggerIngress(IngressAccepted, "fired")
		route.Observe(200, time.Millisecond)
		sctx, span := tr.Start(ctx, "x")
		if span.IsRecording() || sctx != ctx {
			t.Fatal("a nil tracer made a span")
		}
		span.End()
		tr.Inject(sctx, h)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per call with telemetry off", allocs)
	}
	if len(h) != 0 {
		t.Errorf("a nil tracer wrote headers: %v", h)
	}
}

// On, the common case (a tool's ok, a route's answer, a provider's
// latency) uses series bound at first use and allocates nothing after.
func TestOn_BoundSeries_AllocateNothing(t *testing.T) {
	m := NewMetrics()
	// Ids built at run time, as the catalog's are (a constant string
	// would hide an allocation converting it to a map key).
	con := &catalog.Connector{ID: strings.Repeat("g", 6)}
	route := m.Route("POST /v1/tools/execute")
	m.ToolCall(nil, nil)
	m.ProviderCall(con, 200, time.Millisecond)
	route.Observe(200, time.Millisecond)
	allocs := testing.AllocsPerRun(100, func() {
		m.ToolCall(nil, nil)
		m.ProviderCall(con, 200, time.Millisecond)
		route.Observe(200, time.Millisecond)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per call on bound series", allocs)
	}
	if m.Route("POST /v1/tools/execute") != route {
		t.Error("a route's series were made twice")
	}
}

func TestLabels_AreBounded(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		con  *catalog.Connector
		want string
	}{
		{&catalog.Connector{ID: "github"}, "github"},
		{&catalog.Connector{ID: "acme_internal_api", Origin: catalog.OriginMCP}, Custom},
		{&catalog.Connector{ID: "their_openapi", Origin: "openapi"}, Custom},
		{nil, Unknown},
	} {
		if got := ConnectorLabel(c.con); got != c.want {
			t.Errorf("ConnectorLabel(%v) = %q, want %q", c.con, got, c.want)
		}
	}
	if c, tl := ToolLabels(nil); c != Unknown || tl != Unknown {
		t.Errorf("ToolLabels(nil) = %q, %q", c, tl)
	}
	for err, want := range map[error]string{
		nil:                                   OutcomeOK,
		apierr.New(apierr.UpstreamError, "x"): "UPSTREAM_ERROR",
		errors.New("database is down"):        "INTERNAL_ERROR",
	} {
		if got := Outcome(err); got != want {
			t.Errorf("Outcome(%v) = %q, want %q", err, got, want)
		}
	}
	for status, want := range map[int]string{0: "error", 99: "error", 101: "1xx", 200: "2xx", 304: "3xx", 404: "4xx", 503: "5xx", 600: "error"} {
		if got := StatusClass(status); got != want {
			t.Errorf("StatusClass(%d) = %q, want %q", status, got, want)
		}
	}
}

func TestMetrics_ExposedInTheirOwnRegistry(t *testing.T) {
	t.Parallel()
	a, b := NewMetrics(), NewMetrics()
	a.WebhookDelivery(DeliveryFailed)
	a.ExecutionLogDrops(func() uint64 { return 3 })
	scrape := func(m *Metrics) string {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		return rec.Body.String()
	}
	if s := scrape(a); !strings.Contains(s, `switchboard_webhook_deliveries_total{result="failed"} 1`) ||
		!strings.Contains(s, "switchboard_execution_log_dropped_total 3") {
		t.Errorf("first registry:\n%s", s)
	}
	if s := scrape(b); strings.Contains(s, `result="failed"`) || strings.Contains(s, "execution_log_dropped") {
		t.Errorf("the second registry shares the first's series:\n%s", s)
	}
	rec := httptest.NewRecorder()
	a.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/other", nil))
	if rec.Code != 404 {
		t.Errorf("GET /other: %d", rec.Code)
	}
}

func TestTracer_ServerSpanFollowsTheCaller_LogsCarryIDs(t *testing.T) {
	t.Parallel()
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	tr := NewTracer(tp)
	h := http.Header{"Traceparent": {"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}}
	ctx, span := tr.StartServer(context.Background(), "GET /x", h)
	var buf bytes.Buffer
	log := slog.New(WithTraceIDs(slog.NewJSONHandler(&buf, nil))).With("k", "v")
	log.InfoContext(ctx, "inside")
	log.Info("outside")
	out := http.Header{}
	tr.Inject(ctx, out)
	span.End()
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], `"trace_id":"4bf92f3577b34da6a3ce929d0e0e4736"`) ||
		!strings.Contains(lines[0], `"span_id":"`+span.SpanContext().SpanID().String()+`"`) || strings.Contains(lines[1], "trace_id") {
		t.Errorf("log lines:\n%s", buf.String())
	}
	if want := "00-4bf92f3577b34da6a3ce929d0e0e4736-" + span.SpanContext().SpanID().String() + "-01"; out.Get("traceparent") != want {
		t.Errorf("injected %q, want %q", out.Get("traceparent"), want)
	}
	if s := exp.GetSpans(); len(s) != 1 || s[0].Parent.SpanID().String() != "00f067aa0ba902b7" {
		t.Errorf("spans: %+v", s)
	}
}

// StartTracing exports over OTLP/HTTP to the endpoint of the standard
// variable, under service.name "switchboard", and Shutdown flushes.
func TestStartTracing_ExportsToTheConfiguredEndpoint(t *testing.T) {
	type export struct {
		path string
		body []byte
	}
	got := make(chan export, 4)
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- export{r.URL.Path, b}
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_SERVICE_NAME", "")
	tr, err := StartTracing(context.Background(), slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	_, span := tr.Start(context.Background(), "a-span-name")
	span.End()
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	select {
	case e := <-got:
		if e.path != "/v1/traces" || !bytes.Contains(e.body, []byte("a-span-name")) || !bytes.Contains(e.body, []byte("switchboard")) {
			t.Errorf("export to %s: %q", e.path, e.body)
		}
	default:
		t.Fatal("nothing was exported")
	}
}
