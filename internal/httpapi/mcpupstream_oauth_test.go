package httpapi

import (
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
	"github.com/switchboard-gw/switchboard/internal/upstream"
)

// oauthMCP is a vendor-hosted MCP server that takes only OAuth bearer
// tokens (the go-sdk's auth middleware, with protected-resource
// metadata), and its own tiny authorization server: metadata, dynamic
// client registration, the authorization code flow with PKCE (S256)
// and resource indicators, and rotating refresh tokens.
type oauthMCP struct {
	as, mcp *httptest.Server
	// refuseDCR makes the registration endpoint refuse every client.
	refuseDCR bool

	mu sync.Mutex
	// user is who "signs in" at the authorize endpoint next.
	user    string
	clients map[string]string // client id -> secret
	codes   map[string]oauthCode
	access  map[string]string // live access token -> user
	refresh map[string]string // live refresh token -> user
	n       int
	// grants are the token requests the server granted: grant type and
	// resource; calls the users each MCP tool call ran as, by token.
	grants []string
	calls  []string
}

type oauthCode struct {
	client, redirect, challenge, resource, user string
}

const sbCallback = "http://sb.test/api/oauth/callback"

func newOAuthMCP(t *testing.T) *oauthMCP {
	t.Helper()
	f := &oauthMCP{clients: map[string]string{}, codes: map[string]oauthCode{}, access: map[string]string{}, refresh: map[string]string{}}
	f.as = httptest.NewTLSServer(http.HandlerFunc(f.serveAS))
	t.Cleanup(f.as.Close)

	srv := mcp.NewServer(&mcp.Implementation{Name: "files", Title: "Vendor Files", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "listFiles", Description: "Lists the files of the signed-in user of the vendor.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{}}`), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			info := req.Extra.TokenInfo
			f.mu.Lock()
			f.calls = append(f.calls, info.UserID)
			f.mu.Unlock()
			out := map[string]any{"user": info.UserID, "files": []string{info.UserID + "-notes.txt"}}
			b, _ := json.Marshal(out)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: out}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	mux := http.NewServeMux()
	f.mcp = httptest.NewTLSServer(mux)
	t.Cleanup(f.mcp.Close)
	mux.Handle("/.well-known/oauth-protected-resource/mcp", auth.ProtectedResourceMetadataHandler(&oauthex.ProtectedResourceMetadata{
		Resource: f.resource(), AuthorizationServers: []string{f.as.URL}, ScopesSupported: []string{"files:read"}}))
	mux.Handle("/mcp", auth.RequireBearerToken(f.verify, &auth.RequireBearerTokenOptions{
		ResourceMetadataURL: f.mcp.URL + "/.well-known/oauth-protected-resource/mcp", Scopes: []string{"files:read"}})(h))
	return f
}

// resource is the MCP server's URL, which its tokens are bound to.
func (f *oauthMCP) resource() string { return f.mcp.URL + "/mcp" }

func (f *oauthMCP) verify(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	user, ok := f.access[token]
	if !ok {
		return nil, auth.ErrInvalidToken
	}
	return &auth.TokenInfo{UserID: user, Scopes: []string{"files:read"}, Expiration: time.Now().Add(time.Hour)}, nil
}

// expire ends every access token the server gave (as time would).
func (f *oauthMCP) expire() {
	f.mu.Lock()
	f.access = map[string]string{}
	f.mu.Unlock()
}

func (f *oauthMCP) serveAS(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fail := func(code int, e string) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_, _ = fmt.Fprintf(w, `{"error":%q,"error_description":"the fake refused"}`, e)
	}
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"issuer": f.as.URL, "authorization_endpoint": f.as.URL + "/authorize",
			"token_endpoint": f.as.URL + "/token", "registration_endpoint": f.as.URL + "/register",
			"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"},
			"grant_types_supported":                 []string{"authorization_code", "refresh_token"},
			"token_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post"}})
	case "/register":
		var meta oauthex.ClientRegistrationMetadata
		if err := json.NewDecoder(r.Body).Decode(&meta); err != nil || r.Method != "POST" {
			fail(400, "invalid_client_metadata")
			return
		}
		if f.refuseDCR {
			fail(400, "invalid_client_metadata")
			return
		}
		if !slices.Equal(meta.RedirectURIs, []string{sbCallback}) || !slices.Contains(meta.GrantTypes, "refresh_token") {
			fail(400, "invalid_redirect_uri")
			return
		}
		f.n++
		id, secret := fmt.Sprintf("dcr-%d", f.n), fmt.Sprintf("dcr-secret-%d", f.n)
		f.clients[id] = secret
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(201)
		_ = json.NewEncoder(w).Encode(map[string]any{"client_id": id, "client_secret": secret, "redirect_uris": meta.RedirectURIs,
			"token_endpoint_auth_method": meta.TokenEndpointAuthMethod})
	case "/authorize":
		q := r.URL.Query()
		if _, ok := f.clients[q.Get("client_id")]; !ok || q.Get("redirect_uri") != sbCallback || q.Get("response_type") != "code" ||
			q.Get("code_challenge_method") != "S256" || q.Get("code_challenge") == "" || q.Get("resource") != f.resource() ||
			q.Get("scope") != "files:read" {
			http.Error(w, "bad authorization request", 400)
			return
		}
		f.n++
		code := fmt.Sprintf("code-%d", f.n)
		f.codes[code] = oauthCode{client: q.Get("client_id"), redirect: q.Get("redirect_uri"), challenge: q.Get("code_challenge"),
			resource: q.Get("resource"), user: f.user}
		http.Redirect(w, r, q.Get("redirect_uri")+"?code="+code+"&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
	case "/token":
		_ = r.ParseForm()
		id, secret, ok := r.BasicAuth()
		if !ok || f.clients[id] != secret || secret == "" {
			fail(401, "invalid_client")
			return
		}
		form := r.PostForm
		if form.Get("resource") != f.resource() {
			fail(400, "invalid_target")
			return
		}
		var user string
		switch form.Get("grant_type") {
		case "authorization_code":
			c, ok := f.codes[form.Get("code")]
			delete(f.codes, form.Get("code"))
			sum := sha256.Sum256([]byte(form.Get("code_verifier")))
			if !ok || c.client != id || c.redirect != form.Get("redirect_uri") || c.resource != form.Get("resource") ||
				base64.RawURLEncoding.EncodeToString(sum[:]) != c.challenge {
				fail(400, "invalid_grant")
				return
			}
			user = c.user
		case "refresh_token":
			u, ok := f.refresh[form.Get("refresh_token")]
			if !ok {
				fail(400, "invalid_grant")
				return
			}
			delete(f.refresh, form.Get("refresh_token")) // rotated
			user = u
		default:
			fail(400, "unsupported_grant_type")
			return
		}
		f.grants = append(f.grants, form.Get("grant_type")+" "+form.Get("resource"))
		f.n++
		at, rt := fmt.Sprintf("at-%s-%d", user, f.n), fmt.Sprintf("rt-%s-%d", user, f.n)
		f.access[at], f.refresh[rt] = user, user
		// A refreshed token lasts a day: longer than expireTokens moves
		// the fixture's clock past the first ones.
		lifetime := 3600
		if form.Get("grant_type") == "refresh_token" {
			lifetime = 86400
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": at, "refresh_token": rt, "token_type": "Bearer",
			"expires_in": lifetime, "scope": "files:read"})
	default:
		http.NotFound(w, r)
	}
}

