package execute

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"time"
	"unicode/utf8"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/telemetry"
)

// maxResponseBytes bounds a provider answer read into memory.
const maxResponseBytes = 10 << 20

// maxErrorBody bounds the provider body quoted in error.upstream.
const maxErrorBody = 2048

// response is a provider answer read in full.
type response struct {
	Status      int
	ContentType string
	Header      http.Header
	Body        []byte
}

// send authenticates and sends out, retrying once with a refreshed token
// when an OAuth provider answers 401. A 401 to a just-refreshed token puts
// the account in reauth_required.
func (e *Executor) send(ctx context.Context, out *outgoing, conn store.Connection, cred account.Credential, con *catalog.Connector) (*response, error) {
	m := method(con, cred)
	if m != nil && len(m.PathPrefixes) > 0 {
		if err := rewritePath(out.URL, con, m, cred); err != nil {
			return nil, err
		}
	}
	resp, used, err := e.sendOnce(ctx, out, conn, cred, con)
	if err != nil {
		return nil, err
	}
	if resp.Status == http.StatusUnauthorized && m != nil && m.TokenGrant() {
		// A token the gateway obtained itself was revoked or ended early
		// (a Salesforce session timeout): get a new one once.
		e.tokens.drop(tokenKey(conn))
		if resp, _, err = e.sendOnce(ctx, out, conn, cred, con); err != nil {
			return nil, err
		}
	}
	if resp.Status == http.StatusUnauthorized && cred.Type == catalog.AuthOAuth2 && cred.RefreshToken != "" {
		refreshed, err := e.refreshToken(ctx, conn, used, con, m, true)
		if err != nil {
			return nil, err
		}
		resp, _, err = e.sendOnce(ctx, out, conn, refreshed, con)
		if err != nil {
			return nil, err
		}
		if resp.Status == http.StatusUnauthorized {
			if serr := e.store.SetConnectionStatus(ctx, conn.ID, conn.Revision, store.StatusReauthRequired); serr != nil {
				e.log.ErrorContext(ctx, "could not mark connection for reauthorization", "connection_id", conn.ID, "error", serr.Error())
			}
			return nil, reauth(conn)
		}
	}
	if resp.Status >= 400 {
		return nil, upstreamError(resp, con.ID)
	}
	return resp, nil
}

func (e *Executor) sendOnce(ctx context.Context, out *outgoing, conn store.Connection, cred account.Credential, con *catalog.Connector) (*response, account.Credential, error) {
	req, err := http.NewRequestWithContext(ctx, out.Method, out.URL.String(), nil)
	if err != nil {
		return nil, cred, apierr.New(apierr.ExecutionError, "the request to %s could not be built", con.ID)
	}
	if out.Body != nil {
		body := out.Body
		req.Body = io.NopCloser(bytes.NewReader(body))
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(body)), nil }
		req.ContentLength = int64(len(body))
	}
	for k, v := range out.Header {
		req.Header[k] = append([]string(nil), v...)
	}
	req.Header.Set("User-Agent", "Switchboard/1")
	if err := fieldHeaders(req.Header, con, cred.Connection); err != nil {
		return nil, cred, err
	}
	used, err := e.authenticate(ctx, req, out.Body, conn, cred, con)
	if err != nil {
		return nil, cred, err
	}
	// A token the gateway obtained itself (client credentials, a JWT
	// grant) never reaches a stored payload either.
	if out.keepSecrets {
		out.secrets = append(out.secrets, used.Secrets()...)
	}
	r, err := e.do(ctx, req, out, con)
	if r != nil {
		r.Body = scrubSecrets(r.Body, used)
	}
	return r, used, err
}

// do sends one authenticated request to the provider and reads its answer,
// in a client span named after the connector (traceparent goes along only
// when the connector accepts it). It adds the provider's time (the request
// and the whole answer, wall clock whatever clock e.now is) and status to
// out for the execution log, and records them in the provider metric.
func (e *Executor) do(ctx context.Context, req *http.Request, out *outgoing, con *catalog.Connector) (*response, error) {
	span := noSpan
	if e.tracer.On() {
		var sctx context.Context
		sctx, span = e.tracer.StartClient(ctx, "provider "+telemetry.ConnectorLabel(con))
		defer span.End()
		if span.IsRecording() {
			span.SetAttributes(attribute.String("switchboard.connector", telemetry.ConnectorLabel(con)),
				attribute.String("http.request.method", req.Method), attribute.String("server.address", req.URL.Hostname()))
		}
		if con.API.PropagateTrace {
			e.tracer.Inject(sctx, req.Header)
		}
	}
	start := time.Now()
	status := 0
	defer func() {
		took := time.Since(start)
		out.took += took
		e.metrics.ProviderCall(con, status, took)
		if span.IsRecording() {
			if status > 0 {
				span.SetAttributes(attribute.Int("http.response.status_code", status))
			}
			if status == 0 || status >= 500 {
				span.SetStatus(codes.Error, telemetry.StatusClass(status))
			}
		}
	}()
	resp, err := e.clientFor(con.ID, req.URL.Scheme == "http").Do(req)
	if err != nil {
		return nil, e.transportError(ctx, err, con.ID, req.URL.Host)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes+1))
	out.status = resp.StatusCode
	if err != nil {
		return nil, e.transportError(ctx, err, con.ID, req.URL.Host)
	}
	status = resp.StatusCode
	if len(body) > maxResponseBytes {
		return nil, apierr.New(apierr.UpstreamError, "%s answered more than %d bytes; narrow the request", con.ID, maxResponseBytes)
	}
	return &response{Status: resp.StatusCode, ContentType: resp.Header.Get("Content-Type"), Header: resp.Header, Body: body}, nil
}

