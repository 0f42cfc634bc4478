package httpapi

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/switchboard-gw/switchboard/internal/mcpauth"
	"github.com/switchboard-gw/switchboard/internal/session"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// fakeOIDC is a project's OpenID Connect provider: discovery, an
// authorization endpoint that signs its one user in at once, a token
// endpoint that checks the code, PKCE and client secret and returns an
// RS256 ID token, and its JWKS. tamper changes the ID token's claims.
type fakeOIDC struct {
	srv    *httptest.Server
	key    *rsa.PrivateKey
	now    func() time.Time
	mu     sync.Mutex
	codes  map[string]url.Values
	tamper func(jwt.MapClaims)
	alg    jwt.SigningMethod
}

func newFakeOIDC(t *testing.T, now func() time.Time) *fakeOIDC {
	t.Helper()
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	p := &fakeOIDC{key: key, now: now, codes: map[string]url.Values{}, alg: jwt.SigningMethodRS256}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	t.Cleanup(p.srv.Close)
	return p
}

func (p *fakeOIDC) serve(w http.ResponseWriter, r *http.Request) {
	u := p.srv.URL
	switch r.URL.Path {
	case "/.well-known/openid-configuration":
		_ = json.NewEncoder(w).Encode(map[string]string{"issuer": u, "authorization_endpoint": u + "/authorize", "token_endpoint": u + "/token", "jwks_uri": u + "/jwks"})
	case "/jwks":
		b64 := func(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }
		fmt.Fprintf(w, `{"keys":[{"kty":"RSA","kid":"r1","use":"sig","n":%q,"e":%q}]}`, b64(p.key.N.Bytes()), b64(big.NewInt(int64(p.key.E)).Bytes()))
	case "/authorize":
		q := r.URL.Query()
		if q.Get("client_id") != "sb-client" || q.Get("code_challenge_method") != "S256" || q.Get("response_type") != "code" || !strings.Contains(q.Get("scope"), "openid") {
			http.Error(w, "bad authorization request", 400)
			return
		}
		p.mu.Lock()
		code := fmt.Sprintf("code-%d", len(p.codes))
		p.codes[code] = q
		p.mu.Unlock()
		http.Redirect(w, r, q.Get("redirect_uri")+"?"+url.Values{"code": {code}, "state": {q.Get("state")}}.Encode(), http.StatusFound)
	case "/token":
		_ = r.ParseForm()
		id, secret, ok := r.BasicAuth()
		if !ok {
			id, secret = r.PostForm.Get("client_id"), r.PostForm.Get("client_secret")
		}
		p.mu.Lock()
		q, found := p.codes[r.PostForm.Get("code")]
		delete(p.codes, r.PostForm.Get("code"))
		p.mu.Unlock()
		if !found || id != "sb-client" || secret != "sb-client-secret" || challengeOf(r.PostForm.Get("code_verifier")) != q.Get("code_challenge") ||
			r.PostForm.Get("redirect_uri") != q.Get("redirect_uri") {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(400)
			_, _ = w.Write([]byte(`{"error":"invalid_grant"}`))
			return
		}
		claims := jwt.MapClaims{"iss": u, "aud": "sb-client", "sub": "idp-123", "preferred_username": "carol", "nonce": q.Get("nonce"),
			"exp": p.now().Add(5 * time.Minute).Unix(), "iat": p.now().Unix()}
		if p.tamper != nil {
			p.tamper(claims)
		}
		tok := jwt.NewWithClaims(p.alg, claims)
		tok.Header["kid"] = "r1"
		var key any = p.key
		if p.alg == jwt.SigningMethodHS256 {
			key = []byte("sb-client-secret")
		}
		idToken, err := tok.SignedString(key)
		if err != nil {
			http.Error(w, err.Error(), 500)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "at", "token_type": "Bearer", "id_token": idToken, "expires_in": 300})
	default:
		http.NotFound(w, r)
	}
}

// oidcSignIn runs a sign-in through the fake provider up to the consent
// page and returns the sign-in's id and cookie, or the refusal's body.
func (f *fixture) oidcSignIn(t *testing.T, client, redirect, resource string) (id, cookie string, refused string) {
	t.Helper()
	q := url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect}, "state": {"st8"},
		"code_challenge": {challengeOf(testVerifier)}, "code_challenge_method": {"S256"}, "resource": {resource}}
	r := f.do(f.h, "GET", "/oauth/authorize?"+q.Encode(), "", "")
	if r.status != http.StatusFound {
		t.Fatalf("authorize: %d %s", r.status, r.body)
	}
	c := (&http.Response{Header: r.header}).Cookies()[0]
	cookie = c.Name + "=" + c.Value
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := noFollow.Get(r.header.Get("Location"))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	back, _ := url.Parse(resp.Header.Get("Location"))
	if resp.StatusCode != http.StatusFound || back.Path != "/oauth/oidc/callback" {
		t.Fatalf("provider: %d %s", resp.StatusCode, back)
	}
	id = back.Query().Get("state")
	r = f.do(f.h, "GET", back.RequestURI(), "", "", "Cookie", cookie)
	if r.status != http.StatusSeeOther {
		return id, cookie, string(r.body)
	}
	return id, cookie, ""
}