// addOAuthServer adds the fake as the project's MCP server "files", as
// `admin mcp-server add --oauth` does.
func addOAuthServer(t *testing.T, f *fixture, fake *oauthMCP, clientID, clientSecret string) (upstream.OAuthAdded, error) {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(fake.mcp.Certificate())
	guard := netguard.New(netguard.Options{AllowLoopback: true, TLSConfig: &tls.Config{RootCAs: pool}})
	return upstream.AddOAuthMCP(context.Background(), upstream.OAuthServer{Store: f.store, Keyring: f.ring, Scope: guard.MCPServer("files"),
		ProjectID: f.project.ID, URL: fake.resource(), Options: upstream.MCPOptions{ID: "files", DataClass: "standard"}, RedirectURI: sbCallback,
		ClientID: clientID, ClientSecret: clientSecret, Headers: map[string]string{}})
}

// connectOAuth runs user's sign-in through a connect link: the Connect
// page's authorize, the authorization server's redirect (followed in Go,
// the fake signs user in), and the callback.
func connectOAuth(t *testing.T, f *fixture, fake *oauthMCP, user string) {
	t.Helper()
	token := f.link(t, `{"userId":"`+user+`","connectors":["files"]}`)
	authURL, cookie := f.authorize(t, token, `{"authConfigId":"`+oauthConfigID(t, f, token)+`"}`)
	pool := x509.NewCertPool()
	pool.AddCert(fake.as.Certificate())
	browser := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	fake.mu.Lock()
	fake.user = user
	fake.mu.Unlock()
	resp, err := browser.Get(authURL)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	loc, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusFound || loc == nil || !strings.HasPrefix(loc.String(), sbCallback+"?") {
		t.Fatalf("the authorization server did not send the browser back: %d %s (authorize URL %s)", resp.StatusCode, body, authURL)
	}
	r := f.do(f.h, "GET", loc.Path+"?"+loc.RawQuery, "", "", "Cookie", cookie)
	if r.status != 200 || !strings.Contains(string(r.body), "is connected") {
		t.Fatalf("callback: %d %s", r.status, r.body)
	}
}

