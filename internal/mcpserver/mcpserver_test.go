package mcpserver_test

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/app"
	"github.com/switchboard-gw/switchboard/internal/config"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// server is the whole application (built as serve builds it) behind a
// test server, with a project and its API key.
type server struct {
	t   *testing.T
	url string
	key string
}

func newServer(t *testing.T) *server {
	t.Helper()
	material := make([]byte, secret.KeySize)
	_, _ = rand.Read(material)
	cfg := &config.Config{
		DatabaseURL: "sqlite:" + filepath.Join(t.TempDir(), "switchboard.db"),
		SecretKeys:  "k1:" + base64.StdEncoding.EncodeToString(material),
		BaseURL:     "http://sb.test", WebURL: "http://web.sb.test", AssetsURL: "http://sb.test/assets",
	}
	a, err := app.New(context.Background(), cfg, app.Options{Logger: slog.New(slog.DiscardHandler), MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	ctx := context.Background()
	p, err := a.Store.CreateProject(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	key, hash, hint, _ := apikey.Generate()
	if _, err := a.Store.CreateAPIKey(ctx, store.NewAPIKey{ProjectID: p.ID, Name: "t", Hash: hash, Hint: hint}); err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(a.API.Handler())
	t.Cleanup(ts.Close)
	return &server{t: t, url: ts.URL, key: key}
}

// post sends a request with the project's key and decodes a JSON answer.
func (s *server) post(path string, headers map[string]string, body string) (int, map[string]any) {
	s.t.Helper()
	req, _ := http.NewRequest("POST", s.url+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.key)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		s.t.Fatalf("%s: %d %q is not JSON", path, resp.StatusCode, raw)
	}
	return resp.StatusCode, m
}

// session creates a session and returns its MCP path.
func (s *server) session(body string) string {
	s.t.Helper()
	status, m := s.post("/v1/sessions", nil, body)
	if status != 201 {
		s.t.Fatalf("session: %d %v", status, m)
	}
	return "/v1/sessions/" + m["data"].(map[string]any)["id"].(string) + "/mcp"
}

// rpc sends one JSON-RPC request under a protocol version.
func (s *server) rpc(path, version, method, params string) (int, map[string]any) {
	s.t.Helper()
	if params == "" {
		params = "{}"
		if version >= "2026" {
			// Newer versions carry the protocol version in every request's _meta.
			params = `{"_meta":{"io.modelcontextprotocol/protocolVersion":"` + version + `",` +
				`"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}}}`
		}
	}
	return s.post(path, map[string]string{"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": version, "Mcp-Method": method},
		`{"jsonrpc":"2.0","id":7,"method":"`+method+`","params":`+params+`}`)
}

func toolNames(t *testing.T, m map[string]any) []string {
	t.Helper()
	result, ok := m["result"].(map[string]any)
	if !ok {
		t.Fatalf("no result: %v", m)
	}
	var names []string
	for _, tool := range result["tools"].([]any) {
		names = append(names, tool.(map[string]any)["name"].(string))
	}
	slices.Sort(names)
	return names
}

func TestToolsList_FollowsThePolicyOnEveryPath(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	plain := s.session(`{"userId":"u1","connectors":["github"]}`)
	withProxy := s.session(`{"userId":"u1","connectors":["github"],"policy":{"allowProxy":true,"allowDisconnect":true}}`)
	meta := []string{"switchboard_connect_account", "switchboard_execute", "switchboard_list_accounts", "switchboard_search_actions"}
	all := append(slices.Clone(meta), "switchboard_disconnect_account", "switchboard_proxy")
	slices.Sort(all)
	// 2025-06-18 is answered from the cached encoded list, 2026-07-28 by the SDK.
	for _, version := range []string{"2025-06-18", "2026-07-28"} {
		for path, want := range map[string][]string{plain: meta, withProxy: all} {
			status, m := s.rpc(path, version, "tools/list", "")
			if status != 200 {
				t.Fatalf("%s tools/list: %d %v", version, status, m)
			}
			if got := toolNames(t, m); !slices.Equal(got, want) {
				t.Errorf("%s: tools %v, want %v", version, got, want)
			}
		}
	}
}

func TestPingAndUnknownMethod(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	path := s.session(`{"userId":"u1","connectors":["github"]}`)
	for _, version := range []string{"2025-06-18", "2026-07-28"} {
		status, m := s.rpc(path, version, "ping", "")
		if status != 200 || m["id"] != float64(7) || m["result"] == nil {
			t.Errorf("%s ping: %d %v", version, status, m)
		}
	}
	status, m := s.rpc(path, "2025-06-18", "tools/frobnicate", "")
	e, _ := m["error"].(map[string]any)
	if status != 200 || m["id"] != float64(7) || e == nil || e["code"] != float64(-32601) {
		t.Fatalf("unknown method: %d %v", status, m)
	}
}

func TestToolsCall_RefusalIsAnErrorResultTheModelCanRead(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	path := s.session(`{"userId":"u1","connectors":["github"],"policy":{"readOnly":true,"allowProxy":true}}`)
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: s.url + path,
		HTTPClient: &http.Client{Transport: bearer{key: s.key}}, MaxRetries: -1, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	call := func(name string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !res.IsError {
			t.Fatalf("%s: a refusal is not marked as an error: %+v", name, res)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		var out map[string]any
		if err := json.Unmarshal([]byte(text), &out); err != nil || out["ok"] != false {
			t.Fatalf("%s: content %q", name, text)
		}
		return out["error"].(map[string]any)
	}
	if e := call("switchboard_execute", map[string]any{"action": "github_get_issue", "input": map[string]any{"owner": "o", "repo": "r", "issue_number": 1}}); e["code"] != "connection_required" || e["connector"] != "github" {
		t.Errorf("no account: %v", e)
	}
	if e := call("switchboard_proxy", map[string]any{"connector": "github", "endpoint": "/user", "method": "DELETE"}); e["code"] != "read_only" {
		t.Errorf("a write through a read-only session's proxy: %v", e)
	}
	if e := call("switchboard_execute", map[string]any{"action": "slack_post_message", "input": map[string]any{}}); e["code"] != "not_in_scope" {
		t.Errorf("a tool of another connector: %v", e)
	}
}

// bearer adds the API key to every request of the MCP client.
type bearer struct{ key string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.key)
	return http.DefaultTransport.RoundTrip(r)
}
