package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// TestDashboard_HeadlessChromium signs in to the dashboard in a real
// browser (Debian's chromium, driven by playwright-core), creates a
// project, a key, an endpoint and an OAuth client, switches a tool off,
// invites an operator, renames the project and signs out, with axe-core
// run on every screen.
// With SWITCHBOARD_BROWSER_SHOTS=<dir> it saves each screen at desktop
// (1280) and phone (390) widths as dashboard-<screen>-<width>.png.
func TestDashboard_HeadlessChromium(t *testing.T) {
	t.Parallel()
	node, dir := browserTools(t)
	// The server's URL is needed to build the fixture: the handler is set
	// after it starts, through an atomic value (a plain field write would
	// race with the server's goroutines).
	var handler atomic.Value
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		handler.Load().(http.Handler).ServeHTTP(w, r)
	}))
	defer srv.Close()
	f := setupBase(t, sqliteDB, testCatalogFS, nil, srv.URL, srv.URL)
	handler.Store(f.h)
	op := dashOperator(t, f, "ops@example.com", "") // in no project yet

	cmd := exec.Command(node, "dashboard.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SB_BASE="+srv.URL, "SB_EMAIL=ops@example.com", "SB_PASSWORD="+dashPassword,
		"SB_SHOTS="+os.Getenv("SWITCHBOARD_BROWSER_SHOTS"))
	out, err := cmd.Output()
	var seen struct {
		Axe, Overflow                                    map[string][]string
		CSP                                              []string
		SigninURL, WrongPassword, EmptyProjects          string
		ProjectURL, KeysFlash, KeysEmpty, Key, Clipboard string
		KeyRows                                          int
		KeyShownAgain                                    bool
		EndpointsEmpty, CursorConfig                     string
		EndpointURLs                                     []string
		SearchResults                                    []string
		ToolFlash                                        string
		ToolOff                                          bool
		RedirectURL, OAuthFlash                          string
		OAuthListed, OAuthSecretShown                    bool
		RenameFlash, SignedOut, AfterSignOut, InviteLink string
		NoJSKey                                          bool
		Error                                            string
	}
	_ = json.Unmarshal(out, &seen)
	if err != nil {
		t.Fatalf("browser run failed: %v\n%s", err, out)
	}
	keyRe := regexp.MustCompile(`^sb_[0-9a-f]{64}$`)
	checks := []struct {
		what string
		ok   bool
	}{
		{"signed out, /dashboard goes to the sign-in page", strings.HasPrefix(seen.SigninURL, srv.URL+"/dashboard/signin")},
		{"a wrong password is said in words", strings.Contains(seen.WrongPassword, "not correct")},
		{"no project: the empty state says what to do", strings.Contains(seen.EmptyProjects, "Create your first project")},
		{"a new project opens on its keys", strings.Contains(seen.ProjectURL, "/keys") && strings.Contains(seen.KeysFlash, "Acme")},
		{"no keys: the empty state says what to do", strings.Contains(seen.KeysEmpty, "Create a key below")},
		{"the key is shown once", keyRe.MatchString(seen.Key) && seen.KeyRows == 1 && !seen.KeyShownAgain},
		{"the copy button copies the key", seen.Clipboard == seen.Key},
		{"no endpoints: the empty state says what to do", strings.Contains(seen.EndpointsEmpty, "Create one below")},
		{"the endpoint's URLs, on the API host and on the MCP host", len(seen.EndpointURLs) == 2 &&
			slices.Contains(seen.EndpointURLs, srv.URL+"/v1/mcp/support/<userId>") && slices.Contains(seen.EndpointURLs, "http://mcp.sb.test/support/<userId>")},
		{"the client configuration", strings.Contains(seen.CursorConfig, `"mcpServers"`) && strings.Contains(seen.CursorConfig, "Bearer <API key>")},
		{"search finds the connector by its tools", strings.Join(seen.SearchResults, ",") == "Beta Books"},
		{"a tool switched off", seen.ToolOff && strings.Contains(seen.ToolFlash, "beta_delete_invoice")},
		{"the redirect URL to register", seen.RedirectURL == srv.URL+"/api/oauth/callback"},
		{"the OAuth client is listed without its secret", seen.OAuthListed && !seen.OAuthSecretShown && strings.Contains(seen.OAuthFlash, "alpha")},
		{"an invited operator's sign-in link", strings.HasPrefix(seen.InviteLink, srv.URL+"/dashboard/signin/link/")},
		{"the project is renamed", strings.Contains(seen.RenameFlash, "Acme Inc")},
		{"the core forms work without JavaScript", seen.NoJSKey},
		{"signing out ends the session", strings.Contains(seen.SignedOut, "signed out") && strings.Contains(seen.AfterSignOut, "/dashboard/signin")},
		{"no CSP violation", len(seen.CSP) == 0},
		{"axe ran on every screen", len(seen.Axe) >= 9},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s; the browser saw: %s", c.what, out)
		}
	}
	for screen, v := range seen.Overflow {
		t.Errorf("at phone width, %s sticks out sideways on %s", v, screen)
	}
	for screen, v := range seen.Axe {
		if len(v) > 0 {
			t.Errorf("axe-core: serious or critical violations on %s: %v", screen, v)
		}
	}
	// What the browser did is in the database.
	ctx := context.Background()
	projects, _ := f.store.OperatorProjects(ctx, op.ID)
	if len(projects) != 1 || projects[0].ProjectName != "Acme Inc" || projects[0].Role != store.RoleOwner {
		t.Fatalf("the operator's projects: %+v", projects)
	}
	pid := projects[0].ProjectID
	if keys, _ := f.store.ListAPIKeys(ctx, pid); len(keys) != 2 || keys[0].Name != "backend" || keys[0].ExpiresAt == nil {
		t.Fatalf("keys: %+v", keys)
	}
	if e, err := f.store.EndpointBySlug(ctx, "support"); err != nil || e.ProjectID != pid || !e.RequireUser {
		t.Fatalf("endpoint: %+v %v", e, err)
	}
	if acs, _ := f.store.ListAuthConfigs(ctx, pid, "alpha"); len(acs) != 1 || acs[0].ClientID != "alpha-client-id" {
		t.Fatalf("auth configs: %+v", acs)
	}
	if r := f.do(f.h, "GET", "/v1/connectors", "Bearer "+seen.Key, ""); r.status != 200 {
		t.Fatalf("the key made in the browser: %d", r.status)
	}
}
