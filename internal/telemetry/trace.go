package telemetry

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// TracerName is the instrumentation scope of Switchboard's spans.
const TracerName = "github.com/switchboard-gw/switchboard"

// Tracer starts Switchboard's spans. A nil *Tracer is tracing off: it
// starts no span and returns the context it was given, so a hot path pays
// one nil check. Callers build attributes only when span.IsRecording().
type Tracer struct {
	tracer trace.Tracer
	// shutdown flushes and stops the provider StartTracing built; nil for
	// a provider given by the caller (tests).
	shutdown func(context.Context) error
}

// propagator reads and writes the W3C traceparent and tracestate headers
// only: baggage could carry a caller's data on to providers.
var propagator = propagation.TraceContext{}

// nothing is the span of a nil Tracer.
var nothing trace.Span = noop.Span{}

// NewTracer returns a Tracer on tp (a test's provider with an in-memory
// exporter); its shutdown is the caller's.
func NewTracer(tp trace.TracerProvider) *Tracer {
	return &Tracer{tracer: tp.Tracer(TracerName)}
}

// StartTracing returns a Tracer that exports spans over OTLP/HTTP in
// batches. The exporter reads the standard OTEL_EXPORTER_OTLP_* variables
// (endpoint, headers, timeout; http://localhost:4318 by default), the
// sampler OTEL_TRACES_SAMPLER, and the resource OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES over service.name "switchboard". Export
// failures are logged to log at WARN (the SDK would print them to standard
// error).
func StartTracing(ctx context.Context, log *slog.Logger) (*Tracer, error) {
	version := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		version = bi.Main.Version
	}
	exp, err := otlptracehttp.New(ctx)
	if err != nil {
		return nil, fmt.Errorf("telemetry: OTLP exporter: %w", err)
	}
	res, err := resource.New(ctx,
		resource.WithAttributes(attribute.String("service.name", "switchboard"), attribute.String("service.version", version)),
		resource.WithFromEnv(), resource.WithTelemetrySDK())
	if err != nil {
		return nil, fmt.Errorf("telemetry: trace resource: %w", err)
	}
	// The SDK reports export failures through one process-wide handler.
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		log.Warn("tracing: could not export spans", "error", err.Error())
	}))
	tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
	return &Tracer{tracer: tp.Tracer(TracerName), shutdown: tp.Shutdown}, nil
}

// Shutdown exports the spans still buffered and stops the exporter.
func (t *Tracer) Shutdown(ctx context.Context) error {
	if t == nil || t.shutdown == nil {
		return nil
	}
	return t.shutdown(ctx)
}

// On reports whether spans are made, so a caller can skip building a span
// name.
func (t *Tracer) On() bool { return t != nil }

// Start starts an internal span under the one ctx carries.
func (t *Tracer) Start(ctx context.Context, name string) (context.Context, trace.Span) {
	if t == nil {
		return ctx, nothing
	}
	return t.tracer.Start(ctx, name)
}

// StartClient starts a span for a request this process sends.
func (t *Tracer) StartClient(ctx context.Context, name string) (context.Context, trace.Span) {
	if t == nil {
		return ctx, nothing
	}
	return t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindClient))
}

// StartServer starts the span of a request this process answers, as a
// child of the caller's span when its headers carry a traceparent.
func (t *Tracer) StartServer(ctx context.Context, name string, h http.Header) (context.Context, trace.Span) {
	if t == nil {
		return ctx, nothing
	}
	ctx = propagator.Extract(ctx, propagation.HeaderCarrier(h))
	return t.tracer.Start(ctx, name, trace.WithSpanKind(trace.SpanKindServer))
}

// Inject writes the traceparent (and tracestate) of ctx's span into h,
// for a provider that accepts them. It writes nothing when tracing is off
// or the span is not sampled in.
func (t *Tracer) Inject(ctx context.Context, h http.Header) {
	if t == nil || !trace.SpanContextFromContext(ctx).IsValid() {
		return
	}
	propagator.Inject(ctx, propagation.HeaderCarrier(h))
}

// WithTraceIDs wraps a log handler so that every line logged with the
// context of a span shows trace_id and span_id beside the request id.
// app wraps the logger with it only when tracing is on.
func WithTraceIDs(h slog.Handler) slog.Handler { return traceIDHandler{h} }

type traceIDHandler struct{ slog.Handler }

func (h traceIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if sc := trace.SpanContextFromContext(ctx); sc.IsValid() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()), slog.String("span_id", sc.SpanID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

func (h traceIDHandler) WithAttrs(attrs []slog.Attr) slog.Handler {
	return traceIDHandler{h.Handler.WithAttrs(attrs)}
}

func (h traceIDHandler) WithGroup(name string) slog.Handler {
	return traceIDHandler{h.Handler.WithGroup(name)}
}
