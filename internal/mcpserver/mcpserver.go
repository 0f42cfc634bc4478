// Package mcpserver serves sessions (and, later, project endpoints) as MCP
// servers over Streamable HTTP with JSON responses, on the official go-sdk.
// It is stateless: any replica answers any request, and the built
// *mcp.Server of a session is cached by session id and scope hash, since
// the SDK asks for it more than once per request.
package mcpserver

import (
	"container/list"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-gw/switchboard/internal/session"
)

// Version is reported to MCP clients.
const Version = "1.0.0"

// maxCached bounds the cache of built servers.
const maxCached = 1024

// Server answers MCP requests for sessions.
type Server struct {
	sessions *session.Service
	log      *slog.Logger
	handler  *mcp.StreamableHTTPHandler

	mu    sync.Mutex
	cache map[string]*list.Element
	order *list.List
}

type cached struct {
	key    string
	server *mcp.Server
}

type ctxKey struct{}

// target is what a request is for, put in its context by Serve.
type target struct {
	ss    *session.Session
	scope *session.Scope
}

// New returns a Server.
func New(sessions *session.Service, log *slog.Logger) *Server {
	s := &Server{sessions: sessions, log: log, cache: map[string]*list.Element{}, order: list.New()}
	s.handler = mcp.NewStreamableHTTPHandler(s.serverFor, &mcp.StreamableHTTPOptions{
		Stateless:    true,
		JSONResponse: true,
		// Switchboard applies its own Origin rule (SPEC.md 4.8) in front of
		// this handler and may run behind a reverse proxy on loopback.
		DisableLocalhostProtection: true,
		Logger:                     log,
	})
	return s
}

// Serve answers one MCP request for a resolved session.
func (s *Server) Serve(w http.ResponseWriter, r *http.Request, ss *session.Session, sc *session.Scope) {
	ctx := context.WithValue(r.Context(), ctxKey{}, target{ss: ss, scope: sc})
	s.handler.ServeHTTP(w, r.WithContext(ctx))
}

func (s *Server) serverFor(r *http.Request) *mcp.Server {
	t, ok := r.Context().Value(ctxKey{}).(target)
	if !ok {
		return nil
	}
	key := t.ss.ID + "/" + t.scope.Hash
	s.mu.Lock()
	if el, ok := s.cache[key]; ok {
		s.order.MoveToFront(el)
		srv := el.Value.(*cached).server
		s.mu.Unlock()
		return srv
	}
	s.mu.Unlock()

	srv, err := s.build(t)
	if err != nil {
		s.log.ErrorContext(r.Context(), "could not build the MCP server of a session", "session_id", t.ss.ID, "error", err.Error())
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if el, ok := s.cache[key]; ok {
		return el.Value.(*cached).server
	}
	s.cache[key] = s.order.PushFront(&cached{key: key, server: srv})
	for s.order.Len() > maxCached {
		old := s.order.Back()
		s.order.Remove(old)
		delete(s.cache, old.Value.(*cached).key)
	}
	return srv
}

// build makes the MCP server of a session: its meta tools and pinned tools.
func (s *Server) build(t target) (*mcp.Server, error) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "switchboard", Version: Version}, nil)
	defs, err := s.sessions.Tools(t.ss, t.scope, session.FormatJSONSchema)
	if err != nil {
		return nil, err
	}
	for _, d := range defs {
		name := d.Name
		readOnly, destructive := d.Annotations.ReadOnlyHint, d.Annotations.DestructiveHint
		srv.AddTool(&mcp.Tool{
			Name: name, Description: d.Description, InputSchema: d.InputSchema,
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: readOnly, DestructiveHint: &destructive},
		}, s.callTool(name))
	}
	return srv, nil
}

// callTool runs a session tool for an MCP tools/call. The session comes
// from the request being served, not from the cached server, so a call
// always sees the session as it is now.
func (s *Server) callTool(name string) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		t, ok := ctx.Value(ctxKey{}).(target)
		if !ok {
			return nil, errNoSession
		}
		out, err := s.sessions.Call(ctx, t.ss, t.scope, name, req.Params.Arguments)
		if err != nil {
			return nil, err
		}
		body, err := json.Marshal(out)
		if err != nil {
			return nil, err
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: string(body)}},
			StructuredContent: json.RawMessage(body),
			IsError:           !out.OK,
		}, nil
	}
}

type sessionError string

func (e sessionError) Error() string { return string(e) }

const errNoSession = sessionError("mcpserver: no session in the request")
