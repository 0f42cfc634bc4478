package mcpserver_test

import (
	"context"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/app"
	"github.com/switchboard-gw/switchboard/internal/config"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/session"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// benchInput is the tool input of every benchmark call.
const benchInput = `{"name":"benchmark item","tags":["a","b"],"count":3}`

// callStack is the application with the echo connector (testdata/catalog)
// on a fake provider, an account for user u1, a session in meta mode and
// an endpoint in tools mode, served in process.
type callStack struct {
	app     *app.App
	h       http.Handler
	key     string
	session string
}

func newCallStack(b testing.TB) *callStack {
	b.Helper()
	provider := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"id":"itm_1","item":` + string(body) + `}`))
	}))
	b.Cleanup(provider.Close)
	pool := x509.NewCertPool()
	pool.AddCert(provider.Certificate())
	material := make([]byte, secret.KeySize)
	_, _ = rand.Read(material)
	cfg := &config.Config{
		DatabaseURL: "sqlite:" + filepath.Join(b.TempDir(), "switchboard.db"),
		SecretKeys:  "k1:" + base64.StdEncoding.EncodeToString(material),
		BaseURL:     "http://sb.test", WebURL: "http://web.sb.test", AssetsURL: "http://sb.test/assets",
	}
	catFS, _ := fs.Sub(os.DirFS("testdata"), "catalog")
	a, err := app.New(context.Background(), cfg, app.Options{Logger: slog.New(slog.DiscardHandler), CatalogFS: catFS,
		AllowLoopback: true, RootCAs: pool, MaxConns: 4})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { a.Close() })
	ctx := context.Background()
	p, err := a.Store.CreateProject(ctx, "p")
	if err != nil {
		b.Fatal(err)
	}
	key, hash, hint, _ := apikey.Generate()
	if _, err := a.Store.CreateAPIKey(ctx, store.NewAPIKey{ProjectID: p.ID, Name: "t", Hash: hash, Hint: hint}); err != nil {
		b.Fatal(err)
	}
	s := &callStack{app: a, h: a.API.Handler(), key: key}
	host := strings.TrimPrefix(provider.URL, "https://")
	if status, body := s.post("/v1/connections", `{"connectorId":"echo","userId":"u1","credential":{"type":"api_key","apiKey":"k","host":"`+host+`"}}`, nil); status != 200 {
		b.Fatalf("connection: %d %s", status, body)
	}
	status, body := s.post("/v1/sessions", `{"userId":"u1","connectors":["echo"]}`, nil)
	var created struct{ Data struct{ ID string } }
	if status != 201 || json.Unmarshal(body, &created) != nil {
		b.Fatalf("session: %d %s", status, body)
	}
	s.session = created.Data.ID
	tn, err := a.Catalogs.Load(ctx, p.ID)
	if err != nil {
		b.Fatal(err)
	}
	rec, err := a.Sessions.EndpointRecord(ctx, tn, session.EndpointRequest{ProjectID: p.ID, Slug: "echo-tools", Connectors: []string{"echo"}, Mode: session.ModeTools})
	if err != nil {
		b.Fatal(err)
	}
	if _, err := a.Store.CreateEndpoint(ctx, rec); err != nil {
		b.Fatal(err)
	}
	return s
}

// post sends one request in process and returns the status and body.
func (s *callStack) post(path, body string, header map[string]string) (int, []byte) {
	req := httptest.NewRequest("POST", path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+s.key)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	rec := httptest.NewRecorder()
	s.h.ServeHTTP(rec, req)
	return rec.Code, rec.Body.Bytes()
}

// run sends the same request b.N times and fails on any answer but a
// successful one.
func (s *callStack) run(b *testing.B, path, body string) {
	b.Helper()
	header := map[string]string{"Accept": "application/json, text/event-stream", "Mcp-Protocol-Version": "2025-06-18"}
	for range 20 { // warm the caches
		s.post(path, body, header)
	}
	b.ReportAllocs()
	b.ResetTimer()
	cpu0 := cpuTime()
	for b.Loop() {
		status, out := s.post(path, body, header)
		if status != 200 || strings.Contains(string(out), `"isError":true`) || strings.Contains(string(out), `"ok":false`) || strings.Contains(string(out), `"error"`) {
			b.Fatalf("%d %s", status, out)
		}
	}
	// CPU time per call (the process's, the fake provider's included)
	// holds better than wall time on a loaded machine.
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
}

// cpuTime is the CPU time this process has used, in nanoseconds.
func cpuTime() int64 {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// TestToolsCall_LargeIntegerReachesTheProviderExactly: an integer beyond
// float64's exact range, in a session's execute and an endpoint's tool,
// reaches the provider with every digit, as through REST execute.
func TestToolsCall_LargeIntegerReachesTheProviderExactly(t *testing.T) {
	t.Parallel()
	s := newCallStack(t)
	input := `{"name":"n","count":12345678901234567891}`
	header := map[string]string{"Accept": "application/json, text/event-stream"}
	for path, body := range map[string]string{
		"/v1/sessions/" + s.session + "/mcp": `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"switchboard_execute","arguments":{"action":"echo_create_item","input":` + input + `}}}`,
		"/v1/mcp/echo-tools/u1":              `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo_create_item","arguments":` + input + `}}`,
		"/v1/tools/execute":                  `{"toolId":"echo_create_item","userId":"u1","input":` + input + `}`,
	} {
		status, out := s.post(path, body, header)
		if status != 200 || !strings.Contains(string(out), `"count":12345678901234567891`) {
			t.Errorf("%s: %d %s", path, status, out)
		}
	}
}