// TestMCPServerOAuth_UsersSignInAndRunToolsAsThemselves adds an MCP server
// that declares OAuth (discovery from its 401, registration), connects two
// users through the Connect page, runs its tool as each, and refreshes an
// expired token before the next call.
func TestMCPServerOAuth_UsersSignInAndRunToolsAsThemselves(t *testing.T) {
	t.Parallel()
	for _, db := range bothStores {
		t.Run(db.name, func(t *testing.T) {
			t.Parallel()
			if db.name == "postgres" {
				storetest.PostgresURL(t)
			}
			f, fake := setupWithFake(t, db.open)
			runOAuthServerScenario(t, f, fake)
		})
	}
}

// setupWithFake is a fixture on db with a fresh OAuth-protected MCP server.
func setupWithFake(t *testing.T, db database) (*fixture, *oauthMCP) {
	fake := newOAuthMCP(t)
	return setupWith(t, db, testCatalogFS, fake.mcp), fake
}

func runOAuthServerScenario(t *testing.T, f *fixture, fake *oauthMCP) {
	ctx := context.Background()
	added, err := addOAuthServer(t, f, fake, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if !added.Registered || !added.ToolsPending || added.AuthConfig.ClientID != "dcr-1" || len(added.AuthConfig.ClientSecret) == 0 ||
		strings.Contains(string(added.AuthConfig.ClientSecret), "dcr-secret") {
		t.Fatalf("added: registered %v, tools pending %v, client %q", added.Registered, added.ToolsPending, added.AuthConfig.ClientID)
	}
	m := added.Connector.AuthMethods
	if len(m) != 1 || m[0].OAuth2.Resource != fake.resource() || !m[0].OAuth2.PKCE || m[0].OAuth2.TokenURL != fake.as.URL+"/token" ||
		!slices.Equal(m[0].OAuth2.Scopes, []string{"files:read"}) {
		t.Fatalf("auth methods: %+v", m)
	}

	// Before anyone signed in, the server is a connector without tools.
	if st, body, raw := f.json("GET", "/v1/connectors/files", ""); st != 200 || dataOf(body)["mcp"] != true {
		t.Fatalf("the server before any sign-in: %d %s", st, raw)
	}
	connectOAuth(t, f, fake, "alice")
	// The first user's token listed the tools, classified as the server
	// was added, and the OAuth method stayed.
	pc, err := f.store.GetProjectConnector(ctx, f.project.ID, "files")
	var def catalog.Connector
	if err != nil || json.Unmarshal(pc.Definition, &def) != nil || len(def.Tools) != 1 || def.Tools[0].ID != "files_list_files" ||
		def.Tools[0].DataClassification != "standard" || len(def.AuthMethods) != 1 || def.AuthMethods[0].OAuth2.Resource != fake.resource() {
		t.Fatalf("the server's definition after the first sign-in: %s %v", pc.Definition, err)
	}
	st, body, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"files_list_files","userId":"alice","input":{}}`)
	if st != 200 || dataOf(body)["user"] != "alice" {
		t.Fatalf("alice's call: %d %s", st, raw)
	}
	connectOAuth(t, f, fake, "bob")
	for _, u := range []string{"bob", "alice", "bob"} {
		st, body, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"files_list_files","userId":"`+u+`","input":{}}`)
		if st != 200 || dataOf(body)["user"] != u {
			t.Fatalf("%s's call ran as %v: %d %s", u, dataOf(body)["user"], st, raw)
		}
	}
	// A user without an account of the server gets the usual error.
	r := f.do(f.h, "POST", "/v1/tools/execute", "Bearer "+f.key, `{"toolId":"files_list_files","userId":"carol","input":{}}`,
		"Content-Type", "application/json")
	if code := errorCode(t, r); code != "MISSING_CONNECTION" {
		t.Fatalf("carol without an account: %s %s", code, r.body)
	}
	fake.mu.Lock()
	calls := append([]string(nil), fake.calls...)
	fake.mu.Unlock()
	if !slices.Equal(calls, []string{"alice", "bob", "alice", "bob"}) {
		t.Fatalf("the server ran calls as %v", calls)
	}

	// The tokens expire: the next call refreshes alice's first (with
	// the resource), then runs with the new token.
	fake.expire()
	expireTokens(f)
	st, body, raw = f.json("POST", "/v1/tools/execute", `{"toolId":"files_list_files","userId":"alice","input":{}}`)
	if st != 200 || dataOf(body)["user"] != "alice" {
		t.Fatalf("alice's call after expiry: %d %s", st, raw)
	}
	fake.mu.Lock()
	grants := append([]string(nil), fake.grants...)
	fake.mu.Unlock()
	want := []string{"authorization_code " + fake.resource(), "authorization_code " + fake.resource(), "refresh_token " + fake.resource()}
	if !slices.Equal(grants, want) {
		t.Fatalf("token requests %v, want %v", grants, want)
	}
	conns, _ := f.store.ListConnections(ctx, f.project.ID, "alice")
	cred, err := f.srv.accounts.Open(conns[0])
	if err != nil || !strings.HasPrefix(cred.AccessToken, "at-alice-") || cred.AccessToken == "at-alice-3" {
		t.Fatalf("alice's stored token after the refresh: %q %v", cred.AccessToken, err)
	}

	// A token the server stops taking before its expiry (revoked) is
	// refreshed once on the 401, and the call retried.
	fake.expire()
	st, body, raw = f.json("POST", "/v1/tools/execute", `{"toolId":"files_list_files","userId":"alice","input":{}}`)
	if st != 200 || dataOf(body)["user"] != "alice" {
		t.Fatalf("alice's call after a revocation: %d %s", st, raw)
	}
	fake.mu.Lock()
	grants = append([]string(nil), fake.grants...)
	fake.mu.Unlock()
	if len(grants) != 4 || grants[3] != "refresh_token "+fake.resource() {
		t.Fatalf("token requests after a revocation: %v", grants)
	}

	// A refresh the server refuses asks the user to connect again.
	fake.mu.Lock()
	fake.refresh = map[string]string{}
	fake.mu.Unlock()
	fake.expire()
	expireTokens(f)
	r = f.do(f.h, "POST", "/v1/tools/execute", "Bearer "+f.key, `{"toolId":"files_list_files","userId":"bob","input":{}}`,
		"Content-Type", "application/json")
	if code := errorCode(t, r); code != "REAUTH_REQUIRED" {
		t.Fatalf("bob after a refused refresh: %s %s", code, r.body)
	}
	conns, _ = f.store.ListConnections(ctx, f.project.ID, "bob")
	if len(conns) != 1 || conns[0].Status != store.StatusReauthRequired {
		t.Fatalf("bob's account: %+v", conns)
	}
}