func TestMCPOAuth_OpenIDConnectSignIn(t *testing.T) {
	t.Parallel()
	f := setup(t)
	idp := newFakeOIDC(t, f.clock.Now)
	ctx := context.Background()
	rec, err := f.srv.sessions.EndpointRecord(ctx, f.tenant(t, f.project.ID), session.EndpointRequest{ProjectID: f.project.ID, Slug: "oidc-signin",
		Connectors: []string{"delta"}, Mode: session.ModeTools})
	if err != nil {
		t.Fatal(err)
	}
	rec.ID = store.NewID()
	if err := f.srv.mcpAuth.Configure(&rec, store.AuthOAuth, mcpauth.Identity{Kind: mcpauth.KindOIDC, Issuer: idp.srv.URL, ClientID: "sb-client",
		UserClaim: "preferred_username"}, "sb-client-secret"); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.CreateEndpoint(ctx, rec); err != nil {
		t.Fatal(err)
	}
	if st, _, raw := f.json("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","userId":"carol","credential":{"type":"api_key","apiKey":"delta-secret-key","host":%q}}`, f.providerHost)); st != 200 {
		t.Fatal(raw)
	}
	const redirect = "http://127.0.0.1:9999/cb"
	client := f.registerClient(t, redirect)
	const resource = "http://sb.test/v1/mcp/oidc-signin"

	id, cookie, refused := f.oidcSignIn(t, client, redirect, resource)
	if refused != "" {
		t.Fatalf("callback: %s", refused)
	}
	// The consent page names the user of the configured claim.
	r := f.do(f.h, "GET", "/oauth/consent/"+id, "", "", "Cookie", cookie)
	if r.status != 200 || !strings.Contains(string(r.body), "carol") {
		t.Fatalf("consent: %d %s", r.status, r.body)
	}
	r = f.do(f.h, "POST", "/oauth/consent/"+id, "", "decision=approve", "Cookie", cookie, "Content-Type", "application/x-www-form-urlencoded")
	back, _ := url.Parse(r.header.Get("Location"))
	st, tok := f.token(t, codeForm(client, back.Query().Get("code"), redirect))
	if st != 200 {
		t.Fatalf("token: %d %+v", st, tok)
	}
	if r := f.mcpWith(f.h, "/v1/mcp/oidc-signin", tok.Access, callGetTask); r.status != 200 || !strings.Contains(string(r.body), "/v1/tasks/9") {
		t.Fatalf("call as carol: %d %s", r.status, r.body)
	}
	if r := f.mcpWith(f.h, "/v1/mcp/oidc-signin/idp-123", tok.Access, callGetTask); r.status != 403 {
		t.Fatalf("the token's user is the configured claim, not sub: %d", r.status)
	}

	// Refusals: a tampered nonce, another audience, another issuer, an
	// expired token, an HS256 token signed with the client secret, no claim.
	for name, tamper := range map[string]func(jwt.MapClaims){
		"nonce":    func(c jwt.MapClaims) { c["nonce"] = "other" },
		"audience": func(c jwt.MapClaims) { c["aud"] = "someone-else" },
		"issuer":   func(c jwt.MapClaims) { c["iss"] = "https://evil.example" },
		"expired":  func(c jwt.MapClaims) { c["exp"] = f.clock.Now().Add(-time.Hour).Unix() },
		"no claim": func(c jwt.MapClaims) { delete(c, "preferred_username") },
	} {
		idp.tamper = tamper
		if _, _, refused := f.oidcSignIn(t, client, redirect, resource); refused == "" {
			t.Errorf("%s: accepted", name)
		}
	}
	idp.tamper, idp.alg = nil, jwt.SigningMethodHS256
	if _, _, refused := f.oidcSignIn(t, client, redirect, resource); refused == "" {
		t.Error("an HS256 ID token: accepted")
	}
	idp.alg = jwt.SigningMethodRS256
	// The handoff route refuses a sign-in of an OpenID Connect endpoint.
	q := url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect}, "code_challenge": {challengeOf(testVerifier)},
		"code_challenge_method": {"S256"}, "resource": {resource}}
	r = f.do(f.h, "GET", "/oauth/authorize?"+q.Encode(), "", "")
	c := (&http.Response{Header: r.header}).Cookies()[0]
	gid := strings.TrimPrefix(c.Name, mcpauth.CookiePrefix)
	r = f.do(f.h, "GET", "/oauth/handoff?"+url.Values{"sb_request": {gid}, "assertion": {signAssertion(t, "mallory", "x", f.clock.Now().Add(time.Minute))}}.Encode(), "", "", "Cookie", c.Name+"="+c.Value)
	if r.status != 400 {
		t.Fatalf("handoff on an OpenID Connect endpoint: %d", r.status)
	}
}
