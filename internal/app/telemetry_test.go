package app

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/execlog"
)

// TestRun_MetricsListener_ServesMetricsOnly: with SWITCHBOARD_METRICS_ADDR
// the metrics listener serves GET /metrics (counting a request made on the
// base listener by its route) and nothing else, and the base listener does
// not serve them.
func TestRun_MetricsListener_ServesMetricsOnly(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.MetricsAddr = "127.0.0.1:0"
	addrs := make(chan [2]string, 4)
	a, err := New(context.Background(), cfg, Options{OnListen: func(name, addr string) { addrs <- [2]string{name, addr} }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	got := map[string]string{}
	for len(got) < 3 {
		select {
		case l := <-addrs:
			got[l[0]] = "http://" + l[1]
		case err := <-done:
			t.Fatalf("Run returned before listening: %v", err)
		case <-time.After(10 * time.Second):
			t.Fatalf("listening on %v only", got)
		}
	}
	get := func(url string) (int, string) {
		t.Helper()
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if st, _ := get(got["base"] + "/health"); st != 200 {
		t.Fatalf("health: %d", st)
	}
	st, body := get(got["metrics"] + "/metrics")
	if st != 200 || !strings.Contains(body, `switchboard_http_requests_total{route="GET /health",status_class="2xx"} 1`) ||
		!strings.Contains(body, "go_sql_open_connections") {
		t.Fatalf("metrics: %d\n%s", st, body)
	}
	if st, _ := get(got["metrics"] + "/health"); st != 404 {
		t.Errorf("the metrics listener answered /health with %d", st)
	}
	if st, _ := get(got["base"] + "/metrics"); st != 404 {
		t.Errorf("the base listener answered /metrics with %d", st)
	}
}

// TestNew_TelemetryOffByDefault: without the settings there are no
// metrics, no tracer and no metrics listener.
func TestNew_TelemetryOffByDefault(t *testing.T) {
	t.Parallel()
	a, err := New(context.Background(), testConfig(t), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if a.Metrics != nil || a.Tracer != nil {
		t.Fatalf("metrics %v tracer %v; want both off", a.Metrics, a.Tracer)
	}
}

// TestMetrics_CountTheExecutionLogDrops: the execution log's dropped
// records reach the metrics through the function the wiring passes.
func TestMetrics_CountTheExecutionLogDrops(t *testing.T) {
	t.Parallel()
	// A queue of two and no writer running: of five records, three drop.
	a, err := New(context.Background(), testConfig(t), Options{Metrics: true, ExecLog: execlog.Options{Queue: 2, Interval: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for i := range 5 {
		e := execlog.Origin{Start: time.Now(), RequestID: fmt.Sprint("r", i)}.Entry("p", "u")
		a.ExecLog.Add(&e)
	}
	rec := httptest.NewRecorder()
	a.Metrics.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	if !strings.Contains(rec.Body.String(), "\nswitchboard_execution_log_dropped_total 3\n") {
		t.Fatalf("dropped records (log says %d):\n%s", a.ExecLog.Dropped(), rec.Body)
	}
}
