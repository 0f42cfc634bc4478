package httpapi

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/session"
)

// TestMCP_UnknownMethod_JSONRPCMethodNotFound: a JSON-RPC request with a
// method the server does not have answers a JSON-RPC error -32601 with the
// request's id (HTTP 200 with a JSON body), on the session route and on every
// endpoint route, instead of a plain-text 400. Under protocol 2026-07-28
// the go-sdk answers the same error with HTTP 404, as that version demands.
func TestMCP_UnknownMethod_JSONRPCMethodNotFound(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.endpoint(t, session.EndpointRequest{Slug: "delta-tools", Connectors: []string{"delta"}, Mode: session.ModeTools})
	_, m, raw := f.json("POST", "/v1/sessions", `{"userId":"u1","connectors":["delta"]}`)
	sid, _ := dataOf(m)["id"].(string)
	if sid == "" {
		t.Fatalf("session: %s", raw)
	}
	mcpHost := f.srv.MCPHandler()
	routes := []struct {
		h    http.Handler
		path string
	}{{f.h, "/v1/sessions/" + sid + "/mcp"}, {mcpHost, "/delta-tools/u1"}, {f.h, "/v1/mcp/delta-tools/u1"}, {f.h, "/v1/mcp/delta-tools?user=u1"}}
	cases := []struct {
		name, body, version string
		status              int
		id                  string
	}{
		{"number id", `{"jsonrpc":"2.0","id":42,"method":"tools/frobnicate"}`, "", 200, "42"},
		{"string id with params", `{"jsonrpc":"2.0","id":"a-1","method":"nope","params":{"x":1}}`, "2025-06-18", 200, `"a-1"`},
		{"newest protocol", `{"jsonrpc":"2.0","id":7,"method":"nope"}`, "2026-07-28", 404, "7"},
	}
	for _, rt := range routes {
		for _, c := range cases {
			var hdr []string
			if c.version != "" {
				hdr = []string{"Mcp-Protocol-Version", c.version}
			}
			r := f.rpc(rt.h, rt.path, c.body, hdr...)
			var out struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Error   *struct {
					Code    int    `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			if r.status != c.status || json.Unmarshal(r.body, &out) != nil || out.JSONRPC != "2.0" || string(out.ID) != c.id ||
				out.Error == nil || out.Error.Code != -32601 || out.Error.Message == "" {
				t.Errorf("%s %s: %d %s", rt.path, c.name, r.status, r.body)
			}
		}
		// Known methods still work.
		if r := f.rpc(rt.h, rt.path, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); r.status != 200 {
			t.Errorf("%s ping: %d %s", rt.path, r.status, r.body)
		}
	}
}
