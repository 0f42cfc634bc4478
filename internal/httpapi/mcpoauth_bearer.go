package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/mcpauth"
	"github.com/switchboard-gw/switchboard/internal/session"
	"github.com/switchboard-gw/switchboard/internal/store"
)

type grantKey struct{}

// grantOf returns the grant of the MCP access token a request came with.
// Routes registered with route refuse such a request; the MCP routes check
// that the token is for their endpoint or session (checkEndpointGrant,
// checkSessionGrant).
func grantOf(r *http.Request) (mcpauth.Grant, bool) {
	g, ok := r.Context().Value(grantKey{}).(mcpauth.Grant)
	return g, ok
}

// bearerValue is the Authorization header's bearer value, or "".
func bearerValue(r *http.Request) string {
	scheme, v, ok := strings.Cut(r.Header.Get("Authorization"), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return ""
	}
	return strings.TrimSpace(v)
}

// serveWithToken admits a request with an MCP access token: the tenant is
// the token's project, and the grant rides along for the route to check.
func (s *Server) serveWithToken(w http.ResponseWriter, r *http.Request, next http.Handler, mcpHost bool) {
	g, err := s.mcpAuth.Verify(r.Context(), bearerValue(r))
	var bad *mcpauth.ErrInvalidToken
	if errors.As(err, &bad) {
		s.challenge(w, r, apierr.New(apierr.Unauthorized, "%s", bad.Reason), true, s.resourceMetadataOf(r, mcpHost))
		return
	}
	if err != nil {
		s.fail(w, r, err)
		return
	}
	tn, err := s.catalogs.Load(r.Context(), g.ProjectID)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	if info := infoFrom(r.Context()); info != nil {
		info.projectID = g.ProjectID
	}
	ctx := context.WithValue(context.WithValue(r.Context(), tenantKey{}, tn), grantKey{}, g)
	if mcpHost {
		ctx = context.WithValue(ctx, mcpHostKey{}, true)
	}
	next.ServeHTTP(w, r.WithContext(ctx))
}

type mcpHostKey struct{}

// resourceMetadataOf is the protected-resource metadata URL of the
// endpoint a request's path names, when that endpoint has OAuth sign-in;
// "" otherwise.
func (s *Server) resourceMetadataOf(r *http.Request, mcpHost bool) string {
	if s.mcpAuth == nil {
		return ""
	}
	rest := strings.TrimPrefix(r.URL.Path, "/")
	if !mcpHost {
		var ok bool
		if rest, ok = strings.CutPrefix(r.URL.Path, "/v1/mcp/"); !ok {
			return ""
		}
	}
	slug, _, _ := strings.Cut(rest, "/")
	return s.metadataOfSlug(r, slug, mcpHost)
}

func (s *Server) metadataOfSlug(r *http.Request, slug string, mcpHost bool) string {
	if !session.ValidSlug(slug) || (mcpHost && s.mcpURL == "") {
		return ""
	}
	e, err := s.store.EndpointBySlug(r.Context(), slug)
	if err != nil || e.Auth != store.AuthOAuth {
		return ""
	}
	resource := s.baseURL + "/v1/mcp/" + slug
	if mcpHost {
		resource = s.mcpURL + "/" + slug
	}
	return mcpauth.ResourceMetadataURL(resource)
}

// checkEndpointGrant applies a request's token to an endpoint call: the
// token must be for this endpoint (which must still take OAuth sign-in),
// and it calls as the token's user only. It returns the user, or false
// after answering.
func (s *Server) checkEndpointGrant(w http.ResponseWriter, r *http.Request, slug, user string) (string, bool) {
	g, ok := grantOf(r)
	if !ok {
		return user, true
	}
	_, mcpHost := r.Context().Value(mcpHostKey{}).(bool)
	e, err := s.store.EndpointBySlug(r.Context(), slug)
	if err != nil || g.EndpointID == "" || e.ID != g.EndpointID || e.Auth != store.AuthOAuth {
		s.challenge(w, r, apierr.New(apierr.Unauthorized, "the access token is not for this MCP endpoint: sign in to it"), true, s.metadataOfSlug(r, slug, mcpHost))
		return "", false
	}
	if user != "" && user != g.UserID {
		writeJSONRPCError(w, r, http.StatusForbidden, -32602, "the access token signs in one user: call the endpoint's URL without a user, or with the signed-in user")
		return "", false
	}
	return g.UserID, true
}

// checkSessionGrant admits a session MCP call with a token only when the
// token is that session's.
func (s *Server) checkSessionGrant(w http.ResponseWriter, r *http.Request, id string) bool {
	g, ok := grantOf(r)
	if !ok || (g.SessionID != "" && g.SessionID == id) {
		return true
	}
	s.challenge(w, r, apierr.New(apierr.Unauthorized, "the access token is not for this session's MCP URL"), true, "")
	return false
}
