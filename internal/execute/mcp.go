package execute

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/codes"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/execlog"
	"github.com/switchboard-gw/switchboard/internal/quota"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/telemetry"
	"github.com/switchboard-gw/switchboard/internal/tenant"
	"github.com/switchboard-gw/switchboard/internal/upstream"
)

// callMCP runs a tool of a project's MCP server through the go-sdk client:
// the server's static headers, and the user's credential (when they
// connected one) as Authorization. A tool error is EXECUTION_ERROR, an
// unreachable server UPSTREAM_ERROR.
func (e *Executor) callMCP(ctx context.Context, t tenant.Tenant, c Call, tool *catalog.Tool, input map[string]any, rec *execlog.Entry) (any, error) {
	con := tool.Connector()
	conn, err := e.accounts.Resolve(ctx, t, account.Use{UserID: c.UserID, ConnectorID: con.ID,
		ConnectionID: c.ConnectionID, Preferred: c.Preferred, AllowGlobal: c.AllowGlobal, ToolID: tool.ID})
	var ae *apierr.Error
	switch {
	case errors.As(err, &ae) && ae.Code == apierr.MissingConnection && hasNoneMethod(con):
		conn = store.Connection{} // the server takes calls without a user account
	case err != nil:
		return nil, err
	}
	if err := e.enforce(ctx, t, c.Policy, c.UserID, toolSubject(tool, conn, input), rec); err != nil {
		return nil, err
	}
	authz, err := e.mcpAuthorization(ctx, conn, con, false)
	if err != nil {
		return nil, err
	}
	k := mcpKey{con: con, connID: conn.ID, revision: conn.Revision, token: tokenMark(authz)}
	params := &mcp.CallToolParams{Name: tool.UpstreamName, Arguments: input}
	if rec != nil {
		rec.ConnectionID = conn.ID
	}
	if err := e.quotas.Admit(ctx, t, quota.Call{UserID: c.UserID, ConnectorID: con.ID, ToolID: tool.ID}); err != nil {
		return nil, err
	}
	res, err := e.sendMCP(ctx, t, authz, k, params, rec)
	if errors.Is(err, upstream.ErrUnauthorized) && conn.ID != "" {
		// As for any OAuth connector: a token refused before its expiry
		// (revoked, ended early) is refreshed once and the call retried; a
		// fresh token refused too asks the user to connect again.
		if fresh, ferr := e.mcpAuthorization(ctx, conn, con, true); ferr != nil {
			return nil, ferr
		} else if fresh != "" {
			authz, k.token = fresh, tokenMark(fresh)
			if res, err = e.sendMCP(ctx, t, authz, k, params, rec); errors.Is(err, upstream.ErrUnauthorized) {
				if serr := e.store.SetConnectionStatus(ctx, conn.ID, conn.Revision, store.StatusReauthRequired); serr != nil {
					e.log.ErrorContext(ctx, "could not mark connection for reauthorization", "connection_id", conn.ID, "error", serr.Error())
				}
				return nil, reauth(conn)
			}
		}
	}
	if cause, _ := reachCause(err); err != nil && cause != causeUnknown {
		return nil, e.unreachable(ctx, err, "MCP server", "MCP server "+con.ID, con.ID, hostOf(con.API.BaseURL))
	}
	if err != nil {
		return nil, &apierr.Error{Code: apierr.UpstreamError, Upstream: &apierr.Upstream{}, Message: "MCP server " + con.ID + " failed: " + upstream.Describe(err)}
	}
	if conn.ID != "" {
		e.used.touch(conn.ID, e.now())
	}
	text := contentText(res.Content)
	if res.IsError {
		return nil, &apierr.Error{Code: apierr.ExecutionError, Upstream: &apierr.Upstream{Body: truncate([]byte(text), maxErrorBody)},
			Message: "MCP server " + con.ID + " reported an error from " + tool.UpstreamName + "; see error.upstream"}
	}
	if !textOnly(res.Content) {
		// Images, audio and resources pass through as the server sent them.
		return &MCPResult{Content: res.Content, StructuredContent: res.StructuredContent}, nil
	}
	if res.StructuredContent != nil {
		return res.StructuredContent, nil
	}
	if json.Valid([]byte(text)) && strings.TrimSpace(text) != "" {
		return json.RawMessage(text), nil
	}
	return text, nil
}

// sendMCP calls a tool of a project's MCP server, in a pooled session when
// there is one, in a client span. The server's time, connecting included,
// goes to the execution log entry rec and to the provider metric (as a 2xx
// when it answered, an error when it did not: MCP has no status).
func (e *Executor) sendMCP(ctx context.Context, t tenant.Tenant, authz string, k mcpKey, params *mcp.CallToolParams, rec *execlog.Entry) (res *mcp.CallToolResult, err error) {
	ctx, span := e.tracer.StartClient(ctx, "provider "+telemetry.Custom)
	start := time.Now()
	defer func() {
		took := time.Since(start)
		rec.ProviderCall(0, took)
		status := http.StatusOK
		if err != nil {
			status = 0
			if span.IsRecording() {
				span.SetStatus(codes.Error, "no answer")
			}
		}
		e.metrics.ProviderCall(k.con, status, took)
		span.End()
	}()
	cs, reused, done, err := e.mcpSession(ctx, t.ProjectID, authz, k, true)
	if err != nil {
		return nil, err
	}
	res, err = cs.CallTool(ctx, params)
	if err != nil && reused && (errors.Is(err, mcp.ErrSessionMissing) || errors.Is(err, mcp.ErrConnectionClosed)) {
		// The server ended the pooled session before the call reached it.
		done(true)
		if cs, _, done, err = e.mcpSession(ctx, t.ProjectID, authz, k, false); err != nil {
			return nil, err
		}
		res, err = cs.CallTool(ctx, params)
	}
	done(err != nil)
	return res, err
}

