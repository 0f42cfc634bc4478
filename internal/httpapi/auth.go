package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/mcpauth"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

type tenantKey struct{}

// tenantOf returns the tenant requireAPIKey built for the request: the one
// value handlers read from the request context. Below the handler, services
// take it as a parameter.
func tenantOf(r *http.Request) tenant.Tenant {
	t, _ := r.Context().Value(tenantKey{}).(tenant.Tenant)
	return t
}

// requireAPIKey admits a request only with `Authorization: Bearer <key>`
// naming a live key, and builds the request's tenant from the key lookup:
// the project, its catalog (cached by the catalog version the lookup
// returned, so no extra round trip) and its versions. The store answers the
// lookup from its key cache on PostgreSQL, cleared on every replica by
// notification, or reads the key (docs/design-notes.md).
func (s *Server) requireAPIKey(next http.Handler) http.Handler { return s.requireCaller(next, false) }

// requireCaller is requireAPIKey, which also admits the MCP access tokens
// of mcpauth (mcpoauth_bearer.go); mcpHost says the request came to the
// {mcp_url} listener, for the challenge's resource_metadata.
func (s *Server) requireCaller(next http.Handler, mcpHost bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.mcpAuth != nil && mcpauth.IsToken(bearerValue(r)) {
			s.serveWithToken(w, r, next, mcpHost)
			return
		}
		key, err := bearerKey(r)
		if err != nil {
			s.challenge(w, r, err, r.Header.Get("Authorization") != "", s.resourceMetadataOf(r, mcpHost))
			return
		}
		kp, err := s.store.ProjectForKey(r.Context(), apikey.Hash(key))
		if errors.Is(err, store.ErrNotFound) {
			s.challenge(w, r, apierr.New(apierr.Unauthorized, "API key is not valid: it is unknown, revoked or expired"), true, s.resourceMetadataOf(r, mcpHost))
			return
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
		if info := infoFrom(r.Context()); info != nil {
			info.projectID, info.keyID = kp.ID, kp.KeyID
		}
		t, err := s.catalogs.Tenant(r.Context(), kp)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), tenantKey{}, t)))
	})
}

// bearerKey returns the well-formed API key of the Authorization header.
func bearerKey(r *http.Request) (string, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", apierr.New(apierr.Unauthorized, "missing API key: send the header Authorization: Bearer <API key>")
	}
	scheme, key, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", apierr.New(apierr.Unauthorized, "malformed Authorization header: use Authorization: Bearer <API key>")
	}
	key = strings.TrimSpace(key)
	if !apikey.WellFormed(key) {
		return "", apierr.New(apierr.Unauthorized, "malformed API key: a key is sb_ followed by 64 lowercase hexadecimal characters")
	}
	return key, nil
}

// unauthorized answers 401 with the challenge HTTP requires of it
// (RFC 9110, 11.6.1) in the Bearer form of RFC 6750, which MCP clients read
// to learn that the route wants a token (docs/mcp.md): a request that sent
// a key also gets error="invalid_token" and the message as description.
// The resource_metadata parameter (RFC 9728) is added on the MCP URLs of
// endpoints with OAuth sign-in only (challenge).
func (s *Server) unauthorized(w http.ResponseWriter, r *http.Request, err error, sentKey bool) {
	s.challenge(w, r, err, sentKey, "")
}

// challenge is unauthorized with the URL of the protected-resource metadata
// of the requested MCP URL, when it has one.
func (s *Server) challenge(w http.ResponseWriter, r *http.Request, err error, sentKey bool, metadataURL string) {
	challenge := `Bearer realm="switchboard"`
	if metadataURL != "" {
		challenge += `, resource_metadata="` + challengeText(metadataURL) + `", scope="` + mcpauth.Scope + `"`
	}
	if e, ok := apierr.As(err); ok && sentKey {
		challenge += `, error="invalid_token", error_description="` + challengeText(e.Message) + `"`
	}
	w.Header().Set("WWW-Authenticate", challenge)
	s.fail(w, r, err)
}

// challengeText keeps the characters RFC 6750 allows in error_description
// (printable ASCII without the double quote and the backslash).
func challengeText(msg string) string {
	return strings.Map(func(c rune) rune {
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return -1
		}
		return c
	}, msg)
}
