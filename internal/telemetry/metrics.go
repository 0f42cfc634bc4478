// Package telemetry holds Switchboard's Prometheus metrics and OpenTelemetry
// traces. Both are off unless configured, and both cost a nil check when
// off: a nil *Metrics records nothing and a nil *Tracer starts no span, so
// the feature packages call them unconditionally.
//
// Labels are bounded by construction: routes are the mux patterns, never
// paths; connectors and tools are catalog ids, and a project's own
// connectors and tools (ids chosen by each project) are folded into
// "custom"; outcomes are the API's error codes. No user id, project id or
// free text ever becomes a label.
package telemetry

import (
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/policy"
)

// Namespace prefixes every metric Switchboard defines.
const Namespace = "switchboard"

// Labels that stand for a bounded group of unbounded values.
const (
	// Custom is the connector and tool label of a project's own
	// connectors (imported OpenAPI APIs, MCP servers).
	Custom = "custom"
	// Unknown is the connector and tool label of a call naming a tool
	// that does not exist.
	Unknown = "unknown"
	// Unmatched is the route label of a request no route took (an unknown
	// path, or a /v1 request refused before routing for its API key).
	Unmatched = "unmatched"
	// OutcomeOK is the outcome label of a call that succeeded.
	OutcomeOK = "ok"
)

// Results of a token refresh.
const (
	RefreshOK     = "ok"
	RefreshFailed = "failed"
	RefreshReauth = "reauth"
)

// Results of a webhook delivery attempt.
const (
	DeliveryOK     = "ok"
	DeliveryRetry  = "retry"
	DeliveryFailed = "failed"
)

// Results of a trigger ingress delivery.
const (
	IngressAccepted = "accepted"
	IngressRejected = "rejected"
	IngressLimited  = "rate_limited"
)

// Metrics are the process's Prometheus metrics, in a registry of their own
// (not the global default), so tests and several applications in one
// process do not share counters. A nil *Metrics records nothing.
type Metrics struct {
	reg *prometheus.Registry

	httpRequests     *prometheus.CounterVec
	httpDuration     *prometheus.HistogramVec
	toolCalls        *prometheus.CounterVec
	proxyCalls       *prometheus.CounterVec
	providerDuration *prometheus.HistogramVec
	tokenRefreshes   *prometheus.CounterVec
	webhookDelivered *prometheus.CounterVec
	triggerIngress   *prometheus.CounterVec

	// routes holds the pre-bound series of each route pattern.
	routes sync.Map // pattern -> *Route
	// toolOK holds each tool's pre-bound "ok" counter, providers each
	// connector's pre-bound latency histograms, so the common case does
	// no label lookup.
	toolOK    sync.Map // tool label -> prometheus.Counter
	providers sync.Map // connector label -> *providerSeries
}

