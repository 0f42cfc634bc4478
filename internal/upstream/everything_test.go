package upstream

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-gw/switchboard/internal/netguard"
)

// TestDiscoverMCP_ServerEverything adds a real third-party MCP server, the
// npm package @modelcontextprotocol/server-everything (pinned in
// tests/mcp-upstream), and runs one of its tools.
func TestDiscoverMCP_ServerEverything(t *testing.T) {
	t.Parallel()
	dir, _ := filepath.Abs(filepath.Join("..", "..", "tests", "mcp-upstream"))
	entry := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	node, nodeErr := exec.LookPath("node")
	_, pkgErr := os.Stat(entry)
	if nodeErr != nil || pkgErr != nil {
		if os.Getenv("SWITCHBOARD_TEST_REQUIRE_NODE") == "1" {
			t.Fatalf("node (%v) or server-everything in %s (%v) is missing; run npm ci there", nodeErr, dir, pkgErr)
		}
		t.Skip("node or tests/mcp-upstream's npm packages are missing (CI installs them)")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	cmd := exec.Command(node, entry, "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+port)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url := "http://127.0.0.1:" + port + "/mcp"
	for i := 0; ; i++ {
		if c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, time.Second); err == nil {
			c.Close()
			break
		}
		if i > 100 {
			t.Fatal("server-everything did not start")
		}
		time.Sleep(100 * time.Millisecond)
	}
	client := netguard.New(netguard.Options{AllowLoopback: true, Timeout: 20 * time.Second}).Client()
	ctx := context.Background()
	con, err := DiscoverMCP(ctx, client, url, nil, MCPOptions{ID: "everything"})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]string{}
	for _, tl := range con.Tools {
		byName[tl.UpstreamName] = tl.ID
	}
	if byName["echo"] != "everything_echo" || len(con.Tools) < 5 {
		t.Fatalf("discovered %d tools: %v", len(con.Tools), byName)
	}
	cs, err := Connect(ctx, client, url, con.API.Transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{"message": "hello upstream"}})
	if err != nil || res.IsError || !strings.Contains(res.Content[0].(*mcp.TextContent).Text, "hello upstream") {
		t.Fatalf("echo: %v %v", res, err)
	}
	// Through the production guard (no loopback), the same server is refused.
	if _, err := DiscoverMCP(ctx, netguard.New(netguard.Options{}).Client(), url, nil, MCPOptions{ID: "everything"}); err == nil {
		t.Fatal("a loopback MCP server was reached without the opt-in")
	}
}
