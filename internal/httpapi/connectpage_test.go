package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// oauthFake is an OAuth provider: a token endpoint that checks the client,
// the code, the redirect URI and the PKCE verifier, and an identity API.
type oauthFake struct {
	srv        *httptest.Server
	mu         sync.Mutex
	challenges map[string]string // code -> code_challenge
	exchanges  int
	redirect   string // the redirect URI the client must use
	// identityGate holds each zeta identity call until this many have
	// arrived (at most half a second): the provider's identity call is the
	// slow part of storing an account, and the gate makes it slow on
	// purpose so concurrent requests overlap.
	identityGate, identityCalls int
}

func newOAuthFake(t *testing.T) *oauthFake {
	f := &oauthFake{challenges: map[string]string{}, redirect: "http://sb.test/api/oauth/callback"}
	f.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/oauth/authorize":
			// The user consents at once: back to the client with a code.
			q := r.URL.Query()
			f.mu.Lock()
			f.challenges["browser-code"] = q.Get("code_challenge")
			f.mu.Unlock()
			http.Redirect(w, r, q.Get("redirect_uri")+"?code=browser-code&state="+url.QueryEscape(q.Get("state")), http.StatusFound)
		case "/oauth/token":
			_ = r.ParseForm()
			f.mu.Lock()
			challenge, ok := f.challenges[r.PostForm.Get("code")]
			delete(f.challenges, r.PostForm.Get("code"))
			f.exchanges++
			f.mu.Unlock()
			sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
			if !ok || r.PostForm.Get("client_id") != "eps-client" || r.PostForm.Get("client_secret") != "eps-secret" ||
				r.PostForm.Get("redirect_uri") != f.redirect ||
				base64.RawURLEncoding.EncodeToString(sum[:]) != challenge {
				w.WriteHeader(400)
				_, _ = io.WriteString(w, `{"error":"invalid_grant"}`)
				return
			}
			_, _ = io.WriteString(w, `{"access_token":"eps-access","refresh_token":"eps-refresh","token_type":"Bearer","expires_in":3600}`)
		case "/api/me":
			if r.Header.Get("Authorization") != "Bearer eps-access" {
				w.WriteHeader(401)
				return
			}
			_, _ = io.WriteString(w, `{"user":{"login":"octo"}}`)
		case "/zeta/me":
			// Two keys stand for a refused key and a provider that is down
			// (TestConnections_KeyCheckedWhenStored); any other key works.
			switch r.Header.Get("X-Zeta-Key") {
			case "zeta-wrong":
				w.WriteHeader(401)
				_, _ = io.WriteString(w, `{"message":"Bad credentials"}`)
				return
			case "zeta-down":
				w.WriteHeader(503)
				return
			}
			f.mu.Lock()
			f.identityCalls++
			f.mu.Unlock()
			for deadline := time.Now().Add(500 * time.Millisecond); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
				f.mu.Lock()
				n, gate := f.identityCalls, f.identityGate
				f.mu.Unlock()
				if n >= gate {
					break
				}
			}
			_, _ = io.WriteString(w, `{"login":"zed"}`)
		default:
			fakeDelta(w, r) // the same server also stands for the delta provider
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// approve stands for the user approving at the provider: it remembers the
// code's PKCE challenge and returns the callback URL the provider redirects to.
func (f *oauthFake) approve(t *testing.T, authURL, code string) string {
	t.Helper()
	u, err := url.Parse(authURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	if q.Get("client_id") != "eps-client" || q.Get("code_challenge_method") != "S256" || q.Get("redirect_uri") != "http://sb.test/api/oauth/callback" ||
		q.Get("scope") != "read write" || q.Get("access_type") != "offline" {
		t.Fatalf("authorize URL: %s", authURL)
	}
	f.mu.Lock()
	f.challenges[code] = q.Get("code_challenge")
	f.mu.Unlock()
	return "/api/oauth/callback?code=" + code + "&state=" + url.QueryEscape(q.Get("state"))
}

// testCatalogCopy returns the route-test catalog as a map that a test
// adds connectors of its own to.
func testCatalogCopy() fstest.MapFS {
	mfs := fstest.MapFS{}
	_ = fs.WalkDir(testCatalogFS, ".", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := fs.ReadFile(testCatalogFS, p)
			mfs[p] = &fstest.MapFile{Data: b}
		}
		return err
	})
	return mfs
}