// NewMetrics returns the metrics, registered in a new registry with the Go
// runtime and process collectors.
func NewMetrics() *Metrics {
	m := &Metrics{reg: prometheus.NewRegistry()}
	m.httpRequests = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "http_requests_total",
		Help: "HTTP requests answered, by route pattern and status class.",
	}, []string{"route", "status_class"})
	m.httpDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: Namespace, Name: "http_request_duration_seconds",
		Help:    "Time from a request's arrival to its handler's return, by route pattern and status class.",
		Buckets: prometheus.DefBuckets,
	}, []string{"route", "status_class"})
	m.toolCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "tool_calls_total",
		Help: "Tool executions (REST, session and MCP), by connector, tool and outcome (ok or an error code).",
	}, []string{"connector", "tool", "outcome"})
	m.proxyCalls = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "proxy_calls_total",
		Help: "Raw proxy requests, by connector and outcome (ok or an error code).",
	}, []string{"connector", "outcome"})
	m.providerDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Namespace: Namespace, Name: "provider_request_duration_seconds",
		Help:    "Time a provider took to answer one request, by connector and status class (error: no answer).",
		Buckets: prometheus.DefBuckets,
	}, []string{"connector", "status_class"})
	m.tokenRefreshes = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "token_refreshes_total",
		Help: "OAuth token refreshes this process sent to a token endpoint, by connector and result (ok, failed, reauth).",
	}, []string{"connector", "result"})
	m.webhookDelivered = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "webhook_deliveries_total",
		Help: "Webhook delivery attempts, by result (ok, retry: another attempt is scheduled, failed: given up).",
	}, []string{"result"})
	m.triggerIngress = prometheus.NewCounterVec(prometheus.CounterOpts{
		Namespace: Namespace, Name: "trigger_ingress_total",
		Help: "Provider deliveries to trigger ingress, by result (accepted, rejected, rate_limited) and reason.",
	}, []string{"result", "reason"})
	m.reg.MustRegister(m.httpRequests, m.httpDuration, m.toolCalls, m.proxyCalls, m.providerDuration,
		m.tokenRefreshes, m.webhookDelivered, m.triggerIngress,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Registry is where the metrics are registered, for collectors of other
// parts (the store's pools and caches, the execution log).
func (m *Metrics) Registry() *prometheus.Registry { return m.reg }

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{}))
	return mux
}

// CounterFunc registers a counter whose value f reads at scrape time, for
// a part that keeps its own count (the execution log's dropped records).
// name is without the namespace.
func (m *Metrics) CounterFunc(name, help string, f func() uint64) {
	if m == nil || f == nil {
		return
	}
	m.reg.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Namespace: Namespace, Name: name, Help: help},
		func() float64 { return float64(f()) }))
}

// ExecutionLogDrops registers switchboard_execution_log_dropped_total,
// read from dropped at scrape time: the execution log records it could not
// queue (the call itself succeeded). The log keeps its own count; this is
// the one hook between the two, so neither package imports the other.
func (m *Metrics) ExecutionLogDrops(dropped func() uint64) {
	m.CounterFunc("execution_log_dropped_total",
		"Execution log records dropped because the log's queue was full (the calls themselves were answered).", dropped)
}

// StatusClass names the class of an HTTP status: "2xx" and so on, or
// "error" for 0 (no answer).
func StatusClass(status int) string {
	if status < 100 || status > 599 {
		return "error"
	}
	return classes[status/100-1]
}

var classes = [5]string{"1xx", "2xx", "3xx", "4xx", "5xx"}

// classIndex is StatusClass as an index: 0-4 for 1xx-5xx, 5 for no answer.
func classIndex(status int) int {
	if status < 100 || status > 599 {
		return 5
	}
	return status/100 - 1
}

// Route holds one route pattern's series, bound on first use per status
// class. A nil *Route records nothing.
type Route struct {
	m       *Metrics
	pattern string
	series  [6]atomic.Pointer[routeSeries]
}

type routeSeries struct {
	count    prometheus.Counter
	duration prometheus.Observer
}

// Route returns the series of a route pattern, made once per pattern; nil
// when m is nil.
func (m *Metrics) Route(pattern string) *Route {
	if m == nil {
		return nil
	}
	if r, ok := m.routes.Load(pattern); ok {
		return r.(*Route)
	}
	r, _ := m.routes.LoadOrStore(pattern, &Route{m: m, pattern: pattern})
	return r.(*Route)
}

// Observe counts one answered request and its duration.
func (r *Route) Observe(status int, d time.Duration) {
	if r == nil {
		return
	}
	i := classIndex(status)
	s := r.series[i].Load()
	if s == nil {
		class := StatusClass(status)
		s = &routeSeries{
			count:    r.m.httpRequests.WithLabelValues(r.pattern, class),
			duration: r.m.httpDuration.WithLabelValues(r.pattern, class),
		}
		r.series[i].Store(s)
	}
	s.count.Inc()
	s.duration.Observe(d.Seconds())
}

