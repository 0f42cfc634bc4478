package httpapi

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-gw/switchboard/internal/logging"
	"github.com/switchboard-gw/switchboard/internal/telemetry"
)

// requestInfo is filled while a request is handled and read by the access log.
type requestInfo struct {
	route     string
	projectID string
	// start is when the request arrived and keyID the API key it came
	// with, for the execution log (origin).
	start time.Time
	keyID string
	// series are the route's metrics (nil when metrics are off).
	series *telemetry.Route
}

type infoKey struct{}

func infoFrom(ctx context.Context) *requestInfo {
	info, _ := ctx.Value(infoKey{}).(*requestInfo)
	return info
}

// statusRecorder remembers the status and size of a response.
type statusRecorder struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (r *statusRecorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *statusRecorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += n
	return n, err
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (r *statusRecorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// requestID returns the caller's X-Request-Id when it is a short token of
// safe characters, else a new random id.
func requestID(r *http.Request) string {
	if id := r.Header.Get("X-Request-Id"); id != "" && len(id) <= 64 && strings.IndexFunc(id, unsafeIDRune) < 0 {
		return id
	}
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func unsafeIDRune(c rune) bool {
	return !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.')
}

// instrument gives every request an id (header X-Request-Id and every log
// line), recovers a panic into 500 INTERNAL_ERROR without internals, and
// writes one access log line. It logs the matched route pattern rather than
// the path, since paths of the public routes carry tokens. With metrics on
// it counts the request by route pattern and status class; with tracing on
// the request gets a server span named after its route pattern, under the
// caller's traceparent when it sent one.
func (s *Server) instrument(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := requestID(r)
		info := &requestInfo{start: start}
		ctx := context.WithValue(logging.WithRequestID(r.Context(), id), infoKey{}, info)
		span := noSpan
		if s.tracer.On() {
			ctx, span = s.tracer.StartServer(ctx, r.Method, r.Header)
		}
		r = r.WithContext(ctx)
		w.Header().Set("X-Request-Id", id)
		w.Header().Set("X-Content-Type-Options", "nosniff")
		rec := &statusRecorder{ResponseWriter: w}
		s.withBodyDeadline(rec, r)

		defer func() {
			if p := recover(); p != nil {
				if p == http.ErrAbortHandler {
					panic(p)
				}
				s.log.ErrorContext(ctx, "panic", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				if rec.status == 0 {
					s.fail(rec, r, fmt.Errorf("panic: %v", p))
				}
			}
			route := info.route
			if route == "" {
				route = telemetry.Unmatched
			}
			elapsed := time.Since(start)
			if s.metrics != nil {
				series := info.series
				if series == nil {
					series = s.unmatched
				}
				series.Observe(cmp.Or(rec.status, http.StatusOK), elapsed)
			}
			if span.IsRecording() {
				endRequestSpan(span, r.Method, route, id, cmp.Or(rec.status, http.StatusOK))
			}
			attrs := []slog.Attr{
				slog.String("method", r.Method),
				slog.String("route", route),
				slog.Int("status", rec.status),
				slog.Int("bytes", rec.bytes),
				slog.Float64("duration_ms", float64(elapsed.Microseconds())/1000),
			}
			if info.projectID != "" {
				attrs = append(attrs, slog.String("project_id", info.projectID))
			}
			s.log.LogAttrs(ctx, slog.LevelInfo, "request", attrs...)
		}()
		next.ServeHTTP(rec, r)
	})
}

// noSpan is the span of an untraced request.
var noSpan = trace.SpanFromContext(context.Background())

// endRequestSpan names a request's span after its route pattern (never the
// path, which may carry tokens), records its outcome and ends it.
func endRequestSpan(span trace.Span, method, route, requestID string, status int) {
	span.SetName(route)
	span.SetAttributes(attribute.String("http.request.method", method), attribute.String("http.route", route),
		attribute.Int("http.response.status_code", status), attribute.String("switchboard.request_id", requestID))
	if status >= 500 {
		span.SetStatus(codes.Error, telemetry.StatusClass(status))
	}
	span.End()
}
