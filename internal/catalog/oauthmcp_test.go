package catalog

import (
	"strings"
	"testing"
)

// TestCheckOwn_OAuthMCPServer: a project's MCP server that declares OAuth
// may wait for its first user's token to list its tools; any other own
// connector needs tools, and a resource indicator must be an absolute URL.
func TestCheckOwn_OAuthMCPServer(t *testing.T) {
	t.Parallel()
	server := func(resource string, methods ...AuthMethod) *Connector {
		if len(methods) == 0 {
			methods = []AuthMethod{{ID: "oauth", Type: AuthOAuth2, Name: "Sign in", OAuth2: &OAuth2{AuthorizeURL: "https://as.example/authorize",
				TokenURL: "https://as.example/token", PKCE: true, Refresh: true, Resource: resource}}}
		}
		return &Connector{ID: "files", Name: "Files", Category: "developer-tools", Origin: OriginMCP,
			Description: "A vendor's files, as an MCP server.", API: API{BaseURL: "https://mcp.example/mcp"}, AuthMethods: methods}
	}
	if err := CheckOwn(server("https://mcp.example/mcp")); err != nil {
		t.Fatalf("an OAuth MCP server without tools yet: %v", err)
	}
	for name, c := range map[string]*Connector{
		"no resource": server(""),
		"a key method": server("", AuthMethod{ID: "api_key", Type: AuthAPIKey, Name: "Key",
			APIKey: &Placement{In: "header", Name: "Authorization", Format: "Bearer {value}"}}),
	} {
		if err := CheckOwn(c); err == nil || !strings.Contains(err.Error(), "at least one tool is required") {
			t.Errorf("%s: %v", name, err)
		}
	}
	if err := CheckOwn(server("/mcp")); err == nil || !strings.Contains(err.Error(), "oauth2.resource") {
		t.Errorf("a relative resource: %v", err)
	}
}