// connectCatalog is the route-test catalog plus "epsilon", an OAuth
// connector whose endpoints are the fake's.
func connectCatalog(t *testing.T, fake *oauthFake) fs.FS {
	t.Helper()
	mfs := testCatalogCopy()
	mfs["connectors/epsilon.yaml"] = &fstest.MapFile{Data: []byte(fmt.Sprintf(`
id: epsilon
name: Epsilon Notes
description: A test notes application that signs in with OAuth.
category: productivity
api: {baseUrl: "%[1]s/api"}
authMethods:
  - id: oauth2
    type: oauth2
    name: Epsilon sign-in
    oauth2: {authorizeUrl: "%[1]s/oauth/authorize", tokenUrl: "%[1]s/oauth/token", scopes: [read, write], pkce: true, tokenAuthStyle: body, refresh: true, authorizeParams: {access_type: offline}}
identity: {method: GET, path: /me, label: user.login}
tools:
  - id: epsilon_get_me
    name: Get me
    description: Returns the signed-in Epsilon user, for the connect tests.
    effect: read
    inputSchema: {type: object, properties: {}, additionalProperties: false}
    request: {method: GET, path: /me}
`, fake.srv.URL))}
	mfs["logos/epsilon.svg"] = &fstest.MapFile{Data: []byte("<svg/>")}
	mfs["connectors/zeta.yaml"] = &fstest.MapFile{Data: []byte(fmt.Sprintf(`
id: zeta
name: Zeta Desk
description: A test help desk whose API keys are labelled with the provider identity, for the connect tests.
category: productivity
api: {baseUrl: "%[1]s/zeta"}
authMethods:
  - {id: api_key, type: api_key, name: API key, apiKey: {in: header, name: X-Zeta-Key}}
identity: {method: GET, path: /me, label: login}
tools:
  - id: zeta_get_me
    name: Get me
    description: Returns the Zeta user of the API key, for the connect tests.
    effect: read
    inputSchema: {type: object, properties: {}, additionalProperties: false}
    request: {method: GET, path: /me}
`, fake.srv.URL))}
	mfs["logos/zeta.svg"] = &fstest.MapFile{Data: []byte("<svg/>")}
	mfs["connectors/theta.yaml"] = &fstest.MapFile{Data: []byte(`
id: theta
name: Theta Git
description: A test code host on GitLab's model, self-managed on a host the user types, for the connect tests.
category: developer-tools
api: {baseUrl: "https://{host}/api"}
connectionFields:
  - {name: host, label: Theta host, pattern: "[A-Za-z0-9.-]+(:[0-9]{1,5})?", example: git.theta.test}
authMethods:
  - id: oauth2
    type: oauth2
    name: Theta sign-in
    oauth2: {authorizeUrl: "https://{host}/oauth/authorize", tokenUrl: "https://{host}/oauth/token", scopes: [read, write], pkce: true,
      tokenAuthStyle: body, refresh: true, authorizeParams: {access_type: offline}, allowedHosts: ["*.theta.test"]}
identity: {method: GET, path: /me, label: user.login}
tools:
  - id: theta_get_me
    name: Get me
    description: Returns the signed-in Theta user, for the connect tests.
    effect: read
    inputSchema: {type: object, properties: {}, additionalProperties: false}
    request: {method: GET, path: /me}
`)}
	mfs["logos/theta.svg"] = &fstest.MapFile{Data: []byte("<svg/>")}
	if _, err := catalog.Load(mfs); err != nil {
		t.Fatal(err)
	}
	return mfs
}

func setupConnect(t *testing.T) (*fixture, *oauthFake) {
	t.Helper()
	return setupConnectOn(t, sqliteDB)
}

// setupConnectOn is setupConnect on the database open makes.
func setupConnectOn(t *testing.T, open database) (*fixture, *oauthFake) {
	t.Helper()
	fake := newOAuthFake(t)
	f := setupWith(t, open, connectCatalog(t, fake), fake.srv)
	id := store.NewID()
	sealed, err := f.srv.accounts.SealClientSecret(id, "eps-secret")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.CreateAuthConfig(context.Background(), store.AuthConfig{ID: id, ProjectID: f.project.ID, ConnectorID: "epsilon",
		Key: "epsilon_oauth", AuthMethodID: "oauth2", AuthType: "oauth2", ClientID: "eps-client", ClientSecret: sealed}); err != nil {
		t.Fatal(err)
	}
	return f, fake
}

// link creates a connect link and returns its token.
func (f *fixture) link(t *testing.T, body string) string {
	t.Helper()
	st, m, raw := f.json("POST", "/v1/connect-links", body)
	if st != 201 {
		t.Fatalf("link: %d %s", st, raw)
	}
	u := dataOf(m)["url"].(string)
	return u[strings.LastIndex(u, "/")+1:]
}