// TestMCPServerOAuth_RegistrationRefused: an authorization server that
// refuses dynamic registration leaves nothing stored and tells the
// operator how to configure a client instead; a configured client is
// then used as given.
func TestMCPServerOAuth_RegistrationRefused(t *testing.T) {
	t.Parallel()
	fake := newOAuthMCP(t)
	fake.refuseDCR = true
	f := setupWith(t, storeOpen, testCatalogFS, fake.mcp)
	_, err := addOAuthServer(t, f, fake, "", "")
	if err == nil || !strings.Contains(err.Error(), "refused to register Switchboard as a client (invalid_client_metadata: the fake refused)") ||
		!strings.Contains(err.Error(), "--client-id") || !strings.Contains(err.Error(), sbCallback) {
		t.Fatalf("refused registration: %v", err)
	}
	if pcs, _ := f.store.ListProjectConnectors(context.Background(), f.project.ID); len(pcs) != 0 {
		t.Fatalf("%d connectors stored", len(pcs))
	}
	if acs, _ := f.store.ListAuthConfigs(context.Background(), f.project.ID, "files"); len(acs) != 0 {
		t.Fatalf("%d auth configs stored", len(acs))
	}
	// The operator registered a client by hand.
	fake.mu.Lock()
	fake.clients["manual"] = "manual-secret"
	fake.mu.Unlock()
	added, err := addOAuthServer(t, f, fake, "manual", "manual-secret")
	if err != nil || added.Registered || added.AuthConfig.ClientID != "manual" {
		t.Fatalf("configured client: %+v %v", added.AuthConfig, err)
	}
	connectOAuth(t, f, fake, "alice")
	if st, body, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"files_list_files","userId":"alice","input":{}}`); st != 200 ||
		dataOf(body)["user"] != "alice" {
		t.Fatalf("alice's call: %d %s", st, raw)
	}
	// Added again, the server keeps its client and the tools alice's token
	// listed; another client must replace the auth config explicitly.
	again, err := addOAuthServer(t, f, fake, "", "")
	if err != nil || !again.Reused || again.Registered || again.AuthConfig.ClientID != "manual" || len(again.Connector.Tools) != 1 {
		t.Fatalf("added again: %+v %v", again, err)
	}
	if _, err := addOAuthServer(t, f, fake, "other", "x"); err == nil || !strings.Contains(err.Error(), "already has the OAuth client manual") {
		t.Fatalf("another client: %v", err)
	}
	if st, body, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"files_list_files","userId":"alice","input":{}}`); st != 200 ||
		dataOf(body)["user"] != "alice" {
		t.Fatalf("alice's call after the server was added again: %d %s", st, raw)
	}
}