// ConnectorLabel is a connector's label: its id for a built-in connector,
// Custom for a project's own.
func ConnectorLabel(con *catalog.Connector) string {
	if con == nil {
		return Unknown
	}
	if con.Origin != "" {
		return Custom
	}
	return con.ID
}

// ToolLabels are a tool's connector and tool labels: their ids for a
// built-in tool, Custom for a project's own, Unknown for none.
func ToolLabels(tool *catalog.Tool) (connector, toolID string) {
	if tool == nil {
		return Unknown, Unknown
	}
	con := tool.Connector()
	if con == nil || con.Origin != "" {
		return Custom, Custom
	}
	return con.ID, tool.ID
}

// Outcome is the outcome label of an error: OutcomeOK for nil, the API
// error code otherwise (INTERNAL_ERROR for an error without one).
func Outcome(err error) string {
	if err == nil {
		return OutcomeOK
	}
	if _, ok := errors.AsType[*policy.ApprovalRequiredError](err); ok {
		return "APPROVAL_REQUIRED" // held by an ask rule (docs/policies.md)
	}
	if e, ok := apierr.As(err); ok {
		return string(e.Code)
	}
	return string(apierr.InternalError)
}

// ToolCall counts one tool execution; tool is nil when the call named no
// known tool.
func (m *Metrics) ToolCall(tool *catalog.Tool, err error) {
	if m == nil {
		return
	}
	connector, id := ToolLabels(tool)
	if err != nil {
		m.toolCalls.WithLabelValues(connector, id, Outcome(err)).Inc()
		return
	}
	if c, ok := m.toolOK.Load(id); ok {
		c.(prometheus.Counter).Inc()
		return
	}
	c := m.toolCalls.WithLabelValues(connector, id, OutcomeOK)
	m.toolOK.Store(id, c)
	c.Inc()
}

// ProxyCall counts one raw proxy request; con is nil when the call named
// no known connector.
func (m *Metrics) ProxyCall(con *catalog.Connector, err error) {
	if m == nil {
		return
	}
	m.proxyCalls.WithLabelValues(ConnectorLabel(con), Outcome(err)).Inc()
}

type providerSeries [6]atomic.Pointer[prometheus.Observer]

// ProviderCall records how long a provider took to answer one request;
// status is 0 when no answer came.
func (m *Metrics) ProviderCall(con *catalog.Connector, status int, d time.Duration) {
	if m == nil {
		return
	}
	label := ConnectorLabel(con)
	v, ok := m.providers.Load(label)
	if !ok {
		v, _ = m.providers.LoadOrStore(label, &providerSeries{})
	}
	ps := v.(*providerSeries)
	i := classIndex(status)
	o := ps[i].Load()
	if o == nil {
		obs := m.providerDuration.WithLabelValues(label, StatusClass(status))
		o = &obs
		ps[i].Store(o)
	}
	(*o).Observe(d.Seconds())
}

// TokenRefresh counts one refresh sent to a token endpoint; result is
// RefreshOK, RefreshFailed or RefreshReauth.
func (m *Metrics) TokenRefresh(connector, result string) {
	if m == nil {
		return
	}
	m.tokenRefreshes.WithLabelValues(connector, result).Inc()
}

// WebhookDelivery counts one delivery attempt; result is DeliveryOK,
// DeliveryRetry or DeliveryFailed.
func (m *Metrics) WebhookDelivery(result string) {
	if m == nil {
		return
	}
	m.webhookDelivered.WithLabelValues(result).Inc()
}

// TriggerIngress counts one provider delivery to trigger ingress; result
// is IngressAccepted, IngressRejected or IngressLimited, reason a fixed
// word of the trigger package.
func (m *Metrics) TriggerIngress(result, reason string) {
	if m == nil {
		return
	}
	m.triggerIngress.WithLabelValues(result, reason).Inc()
}
