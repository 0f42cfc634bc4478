package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/session"
)

// handleSessionCreate is POST /v1/sessions.
func (s *Server) handleSessionCreate(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		UserID              string            `json:"userId"`
		Connectors          []string          `json:"connectors"`
		Actions             []string          `json:"actions"`
		Pinned              []string          `json:"pinned"`
		Accounts            map[string]string `json:"accounts"`
		AllowGlobalAccounts bool              `json:"allowGlobalAccounts"`
		Policy              json.RawMessage   `json:"policy"`
		TTLMinutes          *int              `json:"ttlMinutes"`
		// MCPToken asks for a bearer good for this session's mcpUrl only.
		MCPToken bool `json:"mcpToken"`
	}
	issues := s.decodeBody(w, r, &body)
	if err := issues.Err(); err != nil {
		return err
	}
	ss, sc, err := s.sessions.Create(r.Context(), tenantOf(r), session.CreateRequest{
		UserID: body.UserID, Connectors: body.Connectors, Actions: body.Actions, Pinned: body.Pinned, Accounts: body.Accounts,
		AllowGlobalAccounts: body.AllowGlobalAccounts, Policy: body.Policy, TTLMinutes: body.TTLMinutes,
	})
	if err != nil {
		return err
	}
	v, err := s.sessions.View(r.Context(), tenantOf(r), ss, sc)
	if err != nil {
		return err
	}
	if body.MCPToken && s.mcpAuth != nil {
		tok, err := s.mcpAuth.SessionToken(r.Context(), ss.ProjectID, ss.ID, ss.Spec.UserID, ss.ExpiresAt)
		if err != nil {
			return err
		}
		respond(w, http.StatusCreated, struct {
			session.View
			MCPToken string `json:"mcpToken"`
		}{v, tok})
		return nil
	}
	respond(w, http.StatusCreated, v)
	return nil
}

// session reads the path's session and resolves its scope.
func (s *Server) session(r *http.Request) (*session.Session, *session.Scope, error) {
	tn := tenantOf(r)
	ss, err := s.sessions.Get(r.Context(), tn.ProjectID, r.PathValue("id"))
	if err != nil {
		return nil, nil, err
	}
	sc, err := s.sessions.Scope(r.Context(), tn, ss.Spec)
	if err != nil {
		return nil, nil, err
	}
	return ss, sc, nil
}

// handleSessionGet is GET /v1/sessions/:id.
func (s *Server) handleSessionGet(w http.ResponseWriter, r *http.Request) error {
	ss, sc, err := s.session(r)
	if err != nil {
		return err
	}
	v, err := s.sessions.View(r.Context(), tenantOf(r), ss, sc)
	if err != nil {
		return err
	}
	respond(w, http.StatusOK, v)
	return nil
}

// handleSessionTools is GET /v1/sessions/:id/tools.
func (s *Server) handleSessionTools(w http.ResponseWriter, r *http.Request) error {
	var issues apierr.Issues
	format := queryEnum(r.URL.Query(), "format", []string{session.FormatJSONSchema, session.FormatOpenAIStrict}, &issues)
	if err := issues.Err(); err != nil {
		return err
	}
	ss, sc, err := s.session(r)
	if err != nil {
		return err
	}
	tools, err := s.sessions.Tools(ss, sc, format)
	if err != nil {
		return err
	}
	respond(w, http.StatusOK, map[string]any{"scopeHash": sc.Hash, "tools": tools})
	return nil
}

// handleSessionCall is POST /v1/sessions/:id/tools/:name. Refusals are 200
// with ok false; only an unknown tool or a server fault is an HTTP error.
func (s *Server) handleSessionCall(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Arguments json.RawMessage `json:"arguments"`
	}
	issues := s.decodeBody(w, r, &body)
	if err := issues.Err(); err != nil {
		return err
	}
	ss, sc, err := s.session(r)
	if err != nil {
		return err
	}
	out, err := s.sessions.Call(r.Context(), tenantOf(r), ss, sc, r.PathValue("name"), body.Arguments, origin(r))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// handleSessionMCP is POST /v1/sessions/:id/mcp: the session as an MCP
// server. An unknown or expired session is a JSON-RPC error with HTTP 404.
func (s *Server) handleSessionMCP(w http.ResponseWriter, r *http.Request) error {
	if !s.originAllowed(r) {
		writeJSON(w, http.StatusForbidden, apierr.New(apierr.Forbidden, "requests from this web origin are not accepted").Envelope())
		return nil
	}
	if !s.checkSessionGrant(w, r, r.PathValue("id")) {
		return nil
	}
	ss, sc, err := s.session(r)
	if e, ok := apierr.As(err); ok && e.Code == apierr.SessionNotFound {
		writeJSONRPCError(w, r, http.StatusNotFound, -32001, e.Message)
		return nil
	}
	if err != nil {
		return err
	}
	s.mcp.Serve(w, r, tenantOf(r), ss, sc, origin(r))
	return nil
}

// writeJSONRPCError answers a JSON-RPC error, echoing the request id when
// the body carries one.
func writeJSONRPCError(w http.ResponseWriter, r *http.Request, status, code int, message string) {
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req)
	id := req.ID
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	writeJSON(w, status, map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": message}})
}

// originAllowed applies the MCP routes' Origin rule (docs/mcp.md): a browser request (one with an
// Origin) must come from the service's own web app (sameWebOrigin).
func (s *Server) originAllowed(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return true
	}
	return sameWebOrigin(origin, s.webURL)
}
