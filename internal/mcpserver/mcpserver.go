// Package mcpserver serves sessions and project endpoints as MCP servers
// over Streamable HTTP with JSON responses, on the official go-sdk.
// It is stateless: any replica answers any request, and the built
// *mcp.Server of a session is cached by session id and scope hash, since
// the SDK asks for it more than once per request. ping, and for the older
// protocol versions tools/list and tools/call, are answered before the
// SDK (serveDirect, serveCall), with the SDK's answers (docs/mcp.md).
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/execlog"
	"github.com/switchboard-gw/switchboard/internal/execute"
	"github.com/switchboard-gw/switchboard/internal/lru"
	"github.com/switchboard-gw/switchboard/internal/session"
	"github.com/switchboard-gw/switchboard/internal/telemetry"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// Version is reported to MCP clients.
const Version = "1.0.0"

// implementation is how the server names itself to clients.
var implementation = &mcp.Implementation{Name: "switchboard", Version: Version}

// maxCached bounds the cache of built servers.
const maxCached = 1024

// Server answers MCP requests for sessions.
type Server struct {
	sessions *session.Service
	log      *slog.Logger
	tracer   *telemetry.Tracer
	handler  *mcp.StreamableHTTPHandler
	cache    *lru.Cache[serverKey, *cached]
	// sdkCalls sends every tools/call to the SDK (see SetDirectCalls).
	sdkCalls atomic.Bool
	// directCalls counts the tools/call requests serveCall answered.
	directCalls atomic.Int64
}

type cached struct {
	server *mcp.Server
	// toolsList is the encoded result of tools/list, made once per server.
	toolsList json.RawMessage
	// tools names the server's tools, for the direct tools/call.
	tools map[string]bool
}

type ctxKey struct{}

// target is what a request is for, put in its context by Serve (the SDK
// calls back with the request's context only).
type target struct {
	tenant tenant.Tenant
	ss     *session.Session
	scope  *session.Scope
	// via is the request, for the execution log of its tool calls.
	via execlog.Origin
}

// New returns a Server. tracer makes a span per tools/call, named after
// the tool; nil makes none.
func New(sessions *session.Service, log *slog.Logger, tracer *telemetry.Tracer) *Server {
	s := &Server{sessions: sessions, log: log, tracer: tracer, cache: lru.New[serverKey, *cached](maxCached)}
	s.handler = mcp.NewStreamableHTTPHandler(s.serverFor, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		// Switchboard applies its own Origin rule (docs/mcp.md) in front of
		// this handler and may run behind a reverse proxy on loopback.
		DisableLocalhostProtection: true,
		Logger:                     log,
	})
	return s
}

// Serve answers one MCP request for a resolved session of tn's project;
// via is the request as the execution log records its tool calls.
func (s *Server) Serve(w http.ResponseWriter, r *http.Request, tn tenant.Tenant, ss *session.Session, sc *session.Scope, via execlog.Origin) {
	t := target{tenant: tn, ss: ss, scope: sc, via: via}
	if s.serveDirect(w, r, t) {
		return
	}
	ctx := context.WithValue(r.Context(), ctxKey{}, t)
	s.handler.ServeHTTP(w, r.WithContext(ctx))
}

// legacyVersions are the protocol versions whose tools/list answer is the
// plain {tools: [...]} result; newer ones go through the SDK.
var legacyVersions = map[string]bool{"": true, "2024-11-05": true, "2025-03-26": true, "2025-06-18": true, "2025-11-25": true}

