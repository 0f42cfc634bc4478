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
	dir, _ := filepath.Abs(filepath.Join("..", "..", "tests", "mcp-client"))
	node, err := exec.LookPath("node")
	_, statErr := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk"))
	if err != nil || statErr != nil {
		if os.Getenv(requireNodeEnv) == "1" {
			t.Fatalf("node (%v) or the npm packages of %s (%v) are missing; run npm ci there", err, dir, statErr)
		}
		t.Skipf("node or the npm packages of %s are missing; run npm ci there (CI does)", dir)
	}
	f := setup(t)
	srv := httptest.NewServer(f.h)
	defer srv.Close()
	if st, _, raw := f.json("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","userId":"u1","credential":{"type":"api_key","apiKey":"delta-secret-key","host":%q}}`, f.providerHost)); st != 200 {
		t.Fatal(raw)
	}
	_, m, _ := f.json("POST", "/v1/sessions", `{"userId":"u1","connectors":["delta"]}`)
	id := dataOf(m)["id"].(string)

	cmd := exec.Command(node, "client.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"SB_URL="+srv.URL+"/v1/sessions/"+id+"/mcp",
		"SB_KEY="+f.key,
		`SB_CALLS=[{"name":"switchboard_search_actions","arguments":{"queries":["fetch a task"]}},`+
			`{"name":"switchboard_execute","arguments":{"action":"delta_get_task","input":{"id":"42"}}},`+
			`{"name":"switchboard_execute","arguments":{"action":"nope","input":{}}}]`)
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("client failed: %v\n%s\n%s", err, out, stderr)
	}
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
