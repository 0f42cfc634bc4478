package httpapi

import (
	"net/http"

	"github.com/switchboard-gw/switchboard/internal/apierr"
)

// handleEndpointMCP serves a project's MCP endpoint by slug, in all three
// forms (docs/mcp.md): {mcp_url}/:slug/:userId, {base_url}/v1/mcp/:slug/:userId
// and the legacy {base_url}/v1/mcp/:slug?user=<id>. The slug's project must
// be the API key's; an unknown slug is a JSON-RPC error with HTTP 404.
func (s *Server) handleEndpointMCP(w http.ResponseWriter, r *http.Request) error {
	if !s.originAllowed(r) {
		writeJSON(w, http.StatusForbidden, apierr.New(apierr.Forbidden, "requests from this web origin are not accepted").Envelope())
		return nil
	}
	user := r.PathValue("userId")
	if user == "" {
		user = r.URL.Query().Get("user")
	}
	user, ok := s.checkEndpointGrant(w, r, r.PathValue("slug"), user)
	if !ok {
		return nil
	}
	tn := tenantOf(r)
	ss, err := s.sessions.ForEndpoint(r.Context(), tn.ProjectID, r.PathValue("slug"), user)
	if e, ok := apierr.As(err); ok {
		switch e.Code {
		case apierr.NotFound:
			writeJSONRPCError(w, r, http.StatusNotFound, -32001, e.Message)
			return nil
		case apierr.ValidationError:
			writeJSONRPCError(w, r, http.StatusBadRequest, -32602, e.Message)
			return nil
		}
	}
	if err != nil {
		return err
	}
	sc, err := s.sessions.Scope(r.Context(), tn, ss.Spec)
	if err != nil {
		return err
	}
	s.mcp.Serve(w, r, tn, ss, sc, origin(r))
	return nil
}