// serveDirect answers some requests without the SDK, and reports whether
// it did. A plain tools/list (legacy protocol versions) comes from the encoded
// list cached with the server, instead of the SDK encoding every tool
// schema again on each call (most of the cost with a thousand tools). A
// ping gets its empty result under any protocol version: the go-sdk client
// (v1.8.0) sends ping without the per-request _meta that its own server
// demands under 2026-07-28, and a liveness check should not fail on that.
// An unknown method gets a JSON-RPC error (see writeMethodNotFound).
func (s *Server) serveDirect(w http.ResponseWriter, r *http.Request, t target) bool {
	accept := r.Header.Get("Accept")
	if r.Header.Get("Mcp-Session-Id") != "" ||
		!strings.Contains(accept, "application/json") || !strings.Contains(accept, "text/event-stream") ||
		!strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") || r.ContentLength > maxDirectBody {
		return false
	}
	body, err := io.ReadAll(io.LimitReader(r.Body, maxDirectBody+1))
	if err != nil || len(body) > maxDirectBody {
		// The SDK reads the whole body: what was read, then the rest.
		r.Body = readCloser{io.MultiReader(bytes.NewReader(body), r.Body), r.Body}
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var req struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  string          `json:"method"`
		Params  json.RawMessage `json:"params"`
	}
	if json.Unmarshal(body, &req) != nil || req.JSONRPC != "2.0" || len(req.ID) == 0 || string(req.ID) == "null" {
		return false
	}
	switch req.Method {
	case "ping":
		writeResult(w, req.ID, []byte("{}"))
		return true
	case "tools/call":
		return s.serveCall(w, r, t, req.ID, body)
	case "tools/list":
		if !legacyVersions[r.Header.Get("Mcp-Protocol-Version")] ||
			(len(req.Params) > 0 && string(req.Params) != "null" && string(req.Params) != "{}") {
			return false // a newer protocol, a cursor or _meta: let the SDK answer
		}
		c := s.cachedFor(r.Context(), t)
		if c == nil {
			return false
		}
		writeResult(w, req.ID, c.toolsList)
		return true
	}
	// An unknown method under the older protocol versions; 2026-07-28 and
	// later get the SDK's own answer (the same error with HTTP 404, as
	// that version demands), an unsupported version the SDK's 400.
	if !sdkMethods[req.Method] && legacyVersions[r.Header.Get("Mcp-Protocol-Version")] {
		writeMethodNotFound(w, req.ID, req.Method)
		return true
	}
	return false
}

// maxDirectBody is the largest request body answered without the SDK (a
// tools/call's arguments included); a larger one goes to the SDK, which
// has its own limit.
const maxDirectBody = 1 << 20

// readCloser reads from one reader and closes another: a body partly read
// ahead, then the rest of the original.
type readCloser struct {
	io.Reader
	io.Closer
}

// writeResult writes a JSON-RPC result response.
func writeResult(w http.ResponseWriter, id json.RawMessage, result []byte) {
	var out bytes.Buffer
	out.Grow(len(result) + len(id) + 40)
	out.WriteString(`{"jsonrpc":"2.0","id":`)
	out.Write(id)
	out.WriteString(`,"result":`)
	out.Write(result)
	out.WriteString("}\n")
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(out.Len()))
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write(out.Bytes())
}

func (s *Server) serverFor(r *http.Request) *mcp.Server {
	t, ok := r.Context().Value(ctxKey{}).(target)
	if !ok {
		return nil
	}
	if c := s.cachedFor(r.Context(), t); c != nil {
		return c.server
	}
	return nil
}

// serverKey names a built server: the session or endpoint, its scope, its
// mode (an endpoint can switch between tools and meta) and the catalog
// its tools came from (a project's own connectors can change their tool
// schemas under the same ids).
type serverKey struct {
	session, scope, mode string
	catalog              *catalog.Catalog
}

// cachedFor returns the built server of a target, building it on first use.
func (s *Server) cachedFor(ctx context.Context, t target) *cached {
	key := serverKey{session: t.ss.ID, scope: t.scope.Hash, mode: t.ss.Spec.Mode, catalog: t.tenant.Catalog}
	if c, ok := s.cache.Get(key); ok {
		return c
	}
	c, err := s.build(t)
	if err != nil {
		s.log.ErrorContext(ctx, "could not build the MCP server of a session", "session_id", t.ss.ID, "error", err.Error())
		return nil
	}
	// Two requests may build the same server at once: both use the first
	// one stored, since the SDK asks for the server more than once.
	c, _ = s.cache.GetOrPut(key, c)
	return c
}