// noSpan is the span of an untraced call.
var noSpan = trace.SpanFromContext(context.Background())

// transportError maps a failure to reach the provider. A failure to get
// any answer names its cause (reachCause) in the message and in a WARN log
// line with the connector and host.
func (e *Executor) transportError(ctx context.Context, err error, connector, host string) error {
	switch {
	case errors.Is(err, netguard.ErrForbiddenAddress):
		return apierr.New(apierr.ForbiddenEndpoint, "the %s address resolves to a private or local network, which Switchboard does not reach", connector)
	case errors.Is(err, errRedirectOffBase):
		return apierr.New(apierr.ForbiddenEndpoint, "%s redirected the request outside its API base URL; Switchboard does not follow it with the account's credential", connector)
	case errors.Is(err, netguard.ErrRedirectBody):
		return &apierr.Error{Code: apierr.UpstreamError, Upstream: &apierr.Upstream{},
			Message: connector + " redirected the request to another host; Switchboard does not resend a request body there"}
	case errors.Is(err, netguard.ErrRedirectDowngrade):
		return &apierr.Error{Code: apierr.UpstreamError, Upstream: &apierr.Upstream{},
			Message: connector + " redirected the request from https to plain http; Switchboard does not follow it"}
	case errors.Is(err, netguard.ErrTooManyRedirects):
		return &apierr.Error{Code: apierr.UpstreamError, Upstream: &apierr.Upstream{}, Message: connector + " redirected the request more than 5 times"}
	}
	return e.unreachable(ctx, err, "provider", connector, connector, host)
}

// unreachable is the UPSTREAM_ERROR of a request that got no answer, with
// its cause, logged at WARN. kind says what was called ("provider", "token
// endpoint", "MCP server") and subject names it in the message. A request
// the caller cancelled is not logged.
func (e *Executor) unreachable(ctx context.Context, err error, kind, subject, connector, host string) *apierr.Error {
	cause, timeout := reachCause(err)
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		cause = "the request was cancelled"
	} else {
		e.log.WarnContext(ctx, "could not reach "+kind, "connector_id", connector, "host", host, "cause", cause)
	}
	msg := "could not reach " + subject + " at " + host + ": " + cause
	if timeout {
		msg = subject + " did not answer in time"
		if cause != causeNoAnswerInTime {
			msg += " (" + cause + ")"
		}
	}
	return &apierr.Error{Code: apierr.UpstreamError, Upstream: &apierr.Upstream{}, Message: msg}
}

// upstreamError maps a provider's error answer: 4xx is 400
// EXECUTION_ERROR, 5xx 502 UPSTREAM_ERROR, both quoting the provider.
func upstreamError(r *response, connector string) error {
	e := &apierr.Error{
		Code:     apierr.ExecutionError,
		Upstream: &apierr.Upstream{Status: r.Status, Body: truncate(r.Body, maxErrorBody)},
		Message:  connector + " refused the request with HTTP " + strconv.Itoa(r.Status) + "; see error.upstream",
	}
	if r.Status >= 500 {
		e.Code = apierr.UpstreamError
		e.Message = connector + " failed with HTTP " + strconv.Itoa(r.Status) + "; try again later"
	}
	if r.Status == http.StatusTooManyRequests {
		e.Message = connector + " is rate limiting these calls; retry after the Retry-After delay"
		e.RetryAfter = r.Header.Get("Retry-After")
	}
	return e
}

// truncate cuts a body to n bytes at a character boundary.
func truncate(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return string(b[:cut]) + "…"
}

// toolResult decodes a successful answer and selects the part the tool's
// definition names.
func toolResult(tool *catalog.Tool, r *response) (any, error) {
	if tool.Request != nil && tool.Request.Response == "" && tool.Request.GraphQL == "" && len(tool.Request.Omit) == 0 && json.Valid(r.Body) {
		// Nothing to select: the provider's JSON passes through undecoded.
		return json.RawMessage(r.Body), nil
	}
	v := decodeBody(r)
	if tool.Request != nil {
		for _, p := range tool.Request.Omit {
			catalog.DeletePath(v, p)
		}
	}
	if tool.Request != nil && tool.Request.GraphQL != "" {
		if m, ok := v.(map[string]any); ok {
			if errs, ok := m["errors"]; ok && m["data"] == nil {
				b, _ := json.Marshal(errs)
				return nil, &apierr.Error{Code: apierr.ExecutionError, Upstream: &apierr.Upstream{Status: r.Status, Body: truncate(b, maxErrorBody)},
					Message: tool.Connector().ID + " refused the GraphQL request; see error.upstream"}
			}
		}
	}
	if tool.Request != nil && tool.Request.Response != "" {
		v = catalog.SelectPath(v, tool.Request.Response)
	}
	return v, nil
}

// decodeBody reads JSON as JSON and anything else as text.
func decodeBody(r *response) any {
	if len(r.Body) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(r.Body, &v) == nil {
		return v
	}
	return string(r.Body)
}
