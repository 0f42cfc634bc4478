package mcpauth

import "testing"

func TestCheckRedirectURI(t *testing.T) {
	t.Parallel()
	for uri, ok := range map[string]bool{
		"https://claude.ai/api/mcp/auth_callback": true,
		"http://127.0.0.1:33418/callback":         true,
		"http://[::1]:8080/cb":                    true,
		"http://localhost/cb":                     true,
		"cursor://anysphere.cursor-mcp/oauth/cb":  true,
		"http://example.com/cb":                   false,
		"http://127.0.0.1.evil.example/cb":        false,
		"https://ok.example/cb#x":                 false,
		"https://user:pw@ok.example/cb":           false,
		"https:///nohost":                         false,
		"javascript:alert(1)":                     false,
		"data:text/html,hi":                       false,
		"file:///etc/passwd":                      false,
		"/relative/cb":                            false,
		"":                                        false,
	} {
		if got := checkRedirectURI(uri) == ""; got != ok {
			t.Errorf("%q: accepted=%v, want %v (%s)", uri, got, ok, checkRedirectURI(uri))
		}
	}
}

func TestEndpointOfResource(t *testing.T) {
	t.Parallel()
	s := New(Options{BaseURL: "https://sb.example/", MCPURL: "https://mcp.sb.example"})
	for resource, slug := range map[string]string{
		"https://sb.example/v1/mcp/support":      "support",
		"https://sb.example/v1/mcp/support/":     "support",
		"https://mcp.sb.example/support":         "support",
		"https://sb.example/v1/mcp/support/ann":  "",
		"https://sb.example/v1/mcp/":             "",
		"https://evil.example/v1/mcp/support":    "",
		"https://sb.example.evil/v1/mcp/support": "",
		"https://sb.example/v1/mcp/a?b":          "",
	} {
		if got := s.endpointOfResource(resource); got != slug {
			t.Errorf("%q: %q, want %q", resource, got, slug)
		}
	}
	if got := ResourceMetadataURL("https://sb.example/v1/mcp/support"); got != "https://sb.example/.well-known/oauth-protected-resource/v1/mcp/support" {
		t.Errorf("metadata URL: %s", got)
	}
}
