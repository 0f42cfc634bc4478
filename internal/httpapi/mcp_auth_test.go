package httpapi

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/session"
)

// TestMCP_401CarriesBearerChallenge: MCP clients read WWW-Authenticate on a
// 401 to learn the route wants a bearer token (docs/mcp.md).
func TestMCP_401CarriesBearerChallenge(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.endpoint(t, session.EndpointRequest{Slug: "open-one", Connectors: []string{"delta"}})
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	routes := []struct {
		h    http.Handler
		path string
	}{{f.h, "/v1/mcp/open-one/u1"}, {f.h, "/v1/mcp/open-one"}, {f.srv.MCPHandler(), "/open-one/u1"},
		{f.h, "/v1/sessions/00000000-0000-7000-8000-000000000000/mcp"}}
	for _, rt := range routes {
		r := f.do(rt.h, "POST", rt.path, "", list, "Content-Type", "application/json")
		if r.status != 401 || r.header.Get("WWW-Authenticate") != `Bearer realm="switchboard"` {
			t.Errorf("%s without a key: %d WWW-Authenticate %q", rt.path, r.status, r.header.Get("WWW-Authenticate"))
		}
		r = f.do(rt.h, "POST", rt.path, "Bearer sb_"+strings.Repeat("0", 64), list, "Content-Type", "application/json")
		got := r.header.Get("WWW-Authenticate")
		if r.status != 401 || !strings.HasPrefix(got, `Bearer realm="switchboard", error="invalid_token", error_description="API key is not valid`) ||
			strings.Contains(got, "resource_metadata") {
			t.Errorf("%s with an unknown key: %d WWW-Authenticate %q", rt.path, r.status, got)
		}
	}
}

// TestMCP_LoopbackOriginsAreTheLocalWebApp: with the web app on
// http://localhost:PORT, a browser page on http://127.0.0.1:PORT or
// http://[::1]:PORT is the same app; another port or host is not.
func TestMCP_LoopbackOriginsAreTheLocalWebApp(t *testing.T) {
	t.Parallel()
	provider := httptest.NewTLSServer(http.HandlerFunc(fakeDelta))
	t.Cleanup(provider.Close)
	f := setupBase(t, sqliteDB, testCatalogFS, provider, "http://localhost:8080", "http://localhost:8080")
	f.endpoint(t, session.EndpointRequest{Slug: "open-one", Connectors: []string{"delta"}})
	list := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	for origin, want := range map[string]int{
		"http://localhost:8080":    200,
		"http://127.0.0.1:8080":    200,
		"http://[::1]:8080":        200,
		"http://127.0.0.1:9999":    403,
		"http://evil.example:8080": 403,
	} {
		if r := f.rpc(f.h, "/v1/mcp/open-one/u1", list, "Origin", origin); r.status != want {
			t.Errorf("Origin %s: %d, want %d (%s)", origin, r.status, want, r.body)
		}
	}
}