func (f *fixture) page(method, path, body string) (int, map[string]any, string) {
	f.t.Helper()
	r := f.do(f.h, method, path, "", body, "Content-Type", "application/json")
	return r.status, decodeMap(r.body), string(r.body)
}

func TestConnect_KeyAccountThroughLink(t *testing.T) {
	t.Parallel()
	f, _ := setupConnect(t)
	token := f.link(t, `{"userId":"ann","connectors":["delta","epsilon"]}`)

	st, m, raw := f.page("GET", "/api/connect/"+token, "")
	v := dataOf(m)
	if st != 200 || v["status"] != "active" || len(v["connectors"].([]any)) != 2 || strings.Contains(raw, "eps-secret") {
		t.Fatalf("view: %d %s", st, raw)
	}
	delta := v["connectors"].([]any)[0].(map[string]any)
	var apiKeyCfg, basicCfg string
	for _, c := range delta["authConfigs"].([]any) {
		cfg := c.(map[string]any)
		switch cfg["type"] {
		case "api_key":
			apiKeyCfg = cfg["id"].(string)
			if fields := cfg["fields"].([]any); len(fields) != 2 || fields[0].(map[string]any)["name"] != "apiKey" || fields[0].(map[string]any)["secret"] != true {
				t.Fatalf("api key fields: %v", fields)
			}
		case "basic":
			basicCfg = cfg["id"].(string)
		}
	}
	eps := v["connectors"].([]any)[1].(map[string]any)["authConfigs"].([]any)[0].(map[string]any)
	if eps["type"] != "oauth2" || len(eps["fields"].([]any)) != 0 {
		t.Fatalf("oauth config: %v", eps)
	}

	// Wrong route for the method, a config the link does not offer, bad bodies.
	if st, m, _ := f.page("POST", "/api/connect/"+token+"/authorize", `{"authConfigId":"`+apiKeyCfg+`"}`); st != 400 || errCode(m) != "VALIDATION_ERROR" {
		t.Fatalf("authorize on a key config: %d", st)
	}
	if st, m, _ := f.page("POST", "/api/connect/"+token+"/accounts", `{"authConfigId":"`+eps["id"].(string)+`","fields":{}}`); st != 400 || errCode(m) != "VALIDATION_ERROR" {
		t.Fatalf("accounts on an OAuth config: %d", st)
	}
	if st, m, _ := f.page("POST", "/api/connect/"+token+"/accounts", `{"authConfigId":"`+store.NewID()+`","fields":{}}`); st != 403 || errCode(m) != "FORBIDDEN" {
		t.Fatalf("config not offered: %d", st)
	}
	if st, m, _ := f.page("POST", "/api/connect/"+token+"/accounts", `{"authConfigId":"`+apiKeyCfg+`","fields":{"host":"h"}}`); st != 400 || errCode(m) != "VALIDATION_ERROR" {
		t.Fatalf("missing key: %d", st)
	}
	if st, m, _ := f.page("GET", "/api/connect/not-a-token", ""); st != 404 || errCode(m) != "NOT_FOUND" {
		t.Fatalf("bad token: %d", st)
	}
	if st, m, _ := f.page("GET", "/api/connect/"+token+"/connections", ""); st != 403 || errCode(m) != "FORBIDDEN" {
		t.Fatalf("self-management off: %d", st)
	}

	st, m, raw = f.page("POST", "/api/connect/"+token+"/accounts", fmt.Sprintf(`{"authConfigId":%q,"fields":{"apiKey":"delta-secret-key","host":%q},"name":"work"}`, apiKeyCfg, f.providerHost))
	if st != 201 || dataOf(m)["name"] != "work" || strings.Contains(raw, "delta-secret-key") {
		t.Fatalf("save key: %d %s", st, raw)
	}
	// The account works for execution, and the link is used up.
	if st, _, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"ann","input":{"id":"1"}}`); st != 200 {
		t.Fatalf("execute with the connected account: %s", raw)
	}
	if st, m, _ := f.page("POST", "/api/connect/"+token+"/accounts", `{"authConfigId":"`+basicCfg+`","fields":{}}`); st != 410 || errCode(m) != "LINK_USED" {
		t.Fatalf("second use: %d", st)
	}
	if _, m, _ := f.page("GET", "/api/connect/"+token, ""); dataOf(m)["status"] != "used" {
		t.Fatalf("status after use: %v", m)
	}

	// Name taken, reconnect (200), self-management, expiry.
	token2 := f.link(t, `{"userId":"ann","connectors":["delta"]}`)
	if st, m, _ := f.page("POST", "/api/connect/"+token2+"/accounts", fmt.Sprintf(`{"authConfigId":%q,"fields":{"apiKey":"k2","host":%q},"name":"work"}`, apiKeyCfg, f.providerHost)); st != 409 || errCode(m) != "NAME_TAKEN" {
		t.Fatalf("name taken: %d", st)
	}
	conns, _ := f.store.ListConnections(context.Background(), f.project.ID, "ann")
	if st, _, raw := f.page("POST", "/api/connect/"+token2+"/accounts", fmt.Sprintf(`{"authConfigId":%q,"fields":{"apiKey":"k3","host":%q},"connectionId":%q}`, apiKeyCfg, f.providerHost, conns[0].ID)); st != 200 {
		t.Fatalf("reconnect: %d %s", st, raw)
	}
	if err := f.store.SetConnectSettings(context.Background(), f.project.ID, store.ConnectSettings{Name: "Acme App", Accent: "#ff0066", SelfManage: true}); err != nil {
		t.Fatal(err)
	}
	token3 := f.link(t, `{"userId":"ann"}`)
	_, m, _ = f.page("GET", "/api/connect/"+token3, "")
	if b := dataOf(m)["branding"].(map[string]any); b["name"] != "Acme App" || b["accent"] != "#ff0066" || dataOf(m)["selfManage"] != true {
		t.Fatalf("branding: %v", dataOf(m))
	}
	if st, _, raw := f.page("GET", "/api/connect/"+token3+"/connections", ""); st != 200 || !strings.Contains(raw, conns[0].ID) {
		t.Fatalf("self-managed list: %d %s", st, raw)
	}
	if st, m, _ := f.page("PATCH", "/api/connect/"+token3+"/connections/"+conns[0].ID, `{"name":"home"}`); st != 200 || dataOf(m)["name"] != "home" {
		t.Fatalf("rename: %d", st)
	}
	if st, _, _ := f.page("DELETE", "/api/connect/"+token3+"/connections/"+store.NewID(), ""); st != 404 {
		t.Fatalf("remove unknown: %d", st)
	}
	if st, _, _ := f.page("DELETE", "/api/connect/"+token3+"/connections/"+conns[0].ID, ""); st != 200 {
		t.Fatalf("remove: %d", st)
	}
	f.clock.Advance(31 * time.Minute)
	if st, m, _ := f.page("POST", "/api/connect/"+token3+"/accounts", `{"authConfigId":"`+apiKeyCfg+`","fields":{}}`); st != 410 || errCode(m) != "LINK_EXPIRED" {
		t.Fatalf("expired: %d", st)
	}
	if _, m, _ := f.page("GET", "/api/connect/"+token3, ""); dataOf(m)["status"] != "expired" {
		t.Fatalf("expired status: %v", m)
	}
}

func TestConnect_OAuthDance(t *testing.T) {
	t.Parallel()
	f, fake := setupConnect(t)
	if err := f.store.SetRedirectURLs(context.Background(), f.project.ID, []string{"https://app.example/done"}); err != nil {
		t.Fatal(err)
	}
	token := f.link(t, `{"userId":"ann","connectors":["epsilon"],"redirectUrl":"https://app.example/done"}`)
	_, m, _ := f.page("GET", "/api/connect/"+token, "")
	cfg := dataOf(m)["connectors"].([]any)[0].(map[string]any)["authConfigs"].([]any)[0].(map[string]any)["id"].(string)

	authURL, cookie := f.authorize(t, token, `{"authConfigId":"`+cfg+`"}`)
	if !strings.HasPrefix(authURL, fake.srv.URL+"/oauth/authorize?") {
		t.Fatalf("authorize: %s", authURL)
	}
	callback := fake.approve(t, authURL, "code-1")

	// A refusal at the provider changes nothing.
	deny := f.do(f.h, "GET", "/api/oauth/callback?error=access_denied&state="+url.QueryEscape(mustQuery(t, callback, "state")), "", "", "Cookie", cookie)
	if deny.status != 400 || !strings.Contains(string(deny.body), "declined") {
		t.Fatalf("access_denied: %d %s", deny.status, deny.body)
	}
	// The state was spent by the refusal: start again.
	authURL, cookie = f.authorize(t, token, `{"authConfigId":"`+cfg+`"}`)
	callback = fake.approve(t, authURL, "code-2")
	r := f.do(f.h, "GET", callback, "", "", "Cookie", cookie)
	if r.status != 200 || !strings.Contains(string(r.body), "Epsilon Notes is connected") || !strings.Contains(string(r.body), "(octo)") ||
		!strings.Contains(string(r.body), "https://app.example/done?connectionId=") {
		t.Fatalf("callback: %d %s", r.status, r.body)
	}
	conns, _ := f.store.ListConnections(context.Background(), f.project.ID, "ann")
	if len(conns) != 1 || conns[0].Label == nil || *conns[0].Label != "octo" || conns[0].ConnectorID != "epsilon" {
		t.Fatalf("stored: %+v", conns)
	}
	if st, _, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"epsilon_get_me","userId":"ann"}`); st != 200 || !strings.Contains(raw, "octo") {
		t.Fatalf("execute with the OAuth account: %d %s", st, raw)
	}
	// Replaying the callback changes nothing.
	if r := f.do(f.h, "GET", callback, "", "", "Cookie", cookie); r.status != 400 || !strings.Contains(string(r.body), "expired or was already completed") {
		t.Fatalf("replay: %d %s", r.status, r.body)
	}
	if r := f.do(f.h, "GET", "/api/oauth/callback?code=x&state=forged", "", ""); r.status != 400 {
		t.Fatalf("forged state: %d", r.status)
	}
	if conns, _ := f.store.ListConnections(context.Background(), f.project.ID, "ann"); len(conns) != 1 || fake.exchanges != 1 {
		t.Fatalf("after replays: %d accounts, %d exchanges", len(conns), fake.exchanges)
	}
	if _, m, _ := f.page("GET", "/api/connect/"+token, ""); dataOf(m)["status"] != "used" {
		t.Fatalf("link after OAuth: %v", m)
	}
}

