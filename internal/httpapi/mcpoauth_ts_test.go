package httpapi

import (
	"context"
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

	"github.com/switchboard-gw/switchboard/internal/mcpauth"
	"github.com/switchboard-gw/switchboard/internal/session"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// TestMCPOAuth_TypeScriptSDKClientSignsIn runs the official TypeScript MCP
// SDK client's OAuth flow (tests/mcp-client/oauth-client.mjs) against an
// endpoint with OAuth sign-in end to end: discovery from the 401,
// registration, authorization with PKCE and resource, the user's sign-in
// with each identity option (a project's handoff, an OpenID Connect
// provider), the consent page, the code exchange, and tool calls that run
// on the signed-in user's account.
func TestMCPOAuth_TypeScriptSDKClientSignsIn(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{mcpauth.KindHandoff, mcpauth.KindOIDC} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			tsSignIn(t, kind)
		})
	}
}

// tsSignIn runs the TypeScript client's sign-in to an endpoint whose user
// comes from a handoff (a fake project app signs ann in) or from an OpenID
// Connect provider (the fake provider's preferred_username, carol).
func tsSignIn(t *testing.T, kind string) {
	node, dir := tsClient(t)
	srv := httptest.NewServer(nil)
	defer srv.Close()
	provider := httptest.NewTLSServer(http.HandlerFunc(fakeDelta))
	defer provider.Close()
	f := setupBase(t, sqliteDB, testCatalogFS, provider, srv.URL, srv.URL)
	srv.Config.Handler = f.h
	user := "ann"
	if kind == mcpauth.KindHandoff {
		// The project's app: it signs its user (ann) in and sends the
		// browser back with the assertion.
		app := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			back := q.Get("return_to") + "?" + url.Values{"sb_request": {q.Get("sb_request")},
				"assertion": {signAssertionFor(t, srv.URL, "ann", q.Get("nonce"), f.clock.Now().Add(2*time.Minute))}}.Encode()
			http.Redirect(w, r, back, http.StatusFound)
		}))
		defer app.Close()
		f.oauthEndpointAt(t, "ts-signin", app.URL+"/signin")
	} else {
		user = "carol"
		idp := newFakeOIDC(t, f.clock.Now)
		rec, err := f.srv.sessions.EndpointRecord(context.Background(), f.tenant(t, f.project.ID), session.EndpointRequest{ProjectID: f.project.ID,
			Slug: "ts-signin", Connectors: []string{"delta"}, Mode: session.ModeTools})
		if err != nil {
			t.Fatal(err)
		}
		rec.ID = store.NewID()
		if err := f.srv.mcpAuth.Configure(&rec, store.AuthOAuth, mcpauth.Identity{Kind: mcpauth.KindOIDC, Issuer: idp.srv.URL, ClientID: "sb-client",
			UserClaim: "preferred_username"}, "sb-client-secret"); err != nil {
			t.Fatal(err)
		}
		if _, err := f.store.CreateEndpoint(context.Background(), rec); err != nil {
			t.Fatal(err)
		}
	}
	if st, _, raw := f.json("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","userId":%q,"credential":{"type":"api_key","apiKey":"delta-secret-key","host":%q}}`, user, f.providerHost)); st != 200 {
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
	if kind == mcpauth.KindOIDC {
		wantBrowser = []string{"GET /oauth/authorize 302", "GET /authorize 302", "GET /oauth/oidc/callback 303", "GET /oauth/consent/", "POST /oauth/consent/"}
	}
	for i, w := range wantBrowser {
		if i >= len(got.Browser) || !strings.HasPrefix(got.Browser[i], w) {
			t.Fatalf("browser steps %v, want %v", got.Browser, wantBrowser)
		}
	}
	if !slices.Contains(got.Tools, "delta_get_task") || len(got.Results) != 1 || got.Results[0].IsError || !strings.Contains(got.Results[0].Text, "/v1/tasks/5") {
		t.Fatalf("tools: %s", out)
	}
}
