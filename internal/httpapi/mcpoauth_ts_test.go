package httpapi

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"
)

// TestMCPOAuth_TypeScriptSDKClientSignsIn runs the official TypeScript MCP
// SDK client's OAuth flow (tests/mcp-client/oauth-client.mjs) against an
// endpoint with OAuth sign-in end to end: discovery from the 401,
// registration, authorization with PKCE and resource, the project's handoff
// (a fake project app that signs ann in), the consent page, the code
// exchange, and tool calls that run on ann's account.
func TestMCPOAuth_TypeScriptSDKClientSignsIn(t *testing.T) {
	t.Parallel()
	node, dir := tsClient(t)
	srv := httptest.NewServer(nil)
	defer srv.Close()
	provider := httptest.NewTLSServer(http.HandlerFunc(fakeDelta))
	defer provider.Close()
	f := setupBase(t, sqliteDB, testCatalogFS, provider, srv.URL, srv.URL)
	srv.Config.Handler = f.h
	// The project's app: it signs its user (ann) in and sends the browser
	// back with the assertion.
	app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		back := q.Get("return_to") + "?" + url.Values{"sb_request": {q.Get("sb_request")},
			"assertion": {signAssertionFor(t, srv.URL, "ann", q.Get("nonce"), f.clock.Now().Add(2*time.Minute))}}.Encode()
		http.Redirect(w, r, back, http.StatusFound)
	}))
	defer app.Close()
	f.oauthEndpointAt(t, "ts-signin", app.URL+"/signin")
	if st, _, raw := f.json("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","userId":"ann","credential":{"type":"api_key","apiKey":"delta-secret-key","host":%q}}`, f.providerHost)); st != 200 {
		t.Fatal(raw)
	}

	cmd := exec.Command(node, "oauth-client.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "SB_URL="+srv.URL+"/v1/mcp/ts-signin", `SB_CALLS=[{"name":"delta_get_task","arguments":{"id":"5"}}]`)
	out, err := cmd.Output()
	if err != nil {
		var stderr string
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("client failed: %v\n%s\n%s", err, out, stderr)
	}
	var got struct {
		ClientID  string
		Authorize struct{ Resource, Method string }
		Browser   []string
		Consent   bool   `json:"consentShowsClient"`
		Prefix    string `json:"tokenPrefix"`
		Refresh   bool   `json:"hasRefresh"`
		Tools     []string
		Results   []struct {
			Name    string
			IsError bool
			Text    string
		}
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("client output: %v\n%s", err, out)
	}
	if got.ClientID == "" || got.Authorize.Resource != srv.URL+"/v1/mcp/ts-signin" || got.Authorize.Method != "S256" || !got.Consent ||
		got.Prefix != "sbat_" || !got.Refresh {
		t.Fatalf("sign-in: %s", out)
	}
	wantBrowser := []string{"GET /oauth/authorize 302", "GET /signin 302", "GET /oauth/handoff 303", "GET /oauth/consent/", "POST /oauth/consent/"}
	for i, w := range wantBrowser {
		if i >= len(got.Browser) || !strings.HasPrefix(got.Browser[i], w) {
			t.Fatalf("browser steps %v, want %v", got.Browser, wantBrowser)
		}
	}
	if !slices.Contains(got.Tools, "delta_get_task") || len(got.Results) != 1 || got.Results[0].IsError || !strings.Contains(got.Results[0].Text, "/v1/tasks/5") {
		t.Fatalf("tools: %s", out)
	}
}