// mcpAuthorization is the Authorization header a call with the account
// sends to an MCP server ("" without one): its key, or its OAuth access
// token, refreshed first when it has expired (or is about to), as for any
// OAuth connector; a failed refresh marks the account reauth_required.
// With force, it is the header after refreshing the token whatever its
// expiry, and "" for an account that has no refresh token.
func (e *Executor) mcpAuthorization(ctx context.Context, conn store.Connection, con *catalog.Connector, force bool) (string, error) {
	if conn.ID == "" {
		return "", nil
	}
	cred, err := e.accounts.Open(conn)
	if err != nil {
		return "", err
	}
	m := method(con, cred)
	refreshable := cred.Type == catalog.AuthOAuth2 && m != nil && m.OAuth2 != nil
	if force && (!refreshable || cred.RefreshToken == "") {
		return "", nil
	}
	if refreshable {
		cred = e.fresh.newer(conn, cred)
		if force || needsRefresh(cred, e.now()) {
			if cred, err = e.refreshToken(ctx, conn, cred, con, m, force); err != nil {
				return "", err
			}
		}
	}
	switch {
	case cred.APIKey != "":
		return "Bearer " + cred.APIKey, nil
	case cred.AccessToken != "":
		return "Bearer " + cred.AccessToken, nil
	}
	return "", nil
}

// tokenMark tells sessions opened with different credentials apart in the
// pool (a refreshed token must not reuse the session of the expired one)
// without keeping the credential in the key.
func tokenMark(authz string) string {
	if authz == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(authz))
	return hex.EncodeToString(sum[:12])
}

// mcpSession returns a client session to the server of k: a pooled one when
// reuse allows and there is one (reused is then true), else a new one with
// the server's static headers and the account's credential (authz, the
// Authorization header, when not empty). done(failed)
// must follow the call: it drops a failed pooled session and closes an
// unpooled one. Servers on the older HTTP+SSE transport are not pooled
// (their event stream would outlive the client's timeout).
func (e *Executor) mcpSession(ctx context.Context, projectID string, authz string, k mcpKey, reuse bool) (
	cs *mcp.ClientSession, reused bool, done func(failed bool), err error) {
	con := k.con
	pool := con.API.Transport != catalog.TransportSSE
	if pool && reuse {
		if cs := e.mcp.get(k, e.now()); cs != nil {
			return cs, true, e.mcpDone(k, cs, true), nil
		}
	}
	pc, err := e.store.GetProjectConnector(ctx, projectID, con.ID)
	if err != nil {
		return nil, false, nil, err
	}
	headers, err := upstream.OpenHeaders(e.keyring, projectID, con.ID, pc.Headers)
	if err != nil {
		return nil, false, nil, apierr.New(apierr.CredentialUnavailable, "the static headers of MCP server %s cannot be read; add the server again", con.ID)
	}
	if authz != "" {
		headers["Authorization"] = authz
	}
	cs, err = upstream.Connect(ctx, e.guard.MCPServer(con.ID).Client(), con.API.BaseURL, con.API.Transport, headers)
	if err != nil {
		return nil, false, nil, e.unreachable(ctx, err, "MCP server", "MCP server "+con.ID, con.ID, hostOf(con.API.BaseURL))
	}
	pooled := false
	if pool {
		cs, pooled = e.mcp.put(k, cs, e.now())
	}
	return cs, false, e.mcpDone(k, cs, pooled), nil
}

func (e *Executor) mcpDone(k mcpKey, cs *mcp.ClientSession, pooled bool) func(failed bool) {
	return func(failed bool) {
		switch {
		case !pooled:
			_ = cs.Close()
		case failed:
			e.mcp.drop(k, cs)
		}
	}
}

func hasNoneMethod(con *catalog.Connector) bool {
	for _, m := range con.AuthMethods {
		if m.Type == catalog.AuthNone {
			return true
		}
	}
	return false
}

// MCPResult is the result of a tool of a project's MCP server whose answer
// holds more than text (docs/execution.md): every content block as MCP
// sends it ("text", "image", "audio", "resource_link", "resource"), with
// the structured content when the server gave one. A text-only answer is
// returned as before: its structured content, or its text (as JSON when
// it is JSON).
type MCPResult struct {
	Content           []mcp.Content `json:"content"`
	StructuredContent any           `json:"structuredContent,omitempty"`
}

// textOnly reports whether every content block is text.
func textOnly(content []mcp.Content) bool {
	for _, c := range content {
		if _, ok := c.(*mcp.TextContent); !ok {
			return false
		}
	}
	return true
}

// contentText joins the text parts of an MCP result.
func contentText(content []mcp.Content) string {
	var parts []string
	for _, c := range content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}
