package mcpauth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// Register registers a public client (RFC 7591). Its redirect URIs must be
// absolute, without fragment, https, http on a loopback host, or a native
// app's private-use scheme (RFC 8252 7.1); the registered client
// authenticates with none (PKCE). registrar is the caller's address: one
// address registers RegistrationsPerHour clients an hour at most.
func (s *Service) Register(ctx context.Context, body []byte, registrar string) (*oauthex.ClientRegistrationResponse, *Error) {
	var m oauthex.ClientRegistrationMetadata
	if err := json.Unmarshal(body, &m); err != nil {
		return nil, oauthErr(http.StatusBadRequest, "invalid_client_metadata", "the body must be a JSON object of client metadata")
	}
	if len(m.RedirectURIs) == 0 || len(m.RedirectURIs) > 10 {
		return nil, oauthErr(http.StatusBadRequest, "invalid_redirect_uri", "redirect_uris must list 1 to 10 URIs")
	}
	for _, u := range m.RedirectURIs {
		if msg := checkRedirectURI(u); msg != "" {
			return nil, oauthErr(http.StatusBadRequest, "invalid_redirect_uri", msg)
		}
	}
	for _, g := range m.GrantTypes {
		if g != "authorization_code" && g != "refresh_token" {
			return nil, oauthErr(http.StatusBadRequest, "invalid_client_metadata", "grant_types may hold authorization_code and refresh_token only")
		}
	}
	for _, rt := range m.ResponseTypes {
		if rt != "code" {
			return nil, oauthErr(http.StatusBadRequest, "invalid_client_metadata", "response_types may hold code only")
		}
	}
	if len(m.ClientName) > 200 {
		return nil, oauthErr(http.StatusBadRequest, "invalid_client_metadata", "client_name is longer than 200 characters")
	}
	reg := hash(registrar)
	n, err := s.store.CountOAuthClientsSince(ctx, reg, s.now().Add(-time.Hour))
	if err != nil {
		return nil, oauthErr(http.StatusInternalServerError, "server_error", "the registration could not be stored")
	}
	if n >= RegistrationsPerHour {
		return nil, oauthErr(http.StatusTooManyRequests, "too_many_registrations", "this address registered too many clients in the last hour; reuse a registered client or retry later")
	}
	name := strings.TrimSpace(m.ClientName)
	if name == "" {
		name = "an MCP client"
	}
	c, err := s.store.CreateOAuthClient(ctx, store.OAuthClient{Name: name, RedirectURIs: m.RedirectURIs, RegistrarHash: reg})
	if err != nil {
		return nil, oauthErr(http.StatusInternalServerError, "server_error", "the registration could not be stored")
	}
	return &oauthex.ClientRegistrationResponse{
		ClientRegistrationMetadata: oauthex.ClientRegistrationMetadata{
			RedirectURIs: m.RedirectURIs, TokenEndpointAuthMethod: "none", GrantTypes: []string{"authorization_code", "refresh_token"},
			ResponseTypes: []string{"code"}, ClientName: name, Scope: Scope,
		},
		ClientID: c.ID, ClientIDIssuedAt: c.CreatedAt,
	}, nil
}

// privateScheme is a native app's URI scheme (RFC 8252 7.1).
var privateScheme = regexp.MustCompile(`^[a-z][a-z0-9+.-]*$`)

// checkRedirectURI says what is wrong with a redirect URI, or "".
func checkRedirectURI(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() {
		return "a redirect URI must be an absolute URI"
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return "a redirect URI must not have a fragment"
	}
	if u.User != nil {
		return "a redirect URI must not carry credentials"
	}
	switch u.Scheme {
	case "https":
		if u.Host == "" {
			return "an https redirect URI needs a host"
		}
		return ""
	case "http":
		if !loopbackHost(u.Hostname()) {
			return "an http redirect URI must be on a loopback host (127.0.0.1, [::1] or localhost); use https otherwise"
		}
		return ""
	}
	if slices.Contains([]string{"javascript", "data", "file", "vbscript", "about", "blob", "ftp", "ws", "wss"}, u.Scheme) || !privateScheme.MatchString(u.Scheme) {
		return "a redirect URI must use https, http on a loopback host, or a native app's own scheme"
	}
	return ""
}
