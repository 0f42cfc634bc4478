package httpapi

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// requireBrowserEnv, set to 1 by CI, turns a missing Chromium or
// playwright-core into a failure instead of a skip.
const requireBrowserEnv = "SWITCHBOARD_TEST_REQUIRE_BROWSER"

// TestConnectPage_HeadlessChromium opens two connect links in a real
// browser (Debian's chromium, driven by playwright-core): it connects an
// API-key account through the form, sees the link's used state, and
// connects an OAuth account through the provider's consent redirect.
func TestConnectPage_HeadlessChromium(t *testing.T) {
	t.Parallel()
	dir, _ := filepath.Abs(filepath.Join("..", "..", "tests", "browser"))
	node, nodeErr := exec.LookPath("node")
	_, pwErr := os.Stat(filepath.Join(dir, "node_modules", "playwright-core"))
	_, chromeErr := os.Stat("/usr/bin/chromium")
	if nodeErr != nil || pwErr != nil || chromeErr != nil {
		if os.Getenv(requireBrowserEnv) == "1" {
			t.Fatalf("browser test needs node (%v), playwright-core in %s (%v) and /usr/bin/chromium (%v)", nodeErr, dir, pwErr, chromeErr)
		}
		t.Skip("node, tests/browser's npm packages or /usr/bin/chromium are missing (CI installs them)")
	}
	fake := newOAuthFake(t)
	srv := httptest.NewServer(nil)
	defer srv.Close()
	f := setupBase(t, sqliteDB, connectCatalog(t, fake), fake.srv, srv.URL, srv.URL)
	srv.Config.Handler = f.h
	fake.redirect = srv.URL + "/api/oauth/callback"
	id := store.NewID()
	sealed, _ := f.srv.accounts.SealClientSecret(id, "eps-secret")
	if _, err := f.store.CreateAuthConfig(context.Background(), store.AuthConfig{ID: id, ProjectID: f.project.ID, ConnectorID: "epsilon",
		Key: "epsilon_oauth", AuthMethodID: "oauth2", AuthType: "oauth2", ClientID: "eps-client", ClientSecret: sealed}); err != nil {
		t.Fatal(err)
	}
	if err := f.store.SetConnectSettings(context.Background(), f.project.ID, store.ConnectSettings{Name: "Acme App", Accent: "#0f766e"}); err != nil {
		t.Fatal(err)
	}
	keyLink := srv.URL + "/connect/" + f.link(t, `{"userId":"ann","connectors":["delta"]}`)
	oauthLink := srv.URL + "/connect/" + f.link(t, `{"userId":"ann","connectors":["epsilon"]}`)
	shots := os.Getenv("SWITCHBOARD_BROWSER_SHOTS")

	cmd := exec.Command(node, "connect.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SB_KEY_LINK="+keyLink, "SB_OAUTH_LINK="+oauthLink, "SB_API_KEY=delta-secret-key",
		"SB_HOST="+f.providerHost, "SB_SHOTS="+shots)
	out, err := cmd.Output()
	var seen map[string]string
	_ = json.Unmarshal(out, &seen)
	if err != nil {
		t.Fatalf("browser run failed: %v\n%s", err, out)
	}
	if seen["keyTitle"] != "Connect to Acme App" || !strings.Contains(seen["keyDone"], "Delta Tasks is connected") ||
		!strings.Contains(seen["usedText"], "already used") || !strings.Contains(seen["oauthResult"], "Epsilon Notes is connected") ||
		!strings.Contains(seen["oauthResult"], "octo") {
		t.Fatalf("the browser saw: %s", out)
	}
	conns, _ := f.store.ListConnections(context.Background(), f.project.ID, "ann")
	if len(conns) != 2 {
		t.Fatalf("%d accounts stored, want 2", len(conns))
	}
}
