package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/session"
)

// RequireNodeEnv, set to 1 by CI, turns a missing Node.js or npm install
// into a failure instead of a skip.
const requireNodeEnv = "SWITCHBOARD_TEST_REQUIRE_NODE"

// TestSessionMCP_TypeScriptSDKClient drives a session's MCP URL with the
// official TypeScript MCP SDK client (tests/mcp-client, pinned by its
// package-lock.json): initialize, tools/list, ping, and tools/call of
// switchboard_search_actions and switchboard_execute against the fake provider.
func TestSessionMCP_TypeScriptSDKClient(t *testing.T) {
	t.Parallel()
	node, dir := tsClient(t)
	f := setup(t)
	srv := httptest.NewServer(f.h)
	defer srv.Close()
	if st, _, raw := f.json("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","userId":"u1","credential":{"type":"api_key","apiKey":"delta-secret-key","host":%q}}`, f.providerHost)); st != 200 {
		t.Fatal(raw)
	}
	_, m, _ := f.json("POST", "/v1/sessions", `{"userId":"u1","connectors":["delta"]}`)
	id := dataOf(m)["id"].(string)
	out := runTSClient(t, node, dir, srv.URL+"/v1/sessions/"+id+"/mcp", f.key,
		`[{"name":"switchboard_search_actions","arguments":{"queries":["fetch a task"]}},`+
			`{"name":"switchboard_execute","arguments":{"action":"delta_get_task","input":{"id":"42"}}},`+
			`{"name":"switchboard_execute","arguments":{"action":"nope","input":{}}}]`)
	var got struct {
		Server  struct{ Name string }
		Tools   []string
		Results []struct {
			Name    string
			IsError bool
			Text    string
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client output: %v\n%s", err, out)
	}
	// The client's calls take the direct tools/call path (docs/mcp.md).
	if n := f.srv.mcp.DirectCalls(); n != 3 {
		t.Errorf("%d of 3 calls answered on the direct path", n)
	}
	if got.Server.Name != "switchboard" || !slices.Contains(got.Tools, "switchboard_execute") || len(got.Results) != 3 {
		t.Fatalf("client saw: %s", out)
	}
	if r := got.Results[0]; r.IsError || !strings.Contains(r.Text, "delta_get_task") {
		t.Errorf("search: %+v", r)
	}
	if r := got.Results[1]; r.IsError || !strings.Contains(r.Text, `/v1/tasks/42`) {
		t.Errorf("execute: %+v", r)
	}
	if r := got.Results[2]; !r.IsError || !strings.Contains(r.Text, "not_in_scope") {
		t.Errorf("refusal: %+v", r)
	}
}

// tsClient returns node and the client folder, skipping (or, in CI,
// failing) when they are not installed.
func tsClient(t *testing.T) (node, dir string) {
	t.Helper()
	dir, _ = filepath.Abs(filepath.Join("..", "..", "tests", "mcp-client"))
	node, err := exec.LookPath("node")
	_, statErr := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk"))
	if err != nil || statErr != nil {
		if os.Getenv(requireNodeEnv) == "1" {
			t.Fatalf("node (%v) or the npm packages of %s (%v) are missing; run npm ci there", err, dir, statErr)
		}
		t.Skipf("node or the npm packages of %s are missing; run npm ci there (CI does)", dir)
	}
	return node, dir
}

// runTSClient runs the TypeScript client against url and returns its output.
func runTSClient(t *testing.T, node, dir, url, key, calls string) []byte {
	t.Helper()
	cmd := exec.Command(node, "client.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SB_URL="+url, "SB_KEY="+key, "SB_CALLS="+calls)
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("client failed: %v\n%s\n%s", err, out, stderr)
	}
	return out
}

// TestEndpointMCP_TypeScriptSDKClientBothModes drives an endpoint in tools
// mode on the MCP host and in meta mode under /v1/mcp with the TypeScript client.
func TestEndpointMCP_TypeScriptSDKClientBothModes(t *testing.T) {
	t.Parallel()
	node, dir := tsClient(t)
	f := setup(t)
	f.endpoint(t, session.EndpointRequest{Slug: "ts-tools", Connectors: []string{"delta"}, Mode: session.ModeTools})
	f.endpoint(t, session.EndpointRequest{Slug: "ts-meta", Connectors: []string{"delta"}, Mode: session.ModeMeta})
	base := httptest.NewServer(f.h)
	defer base.Close()
	mcpHost := httptest.NewServer(f.srv.MCPHandler())
	defer mcpHost.Close()
	if st, _, raw := f.json("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","userId":"ann","credential":{"type":"api_key","apiKey":"delta-secret-key","host":%q}}`, f.providerHost)); st != 200 {
		t.Fatal(raw)
	}
	out := string(runTSClient(t, node, dir, mcpHost.URL+"/ts-tools/ann", f.key, `[{"name":"delta_get_task","arguments":{"id":"7"}}]`))
	if !strings.Contains(out, `"tools":["delta_create_task","delta_get_task"]`) || !strings.Contains(out, `/v1/tasks/7`) {
		t.Fatalf("tools mode: %s", out)
	}
	out = string(runTSClient(t, node, dir, base.URL+"/v1/mcp/ts-meta/bob", f.key, `[{"name":"switchboard_execute","arguments":{"action":"delta_get_task","input":{"id":"7"}}}]`))
	if !strings.Contains(out, "switchboard_search_actions") || !strings.Contains(out, "connection_required") || !strings.Contains(out, `"isError":true`) {
		t.Fatalf("meta mode for a user without an account: %s", out)
	}
}