func TestConnect_PageAndCORS(t *testing.T) {
	t.Parallel()
	f, _ := setupConnect(t)
	token := f.link(t, `{"userId":"ann"}`)
	r := f.do(f.h, "GET", "/connect/"+token, "", "")
	if r.status != 200 || !strings.Contains(string(r.body), `data-token="`+token+`"`) || !strings.Contains(r.header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Fatalf("page: %d %v", r.status, r.header)
	}
	for _, file := range []string{"page.js", "page.css"} {
		if r := f.do(f.h, "GET", "/connect/static/"+file, "", ""); r.status != 200 || len(r.body) < 100 {
			t.Fatalf("%s: %d", file, r.status)
		}
	}
	if r := f.do(f.h, "GET", "/connect/static/page.html", "", ""); r.status != 404 {
		t.Fatalf("template served as a static file: %d", r.status)
	}
	own := f.do(f.h, "GET", "/api/connect/"+token, "", "", "Origin", "http://web.sb.test")
	if own.header.Get("Access-Control-Allow-Origin") != "http://web.sb.test" {
		t.Fatalf("own origin: %v", own.header)
	}
	evil := f.do(f.h, "GET", "/api/connect/"+token, "", "", "Origin", "https://evil.example")
	if evil.header.Get("Access-Control-Allow-Origin") != "" {
		t.Fatalf("foreign origin allowed: %v", evil.header)
	}
	pre := f.do(f.h, "OPTIONS", "/api/connect/"+token+"/accounts", "", "", "Origin", "http://web.sb.test", "Access-Control-Request-Method", "POST")
	if pre.status != 204 || pre.header.Get("Access-Control-Allow-Methods") == "" {
		t.Fatalf("preflight: %d %v", pre.status, pre.header)
	}
}