// BenchmarkMCPToolsCall_Session is a session's MCP tools/call of the
// execute meta tool, on the direct path and through the go-sdk.
func BenchmarkMCPToolsCall_Session(b *testing.B) {
	s := newCallStack(b)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"switchboard_execute","arguments":{"action":"echo_create_item","input":` + benchInput + `}}}`
	for _, direct := range []bool{true, false} {
		b.Run(map[bool]string{true: "direct", false: "sdk"}[direct], func(b *testing.B) {
			s.app.MCP.SetDirectCalls(direct)
			s.run(b, "/v1/sessions/"+s.session+"/mcp", body)
		})
	}
}

// BenchmarkMCPToolsCall_Endpoint is an endpoint's (tools mode) MCP
// tools/call, on the direct path and through the go-sdk.
func BenchmarkMCPToolsCall_Endpoint(b *testing.B) {
	s := newCallStack(b)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"echo_create_item","arguments":` + benchInput + `}}`
	for _, direct := range []bool{true, false} {
		b.Run(map[bool]string{true: "direct", false: "sdk"}[direct], func(b *testing.B) {
			s.app.MCP.SetDirectCalls(direct)
			s.run(b, "/v1/mcp/echo-tools/u1", body)
		})
	}
}

// BenchmarkMCPToolsCall_RESTExecute is the same tool through POST
// /v1/tools/execute, the reference the MCP path is measured against.
func BenchmarkMCPToolsCall_RESTExecute(b *testing.B) {
	s := newCallStack(b)
	s.run(b, "/v1/tools/execute", `{"toolId":"echo_create_item","userId":"u1","input":`+benchInput+`}`)
}

// BenchmarkMCPToolsCall_RESTSessionExecute is the session's execute meta
// tool through POST /v1/sessions/{id}/tools/{name}: the session lookup and
// meta tool of the MCP call, without MCP.
func BenchmarkMCPToolsCall_RESTSessionExecute(b *testing.B) {
	s := newCallStack(b)
	s.run(b, "/v1/sessions/"+s.session+"/tools/switchboard_execute", `{"arguments":{"action":"echo_create_item","input":`+benchInput+`}}`)
}