// build makes the MCP server of a session (its meta and pinned tools) or of
// an endpoint in tools mode (every tool in scope), with its encoded tools/list.
func (s *Server) build(t target) (*cached, error) {
	defs, err := s.sessions.Tools(t.ss, t.scope, session.FormatJSONSchema)
	if err != nil {
		return nil, err
	}
	srv := mcp.NewServer(implementation, &mcp.ServerOptions{PageSize: len(defs) + 1})
	tools := make([]*mcp.Tool, 0, len(defs))
	names := make(map[string]bool, len(defs))
	for _, d := range defs {
		names[d.Name] = true
		destructive, openWorld := d.Annotations.DestructiveHint, d.Annotations.OpenWorldHint
		tool := &mcp.Tool{
			Name: d.Name, Description: d.Description, InputSchema: d.InputSchema,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: d.Annotations.ReadOnlyHint, DestructiveHint: &destructive, OpenWorldHint: &openWorld},
		}
		srv.AddTool(tool, s.callTool(d.Name))
		tools = append(tools, tool)
	}
	list, err := json.Marshal(&mcp.ListToolsResult{Tools: tools})
	if err != nil {
		return nil, err
	}
	return &cached{server: srv, toolsList: list, tools: names}, nil
}

// callTool runs a session tool for an MCP tools/call through the SDK. The
// session comes from the request being served, not from the cached server,
// so a call always sees the session as it is now. A call an ask rule holds
// is put to the person at the client (elicitation, docs/policies.md) when
// the client can answer in the same call: it takes the 2026-07-28 protocol
// (multi round-trip) and declared the elicitation capability.
func (s *Server) callTool(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		t, ok := ctx.Value(ctxKey{}).(target)
		if !ok {
			return nil, errNoSession
		}
		if err := s.applyElicitation(ctx, t, req); err != nil {
			return nil, err
		}
		body, extra, refusal, err := s.run(ctx, t, name, req.Params.Arguments)
		if err != nil {
			return nil, err
		}
		if refusal != nil && refusal.Code == "approval_required" && refusal.ClientApproval() && canElicit(req) {
			return approvalElicitation(refusal), nil
		}
		res := &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: string(body)}},
			StructuredContent: json.RawMessage(body),
			IsError:           refusal != nil,
		}
		// An upstream MCP server's images, audio and resources follow the
		// JSON text as content blocks of their own, for clients that show
		// them.
		res.Content = append(res.Content, extra...)
		return res, nil
	}
}

// run runs a session tool and encodes its outcome once: the same bytes are
// the text content and the structured content of the MCP result, extra are
// an upstream MCP server's non-text content blocks (images, audio,
// resources) that follow the text, and isError is a refusal. An error is for the JSON-RPC error answer: a
// caller's (apierr) as it is, anything else (a database error) logged and
// replaced by errInternal, as on REST. The SDK path (callTool) and the
// direct path (serveCall) both answer from here.
func (s *Server) run(ctx context.Context, t target, name string, args json.RawMessage) (body []byte, extra []mcp.Content, refusal *session.Refusal, err error) {
	if s.tracer.On() {
		var span trace.Span
		ctx, span = s.tracer.Start(ctx, "tools/call "+name)
		defer func() {
			if span.IsRecording() {
				span.SetAttributes(attribute.String("mcp.method.name", "tools/call"), attribute.String("gen_ai.tool.name", name),
					attribute.Bool("switchboard.refused", refusal != nil))
				if err != nil {
					span.SetStatus(codes.Error, telemetry.Outcome(err))
				}
			}
			span.End()
		}()
	}
	out, err := s.sessions.Call(ctx, t.tenant, t.ss, t.scope, name, args, t.via)
	if err != nil {
		if _, ok := apierr.As(err); ok {
			return nil, nil, nil, err // written for the caller
		}
		s.log.ErrorContext(ctx, "MCP tool call failed", "tool", name, "session_id", t.ss.ID, "error", err.Error())
		return nil, nil, nil, errInternal
	}
	body, err = json.Marshal(out)
	if err != nil {
		return nil, nil, nil, err
	}
	if r, ok := out.Result.(*execute.MCPResult); ok {
		for _, c := range r.Content {
			if _, text := c.(*mcp.TextContent); !text {
				extra = append(extra, c)
			}
		}
	}
	return body, extra, out.Error, nil
}

type sessionError string

func (e sessionError) Error() string { return string(e) }

const (
	errNoSession = sessionError("mcpserver: no session in the request")
	errInternal  = sessionError("internal error; the server log has the details")
)
