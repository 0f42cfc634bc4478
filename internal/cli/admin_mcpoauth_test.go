package cli

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// TestAdminMCPServerOAuth_RegistrationRefused: `mcp-server add --oauth`
// discovers the server's authorization server from its 401 and, when
// that refuses dynamic registration, says so and what to do instead, and
// stores nothing.
func TestAdminMCPServerOAuth_RegistrationRefused(t *testing.T) {
	t.Parallel()
	var srv *httptest.Server
	var registered atomic.Int32
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/mcp":
			w.Header().Set("WWW-Authenticate", `Bearer resource_metadata="`+srv.URL+`/meta", scope="files:read"`)
			w.WriteHeader(401)
		case "/meta":
			_ = json.NewEncoder(w).Encode(map[string]any{"resource": srv.URL + "/mcp", "authorization_servers": []string{srv.URL + "/as"}})
		case "/.well-known/oauth-authorization-server/as":
			_ = json.NewEncoder(w).Encode(map[string]any{"issuer": srv.URL + "/as", "authorization_endpoint": srv.URL + "/as/authorize",
				"token_endpoint": srv.URL + "/as/token", "registration_endpoint": srv.URL + "/as/register",
				"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"}})
		case "/as/register":
			registered.Add(1)
			w.WriteHeader(400)
			_, _ = w.Write([]byte(`{"error":"invalid_client_metadata","error_description":"registration is closed"}`))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	env := dbEnv(t)
	env["SWITCHBOARD_OUTBOUND_ALLOW"] = "mcp=127.0.0.0/8"
	proj := newProject(t, env)
	code, _, stderr := runCLI(t, env, "admin", "mcp-server", "add", "--project", proj.ID, "--id", "files", "--url", srv.URL+"/mcp", "--oauth")
	if code != exitError || registered.Load() != 1 ||
		!strings.Contains(stderr, "refused to register Switchboard as a client (invalid_client_metadata: registration is closed)") ||
		!strings.Contains(stderr, "/api/oauth/callback and add the server with --client-id") {
		t.Fatalf("add: %d (registrations %d) %s", code, registered.Load(), stderr)
	}
	if code, out, _ := runCLI(t, env, "admin", "connectors", "list", "--project", proj.ID, "--json"); code != 0 || strings.Contains(out, "files") {
		t.Fatalf("connectors after a refused registration: %d %s", code, out)
	}
	if code, out, _ := runCLI(t, env, "admin", "authconfig", "list", "--project", proj.ID, "--json"); code != 0 || strings.Contains(out, "files") {
		t.Fatalf("auth configs after a refused registration: %d %s", code, out)
	}
	// Added without --oauth, the server's 401 comes with a hint.
	if code, _, stderr := runCLI(t, env, "admin", "mcp-server", "add", "--project", proj.ID, "--id", "files", "--url", srv.URL+"/mcp"); code != exitError ||
		!strings.Contains(stderr, "401 Unauthorized; if its users sign in to it with OAuth, add it with --oauth") {
		t.Fatalf("add without --oauth: %d %s", code, stderr)
	}
	// A client secret without a client id, or a client without --oauth, is a usage error.
	for _, args := range [][]string{{"--oauth", "--client-secret", "s"}, {"--client-id", "c"}} {
		code, _, stderr := runCLI(t, env, append([]string{"admin", "mcp-server", "add", "--project", proj.ID, "--id", "files", "--url", srv.URL + "/mcp"}, args...)...)
		if code != exitUsage || !strings.Contains(stderr, "--client-id needs --oauth") {
			t.Errorf("%v: %d %s", args, code, stderr)
		}
	}
}