func mustQuery(t *testing.T, rawPath, key string) string {
	t.Helper()
	u, err := url.Parse(rawPath)
	if err != nil {
		t.Fatal(err)
	}
	return u.Query().Get(key)
}

func TestProjectAssets_ImmutableAndInert(t *testing.T) {
	t.Parallel()
	f := setup(t)
	key := "projects/" + f.project.ID + "/" + strings.Repeat("a", 64) + ".svg"
	if err := f.store.PutAsset(context.Background(), store.Asset{Key: key, ProjectID: f.project.ID, ContentType: "image/svg+xml", Data: []byte("<svg/>")}); err != nil {
		t.Fatal(err)
	}
	for _, h := range []struct {
		h    http.Handler
		path string
	}{{f.h, "/assets/" + key}, {f.srv.AssetsHandler(), "/" + key}} {
		r := f.do(h.h, "GET", h.path, "", "")
		if r.status != 200 || r.header.Get("Cache-Control") != "public, max-age=31536000, immutable" ||
			!strings.Contains(r.header.Get("Content-Security-Policy"), "sandbox") || r.header.Get("X-Content-Type-Options") != "nosniff" ||
			r.header.Get("Content-Type") != "image/svg+xml" {
			t.Fatalf("%s: %d %v", h.path, r.status, r.header)
		}
	}
	if r := f.do(f.h, "GET", "/assets/projects/"+f.project.ID+"/missing.png", "", ""); r.status != 404 {
		t.Fatalf("missing asset: %d", r.status)
	}
}
