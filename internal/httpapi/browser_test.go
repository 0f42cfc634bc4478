package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
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

// browserTools returns node and tests/browser, where the browser scripts
// and their npm packages (playwright-core, axe-core) are; without them, or
// without Debian's chromium, the test is skipped, or fails when CI asks
// for it (requireBrowserEnv).
func browserTools(t *testing.T) (node, dir string) {
	t.Helper()
	dir, _ = filepath.Abs(filepath.Join("..", "..", "tests", "browser"))
	node, nodeErr := exec.LookPath("node")
	_, pwErr := os.Stat(filepath.Join(dir, "node_modules", "playwright-core"))
	_, axeErr := os.Stat(filepath.Join(dir, "node_modules", "axe-core"))
	_, chromeErr := os.Stat("/usr/bin/chromium")
	if nodeErr != nil || pwErr != nil || axeErr != nil || chromeErr != nil {
		if os.Getenv(requireBrowserEnv) == "1" {
			t.Fatalf("browser test needs node (%v), playwright-core (%v) and axe-core (%v) in %s and /usr/bin/chromium (%v)", nodeErr, pwErr, axeErr, dir, chromeErr)
		}
		t.Skip("node, tests/browser's npm packages or /usr/bin/chromium are missing (CI installs them)")
	}
	return node, dir
}

// TestConnectPage_HeadlessChromium opens two connect links in a real
// browser (Debian's chromium, driven by playwright-core): it connects an
// API-key account through the form, sees the link's used state, and
// connects an OAuth account through the provider's consent redirect.
func TestConnectPage_HeadlessChromium(t *testing.T) {
	t.Parallel()
	node, dir := browserTools(t)
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
	ctx := context.Background()
	keyLink := srv.URL + "/connect/" + f.link(t, `{"userId":"ann","connectors":["delta"]}`)
	oauthLink := srv.URL + "/connect/" + f.link(t, `{"userId":"ann","connectors":["epsilon"]}`)
	allLink := srv.URL + "/connect/" + f.link(t, `{"userId":"bob"}`)
	// cy's zeta account needs reconnecting; the page reconnects it.
	st, m, raw := f.json("POST", "/v1/connections", `{"connectorId":"zeta","userId":"cy","credential":{"type":"api_key","apiKey":"zeta-old"}}`)
	if st != 200 {
		t.Fatalf("cy's account: %s", raw)
	}
	broken := dataOf(m)["id"].(string)
	if err := f.store.SetConnectionStatus(ctx, broken, 1, store.StatusReauthRequired); err != nil {
		t.Fatal(err)
	}
	reconnectLink := srv.URL + "/connect/" + f.link(t, `{"userId":"cy","connectors":["zeta"]}`)
	if err := f.store.SetRedirectURLs(ctx, f.project.ID, []string{srv.URL + "/health"}); err != nil {
		t.Fatal(err)
	}
	redirectLink := srv.URL + "/connect/" + f.link(t, `{"userId":"dee","connectors":["zeta"],"redirectUrl":"`+srv.URL+`/health"}`)
	shots := os.Getenv("SWITCHBOARD_BROWSER_SHOTS")

	cmd := exec.Command(node, "connect.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SB_KEY_LINK="+keyLink, "SB_OAUTH_LINK="+oauthLink, "SB_API_KEY=delta-secret-key",
		"SB_HOST="+f.providerHost, "SB_SHOTS="+shots, "SB_ALL_LINK="+allLink, "SB_RECONNECT_LINK="+reconnectLink,
		"SB_REDIRECT_LINK="+redirectLink, "SB_BAD_LINK="+srv.URL+"/connect/not-a-link-token")
	out, err := cmd.Output()
	var seen map[string]any
	_ = json.Unmarshal(out, &seen)
	if err != nil {
		t.Fatalf("browser run failed: %v\n%s", err, out)
	}
	str := func(k string) string { s, _ := seen[k].(string); return s }
	checks := []struct {
		what string
		ok   bool
	}{
		{"the title names the Connect name", str("keyTitle") == "Connect to Acme App"},
		{"an invalid link says so in words", strings.HasPrefix(str("badText"), "This link is not valid.")},
		{"an empty submit says one thing", str("emptyText") == "Fill in API key and Host and port."},
		{"the key account is connected", strings.Contains(str("keyDone"), "Delta Tasks is connected")},
		{"without a redirect the page says it can be closed", seen["keyClose"] == true},
		{"a used link says so", strings.Contains(str("usedText"), "already used")},
		{"an unfiltered link lists every connector", seen["pickCount"] == float64(6)},
		{"no form before a choice", seen["formsBeforeChoice"] == float64(0)},
		{"no broken logo", seen["brokenImages"] == float64(0)},
		{"search finds one connector", fmt.Sprint(seen["searchVisible"]) == "[Zeta Desk]"},
		{"a search without results says so", seen["noMatch"] == true},
		{"one connector's form after the choice", seen["formsAfterChoice"] == float64(1)},
		{"a refused key is explained", strings.HasPrefix(str("refusedText"), "Zeta Desk did not accept these details.")},
		{"a broken account is pointed out", strings.Contains(str("reconnectStatus"), "needs reconnecting")},
		{"a one-application link opens on the reconnect", seen["reconnectFirst"] == true},
		{"reconnecting keeps the account", strings.Contains(str("reconnectNote"), "keeps its name")},
		{"the account is reconnected", strings.Contains(str("reconnectDone"), "Zeta Desk is reconnected")},
		{"Continue goes to the redirect", strings.HasPrefix(str("continuedTo"), srv.URL+"/health?") && strings.Contains(str("continueHref"), "status=success")},
		{"the OAuth account is connected", strings.Contains(str("oauthResult"), "Epsilon Notes is connected") && strings.Contains(str("oauthResult"), "octo")},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s; the browser saw: %s", c.what, out)
		}
	}
	// The reconnect replaced the broken account's key: same account, a new
	// revision, active, and no second account.
	cy, _ := f.store.ListConnections(ctx, f.project.ID, "cy")
	if len(cy) != 1 || cy[0].ID != broken || cy[0].Name != "default" || cy[0].Status != store.StatusActive || cy[0].Revision < 2 {
		t.Fatalf("cy's accounts after the reconnect: %+v", cy)
	}
	conns, _ := f.store.ListConnections(context.Background(), f.project.ID, "ann")
	if len(conns) != 2 {
		t.Fatalf("%d accounts stored, want 2", len(conns))
	}
}
