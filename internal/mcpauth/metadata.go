package mcpauth

import (
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/oauthex"
)

// Paths of the authorization server on {base_url}.
const (
	PathAuthorize = "/oauth/authorize"
	PathToken     = "/oauth/token"
	PathRegister  = "/oauth/register"
	PathRevoke    = "/oauth/revoke"
	PathHandoff   = "/oauth/handoff"
	PathConsent   = "/oauth/consent/"
	// PathResourceMetadata prefixes an MCP URL's path to give its
	// protected-resource metadata (RFC 9728, 3.1).
	PathResourceMetadata = "/.well-known/oauth-protected-resource"
)

// Metadata is the authorization server metadata (RFC 8414), served at
// /.well-known/oauth-authorization-server and at the OpenID-style
// /.well-known/openid-configuration.
func (s *Service) Metadata() *oauthex.AuthServerMeta {
	return &oauthex.AuthServerMeta{
		Issuer:                                     s.baseURL,
		AuthorizationEndpoint:                      s.baseURL + PathAuthorize,
		TokenEndpoint:                              s.baseURL + PathToken,
		RegistrationEndpoint:                       s.baseURL + PathRegister,
		RevocationEndpoint:                         s.baseURL + PathRevoke,
		ResponseTypesSupported:                     []string{"code"},
		ResponseModesSupported:                     []string{"query"},
		GrantTypesSupported:                        []string{"authorization_code", "refresh_token"},
		TokenEndpointAuthMethodsSupported:          []string{"none"},
		RevocationEndpointAuthMethodsSupported:     []string{"none"},
		CodeChallengeMethodsSupported:              []string{"S256"},
		ScopesSupported:                            []string{Scope},
		AuthorizationResponseIssParameterSupported: true,
	}
}

// Scope is the one scope: use of the endpoint's tools.
const Scope = "mcp"

// Resources are the MCP URLs of an endpoint an OAuth client may name as
// its resource: {base_url}/v1/mcp/<slug> and {mcp_url}/<slug>.
func (s *Service) Resources(slug string) []string {
	out := []string{s.baseURL + "/v1/mcp/" + slug}
	if s.mcpURL != "" {
		out = append(out, s.mcpURL+"/"+slug)
	}
	return out
}

// ResourceMetadataURL is where the protected-resource metadata of an MCP
// URL is (the well-known path inserted before the URL's path).
func ResourceMetadataURL(resource string) string {
	u, err := url.Parse(resource)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host + PathResourceMetadata + u.EscapedPath()
}

// ResourceMetadata is the protected-resource metadata (RFC 9728) of an
// endpoint's MCP URL.
func (s *Service) ResourceMetadata(resource, slug string) *oauthex.ProtectedResourceMetadata {
	return &oauthex.ProtectedResourceMetadata{
		Resource:               resource,
		AuthorizationServers:   []string{s.baseURL},
		ScopesSupported:        []string{Scope},
		BearerMethodsSupported: []string{"header"},
		ResourceName:           "Switchboard MCP endpoint " + slug,
	}
}

// endpointOfResource returns the slug a resource indicator names, or "".
// A trailing slash is tolerated (oauthex.MatchesResource).
func (s *Service) endpointOfResource(resource string) string {
	r := strings.TrimSuffix(resource, "/")
	for _, prefix := range []string{s.baseURL + "/v1/mcp/", s.mcpURL + "/"} {
		if prefix == "/" {
			continue
		}
		if slug, ok := strings.CutPrefix(r, prefix); ok && slug != "" && !strings.ContainsAny(slug, "/?#") {
			return slug
		}
	}
	return ""
}
