package httpapi

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/switchboard-gw/switchboard/internal/mcpauth"
	"github.com/switchboard-gw/switchboard/internal/session"
	"github.com/switchboard-gw/switchboard/internal/store"
)

const handoffSecret = "0123456789abcdef0123456789abcdef-handoff"

// oauthEndpoint creates an endpoint with OAuth sign-in by an HS256 handoff.
func (f *fixture) oauthEndpoint(t *testing.T, slug string) {
	t.Helper()
	f.oauthEndpointAt(t, slug, "https://app.example/mcp-signin")
}

// oauthEndpointAt is oauthEndpoint with the project's handoff URL.
func (f *fixture) oauthEndpointAt(t *testing.T, slug, handoffURL string) {
	t.Helper()
	ctx := context.Background()
	rec, err := f.srv.sessions.EndpointRecord(ctx, f.tenant(t, f.project.ID), session.EndpointRequest{ProjectID: f.project.ID, Slug: slug,
		Connectors: []string{"delta"}, Mode: session.ModeTools})
	if err != nil {
		t.Fatal(err)
	}
	rec.ID = store.NewID()
	if err := f.srv.mcpAuth.Configure(&rec, store.AuthOAuth, mcpauth.Identity{HandoffURL: handoffURL, Issuer: "https://app.example"}, handoffSecret); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.CreateEndpoint(ctx, rec); err != nil {
		t.Fatal(err)
	}
}

const testVerifier = "verifier-verifier-verifier-verifier-verifier-0001"

func challengeOf(v string) string {
	sum := sha256.Sum256([]byte(v))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// register registers a client with one redirect URI and returns its id.
func (f *fixture) registerClient(t *testing.T, redirect string) string {
	t.Helper()
	r := f.do(f.h, "POST", "/oauth/register", "", `{"client_name":"Test client","redirect_uris":["`+redirect+`"],"token_endpoint_auth_method":"none"}`, "Content-Type", "application/json")
	var out struct {
		ClientID string `json:"client_id"`
		Method   string `json:"token_endpoint_auth_method"`
	}
	if r.status != 201 || json.Unmarshal(r.body, &out) != nil || out.ClientID == "" || out.Method != "none" {
		t.Fatalf("register: %d %s", r.status, r.body)
	}
	return out.ClientID
}

type signIn struct {
	client, redirect, resource, challenge, method string
	user                                          string
	// assertion, when set, replaces the signed assertion.
	assertion func(nonce string) string
}

// signInFlow runs a sign-in to the consent decision and returns the code
// (or the redirect with an error when the flow ends early).
func (f *fixture) signInFlow(t *testing.T, s signIn) (code string, final *url.URL) {
	t.Helper()
	if s.method == "" {
		s.method = "S256"
	}
	if s.challenge == "" {
		s.challenge = challengeOf(testVerifier)
	}
	q := url.Values{"response_type": {"code"}, "client_id": {s.client}, "redirect_uri": {s.redirect}, "state": {"st8"},
		"code_challenge": {s.challenge}, "code_challenge_method": {s.method}, "resource": {s.resource}}
	if s.challenge == "-" {
		q.Del("code_challenge")
		q.Del("code_challenge_method")
	}
	r := f.do(f.h, "GET", "/oauth/authorize?"+q.Encode(), "", "")
	if r.status != http.StatusFound {
		t.Fatalf("authorize: %d %s", r.status, r.body)
	}
	to, _ := url.Parse(r.header.Get("Location"))
	if to.Host != "app.example" {
		return "", to
	}
	var cookie string
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		cookie = c.Name + "=" + c.Value
	}
	id, nonce := to.Query().Get("sb_request"), to.Query().Get("nonce")
	if to.Query().Get("return_to") != "http://sb.test/oauth/handoff" || id == "" || nonce == "" {
		t.Fatalf("handoff redirect: %s", to)
	}
	assertion := signAssertion(t, s.user, nonce, f.clock.Now().Add(2*time.Minute))
	if s.assertion != nil {
		assertion = s.assertion(nonce)
	}
	r = f.do(f.h, "GET", "/oauth/handoff?"+url.Values{"sb_request": {id}, "assertion": {assertion}}.Encode(), "", "", "Cookie", cookie)
	if r.status != http.StatusSeeOther {
		return "", &url.URL{Path: "handoff-refused", RawQuery: url.Values{"body": {string(r.body)}}.Encode()}
	}
	r = f.do(f.h, "GET", "/oauth/consent/"+id, "", "", "Cookie", cookie)
	if r.status != 200 || !strings.Contains(string(r.body), "Test client") || !strings.Contains(string(r.body), "delta_get_task") {
		t.Fatalf("consent page: %d %s", r.status, r.body)
	}
	r = f.do(f.h, "POST", "/oauth/consent/"+id, "", "decision=approve", "Cookie", cookie, "Content-Type", "application/x-www-form-urlencoded")
	if r.status != http.StatusSeeOther {
		t.Fatalf("approve: %d %s", r.status, r.body)
	}
	final, _ = url.Parse(r.header.Get("Location"))
	if final.Query().Get("state") != "st8" || final.Query().Get("iss") != "http://sb.test" {
		t.Fatalf("redirect back: %s", final)
	}
	return final.Query().Get("code"), final
}

func signAssertion(t *testing.T, user, nonce string, exp time.Time) string {
	t.Helper()
	return signAssertionWith(t, user, nonce, exp, handoffSecret)
}

// signAssertionFor signs a handoff assertion for the Switchboard at aud.
func signAssertionFor(t *testing.T, aud, user, nonce string, exp time.Time) string {
	t.Helper()
	return signAssertionKey(t, aud, user, nonce, exp, handoffSecret)
}

func signAssertionWith(t *testing.T, user, nonce string, exp time.Time, key string) string {
	t.Helper()
	return signAssertionKey(t, "http://sb.test", user, nonce, exp, key)
}

func signAssertionKey(t *testing.T, aud, user, nonce string, exp time.Time, key string) string {
	t.Helper()
	tok, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iss": "https://app.example", "aud": aud, "sub": user,
		"nonce": nonce, "exp": exp.Unix()}).SignedString([]byte(key))
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

type tokens struct {
	Access  string `json:"access_token"`
	Refresh string `json:"refresh_token"`
	Error   string `json:"error"`
	Expires int    `json:"expires_in"`
}

func (f *fixture) token(t *testing.T, form url.Values) (int, tokens) {
	t.Helper()
	r := f.do(f.h, "POST", "/oauth/token", "", form.Encode(), "Content-Type", "application/x-www-form-urlencoded")
	var out tokens
	if err := json.Unmarshal(r.body, &out); err != nil {
		t.Fatalf("token: %d %s", r.status, r.body)
	}
	return r.status, out
}

func codeForm(client, code, redirect string) url.Values {
	return url.Values{"grant_type": {"authorization_code"}, "client_id": {client}, "code": {code}, "redirect_uri": {redirect}, "code_verifier": {testVerifier}}
}

// mcpList calls tools/list on path with a bearer and returns the response.
func (f *fixture) mcpWith(h http.Handler, path, bearer, body string) response {
	return f.do(h, "POST", path, "Bearer "+bearer, body, "Content-Type", "application/json", "Accept", "application/json, text/event-stream")
}

const callGetTask = `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"delta_get_task","arguments":{"id":"9"}}}`

func TestMCPOAuth_DiscoveryAndChallenge(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.oauthEndpoint(t, "signin")
	f.endpoint(t, session.EndpointRequest{Slug: "keyonly", Connectors: []string{"delta"}, Mode: session.ModeTools})
	r := f.do(f.h, "POST", "/v1/mcp/signin", "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	want := `Bearer realm="switchboard", resource_metadata="http://sb.test/.well-known/oauth-protected-resource/v1/mcp/signin", scope="mcp"`
	if r.status != 401 || r.header.Get("WWW-Authenticate") != want {
		t.Fatalf("unauthenticated: %d %q", r.status, r.header.Get("WWW-Authenticate"))
	}
	mcpHost := f.srv.MCPHandler()
	r = f.do(mcpHost, "POST", "/signin/ann", "", `{}`)
	if !strings.Contains(r.header.Get("WWW-Authenticate"), `resource_metadata="http://mcp.sb.test/.well-known/oauth-protected-resource/signin"`) {
		t.Fatalf("MCP host challenge: %q", r.header.Get("WWW-Authenticate"))
	}
	// An endpoint without OAuth sign-in publishes nothing, as before.
	r = f.do(f.h, "POST", "/v1/mcp/keyonly", "", `{}`)
	if r.status != 401 || r.header.Get("WWW-Authenticate") != `Bearer realm="switchboard"` {
		t.Fatalf("api_key endpoint: %d %q", r.status, r.header.Get("WWW-Authenticate"))
	}
	if r := f.do(f.h, "GET", "/.well-known/oauth-protected-resource/v1/mcp/keyonly", "", ""); r.status != 404 {
		t.Fatalf("metadata of an api_key endpoint: %d", r.status)
	}
	r = f.do(f.h, "GET", "/.well-known/oauth-protected-resource/v1/mcp/signin", "", "")
	var prm struct {
		Resource string   `json:"resource"`
		Servers  []string `json:"authorization_servers"`
	}
	if r.status != 200 || json.Unmarshal(r.body, &prm) != nil || prm.Resource != "http://sb.test/v1/mcp/signin" || len(prm.Servers) != 1 || prm.Servers[0] != "http://sb.test" {
		t.Fatalf("resource metadata: %d %s", r.status, r.body)
	}
	r = f.do(mcpHost, "GET", "/.well-known/oauth-protected-resource/signin", "", "")
	if r.status != 200 || !strings.Contains(string(r.body), `"resource":"http://mcp.sb.test/signin"`) {
		t.Fatalf("MCP host resource metadata: %d %s", r.status, r.body)
	}
	for _, p := range []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"} {
		r = f.do(f.h, "GET", p, "", "")
		var asm struct {
			Issuer     string   `json:"issuer"`
			Register   string   `json:"registration_endpoint"`
			Challenges []string `json:"code_challenge_methods_supported"`
			Methods    []string `json:"token_endpoint_auth_methods_supported"`
		}
		if r.status != 200 || json.Unmarshal(r.body, &asm) != nil || asm.Issuer != "http://sb.test" || asm.Register != "http://sb.test/oauth/register" ||
			len(asm.Challenges) != 1 || asm.Challenges[0] != "S256" || asm.Methods[0] != "none" {
			t.Fatalf("%s: %d %s", p, r.status, r.body)
		}
	}
}

func TestMCPOAuth_RegistrationValidatesAndIsRateLimited(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, bad := range []string{`{"redirect_uris":[]}`, `{"redirect_uris":["http://evil.example/cb"]}`, `{"redirect_uris":["https://ok.example/cb#frag"]}`,
		`{"redirect_uris":["javascript:alert(1)"]}`, `{"redirect_uris":["/relative"]}`, `{"redirect_uris":["https://ok.example/cb"],"grant_types":["client_credentials"]}`, `nope`} {
		r := f.do(f.h, "POST", "/oauth/register", "", bad)
		if r.status != 400 || !strings.Contains(string(r.body), `"error":"invalid_`) {
			t.Errorf("%s: %d %s", bad, r.status, r.body)
		}
	}
	for _, good := range []string{"http://127.0.0.1:33418/callback", "http://localhost/cb", "https://claude.ai/api/mcp/auth_callback", "cursor://anysphere.cursor-mcp/oauth/callback"} {
		f.registerClient(t, good)
	}
	for i := 4; i < mcpauth.RegistrationsPerHour; i++ {
		f.registerClient(t, "https://ok.example/cb")
	}
	r := f.do(f.h, "POST", "/oauth/register", "", `{"redirect_uris":["https://ok.example/cb"]}`)
	if r.status != 429 || r.header.Get("Retry-After") == "" {
		t.Fatalf("registration over the limit: %d %s", r.status, r.body)
	}
	f.clock.Advance(time.Hour + time.Second)
	f.registerClient(t, "https://ok.example/cb")
}

func TestMCPOAuth_FullFlowBindsTokenToEndpointAndUser(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.oauthEndpoint(t, "signin")
	f.oauthEndpoint(t, "other")
	for _, u := range []string{"ann", "bob"} {
		if st, _, raw := f.json("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","userId":%q,"credential":{"type":"api_key","apiKey":"delta-secret-key","host":%q}}`, u, f.providerHost)); st != 200 {
			t.Fatal(raw)
		}
	}
	const redirect = "http://127.0.0.1:9999/cb"
	client := f.registerClient(t, redirect)
	code, _ := f.signInFlow(t, signIn{client: client, redirect: redirect, resource: "http://sb.test/v1/mcp/signin", user: "ann"})
	if code == "" {
		t.Fatal("no code")
	}
	st, tok := f.token(t, codeForm(client, code, redirect))
	if st != 200 || !strings.HasPrefix(tok.Access, "sbat_") || tok.Refresh == "" || tok.Expires != 3600 {
		t.Fatalf("token: %d %+v", st, tok)
	}
	// Tokens are stored as hashes only.
	if _, err := f.store.OAuthTokenByHash(context.Background(), tok.Access); err == nil {
		t.Fatal("the access token is stored in clear")
	}
	r := f.mcpWith(f.h, "/v1/mcp/signin", tok.Access, callGetTask)
	if r.status != 200 || !strings.Contains(string(r.body), `/v1/tasks/9`) {
		t.Fatalf("call with the token: %d %s", r.status, r.body)
	}
	// The MCP host form of the same endpoint takes it too.
	if r := f.mcpWith(f.srv.MCPHandler(), "/signin", tok.Access, callGetTask); r.status != 200 {
		t.Fatalf("MCP host: %d %s", r.status, r.body)
	}
	// Ann's token runs as ann: it never reaches bob's accounts.
	for _, p := range []string{"/v1/mcp/signin/bob", "/v1/mcp/signin?user=bob"} {
		if r := f.mcpWith(f.h, p, tok.Access, callGetTask); r.status != 403 {
			t.Fatalf("%s with ann's token: %d %s", p, r.status, r.body)
		}
	}
	if r := f.mcpWith(f.h, "/v1/mcp/signin/ann", tok.Access, callGetTask); r.status != 200 {
		t.Fatalf("own user in the path: %d %s", r.status, r.body)
	}
	// A token for endpoint signin is refused on endpoint other.
	r = f.mcpWith(f.h, "/v1/mcp/other", tok.Access, callGetTask)
	if r.status != 401 || !strings.Contains(r.header.Get("WWW-Authenticate"), `error="invalid_token"`) ||
		!strings.Contains(r.header.Get("WWW-Authenticate"), "oauth-protected-resource/v1/mcp/other") {
		t.Fatalf("token of A on B: %d %q", r.status, r.header.Get("WWW-Authenticate"))
	}
	// It opens no other /v1 route.
	if r := f.do(f.h, "GET", "/v1/connections", "Bearer "+tok.Access, ""); r.status != 401 {
		t.Fatalf("REST route with an MCP token: %d %s", r.status, r.body)
	}
	// The API key still works on the oauth endpoint.
	if r := f.rpc(f.h, "/v1/mcp/signin/bob", callGetTask); r.status != 200 {
		t.Fatalf("API key: %d %s", r.status, r.body)
	}
	// Refresh rotates; the old refresh token come back revokes the family.
	st, tok2 := f.token(t, url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {tok.Refresh}})
	if st != 200 || tok2.Access == tok.Access || tok2.Refresh == tok.Refresh {
		t.Fatalf("refresh: %d %+v", st, tok2)
	}
	if r := f.mcpWith(f.h, "/v1/mcp/signin", tok2.Access, callGetTask); r.status != 200 {
		t.Fatalf("refreshed token: %d", r.status)
	}
	if st, out := f.token(t, url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {tok.Refresh}}); st != 400 || out.Error != "invalid_grant" {
		t.Fatalf("reused refresh token: %d %+v", st, out)
	}
	for _, a := range []string{tok.Access, tok2.Access} {
		if r := f.mcpWith(f.h, "/v1/mcp/signin", a, callGetTask); r.status != 401 || !strings.Contains(r.header.Get("WWW-Authenticate"), "revoked") {
			t.Fatalf("token after refresh reuse: %d %q", r.status, r.header.Get("WWW-Authenticate"))
		}
	}
	if st, _ := f.token(t, url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {tok2.Refresh}}); st != 400 {
		t.Fatalf("the newest refresh token of a revoked family: %d", st)
	}
}

func TestMCPOAuth_CodeAndTokenNegatives(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.oauthEndpoint(t, "signin")
	const redirect = "https://client.example/cb"
	client := f.registerClient(t, redirect)
	other := f.registerClient(t, "https://other.example/cb")
	flow := func() string {
		code, _ := f.signInFlow(t, signIn{client: client, redirect: redirect, resource: "http://sb.test/v1/mcp/signin", user: "ann"})
		return code
	}

	// Wrong redirect URI at the authorization endpoint: our page, no redirect.
	q := url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {"https://client.example/cb/x"}, "code_challenge": {challengeOf(testVerifier)},
		"code_challenge_method": {"S256"}, "resource": {"http://sb.test/v1/mcp/signin"}}
	if r := f.do(f.h, "GET", "/oauth/authorize?"+q.Encode(), "", ""); r.status != 400 || r.header.Get("Location") != "" {
		t.Fatalf("wrong redirect_uri: %d %q", r.status, r.header.Get("Location"))
	}
	q.Del("redirect_uri")
	if r := f.do(f.h, "GET", "/oauth/authorize?"+q.Encode(), "", ""); r.status != 400 || r.header.Get("Location") != "" {
		t.Fatalf("no redirect_uri: %d %q", r.status, r.header.Get("Location"))
	}
	q.Set("redirect_uri", redirect)
	q.Set("client_id", "unknown")
	if r := f.do(f.h, "GET", "/oauth/authorize?"+q.Encode(), "", ""); r.status != 400 || r.header.Get("Location") != "" {
		t.Fatalf("unknown client: %d", r.status)
	}
	// PKCE missing or plain, wrong or missing resource: back to the client with an error.
	for name, s := range map[string]signIn{
		"no PKCE":        {challenge: "-", resource: "http://sb.test/v1/mcp/signin"},
		"plain PKCE":     {challenge: testVerifier[:43], method: "plain", resource: "http://sb.test/v1/mcp/signin"},
		"no resource":    {},
		"wrong resource": {resource: "http://sb.test/v1/mcp/nope"},
		"foreign host":   {resource: "https://elsewhere.example/v1/mcp/signin"},
	} {
		s.client, s.redirect = client, redirect
		_, to := f.signInFlow(t, s)
		want := "invalid_request"
		if strings.Contains(name, "resource") || name == "foreign host" {
			want = "invalid_target"
		}
		if to.Host != "client.example" || to.Query().Get("error") != want || to.Query().Get("state") != "st8" {
			t.Errorf("%s: %s", name, to)
		}
	}

	// A bad assertion: wrong secret, wrong nonce, expired, too long-lived.
	for name, a := range map[string]func(nonce string) string{
		"wrong secret": func(n string) string {
			s, _ := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.MapClaims{"iss": "https://app.example", "aud": "http://sb.test", "sub": "ann", "nonce": n, "exp": f.clock.Now().Add(time.Minute).Unix()}).SignedString([]byte("another-secret-another-secret-another"))
			return s
		},
		"wrong nonce": func(string) string { return signAssertion(t, "ann", "other", f.clock.Now().Add(time.Minute)) },
		"expired":     func(n string) string { return signAssertion(t, "ann", n, f.clock.Now().Add(-time.Hour)) },
		"long-lived":  func(n string) string { return signAssertion(t, "ann", n, f.clock.Now().Add(time.Hour)) },
		"alg none": func(n string) string {
			s, _ := jwt.NewWithClaims(jwt.SigningMethodNone, jwt.MapClaims{"iss": "https://app.example", "aud": "http://sb.test", "sub": "ann", "nonce": n, "exp": f.clock.Now().Add(time.Minute).Unix()}).SignedString(jwt.UnsafeAllowNoneSignatureType)
			return s
		},
	} {
		_, to := f.signInFlow(t, signIn{client: client, redirect: redirect, resource: "http://sb.test/v1/mcp/signin", assertion: a})
		if to.Path != "handoff-refused" {
			t.Errorf("%s: accepted (%s)", name, to)
		}
	}

	// Reused code: refused, and the tokens it gave are revoked.
	code := flow()
	st, tok := f.token(t, codeForm(client, code, redirect))
	if st != 200 {
		t.Fatalf("first exchange: %d", st)
	}
	if st, out := f.token(t, codeForm(client, code, redirect)); st != 400 || out.Error != "invalid_grant" {
		t.Fatalf("reused code: %d %+v", st, out)
	}
	if r := f.mcpWith(f.h, "/v1/mcp/signin", tok.Access, callGetTask); r.status != 401 {
		t.Fatalf("token of a reused code: %d", r.status)
	}
	// Wrong redirect URI, verifier, client or resource at the token endpoint.
	for name, mutate := range map[string]func(url.Values){
		"redirect":    func(v url.Values) { v.Set("redirect_uri", "https://client.example/other") },
		"verifier":    func(v url.Values) { v.Set("code_verifier", strings.Repeat("x", 50)) },
		"no verifier": func(v url.Values) { v.Del("code_verifier") },
		"client":      func(v url.Values) { v.Set("client_id", other) },
		"resource":    func(v url.Values) { v.Set("resource", "http://sb.test/v1/mcp/other") },
	} {
		form := codeForm(client, flow(), redirect)
		mutate(form)
		if st, out := f.token(t, form); st != 400 || (out.Error != "invalid_grant" && out.Error != "invalid_target") {
			t.Errorf("%s: %d %+v", name, st, out)
		}
	}
	// An expired code.
	code = flow()
	f.clock.Advance(mcpauth.CodeTTL + time.Second)
	if st, out := f.token(t, codeForm(client, code, redirect)); st != 400 || out.Error != "invalid_grant" {
		t.Fatalf("expired code: %d %+v", st, out)
	}
	// An expired access token.
	_, tok = f.token(t, codeForm(client, flow(), redirect))
	f.clock.Advance(mcpauth.AccessTTL + time.Second)
	if r := f.mcpWith(f.h, "/v1/mcp/signin", tok.Access, callGetTask); r.status != 401 || !strings.Contains(r.header.Get("WWW-Authenticate"), "expired") {
		t.Fatalf("expired token: %d %q", r.status, r.header.Get("WWW-Authenticate"))
	}
	// Revocation (RFC 7009): the access and the refresh token are dead.
	_, tok = f.token(t, codeForm(client, flow(), redirect))
	r := f.do(f.h, "POST", "/oauth/revoke", "", url.Values{"token": {tok.Refresh}, "client_id": {client}}.Encode(), "Content-Type", "application/x-www-form-urlencoded")
	if r.status != 200 {
		t.Fatalf("revoke: %d %s", r.status, r.body)
	}
	if r := f.mcpWith(f.h, "/v1/mcp/signin", tok.Access, callGetTask); r.status != 401 {
		t.Fatalf("revoked token: %d", r.status)
	}
	if st, _ := f.token(t, url.Values{"grant_type": {"refresh_token"}, "client_id": {client}, "refresh_token": {tok.Refresh}}); st != 400 {
		t.Fatalf("revoked refresh token: %d", st)
	}
	if r := f.do(f.h, "POST", "/oauth/revoke", "", url.Values{"token": {"sbat_unknown"}, "client_id": {client}}.Encode(), "Content-Type", "application/x-www-form-urlencoded"); r.status != 200 {
		t.Fatalf("revoking an unknown token: %d", r.status)
	}
}

func TestMCPOAuth_ConsentIsBoundToTheBrowserAndCanBeDenied(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.oauthEndpoint(t, "signin")
	const redirect = "https://client.example/cb"
	client := f.registerClient(t, redirect)
	q := url.Values{"response_type": {"code"}, "client_id": {client}, "redirect_uri": {redirect}, "state": {"s"}, "code_challenge": {challengeOf(testVerifier)},
		"code_challenge_method": {"S256"}, "resource": {"http://sb.test/v1/mcp/signin"}}
	r := f.do(f.h, "GET", "/oauth/authorize?"+q.Encode(), "", "")
	to, _ := url.Parse(r.header.Get("Location"))
	cookies := (&http.Response{Header: r.header}).Cookies()
	if len(cookies) != 1 || !cookies[0].HttpOnly || cookies[0].SameSite != http.SameSiteLaxMode {
		t.Fatalf("binding cookie: %+v", cookies)
	}
	id, nonce := to.Query().Get("sb_request"), to.Query().Get("nonce")
	back := "/oauth/handoff?" + url.Values{"sb_request": {id}, "assertion": {signAssertion(t, "ann", nonce, f.clock.Now().Add(time.Minute))}}.Encode()
	// Another browser (without the cookie) cannot complete it.
	if r := f.do(f.h, "GET", back, "", ""); r.status != 400 {
		t.Fatalf("handoff in another browser: %d", r.status)
	}
	cookie := cookies[0].Name + "=" + cookies[0].Value
	if r := f.do(f.h, "GET", back, "", "", "Cookie", cookie); r.status != 303 {
		t.Fatalf("handoff: %d %s", r.status, r.body)
	}
	if r := f.do(f.h, "GET", back, "", "", "Cookie", cookie); r.status != 400 {
		t.Fatalf("a second handoff: %d", r.status)
	}
	if r := f.do(f.h, "POST", "/oauth/consent/"+id, "", "decision=approve", "Content-Type", "application/x-www-form-urlencoded"); r.status != 400 {
		t.Fatalf("approve without the cookie: %d", r.status)
	}
	r = f.do(f.h, "POST", "/oauth/consent/"+id, "", "decision=deny", "Cookie", cookie, "Content-Type", "application/x-www-form-urlencoded")
	denied, _ := url.Parse(r.header.Get("Location"))
	if r.status != 303 || denied.Query().Get("error") != "access_denied" || denied.Query().Get("code") != "" {
		t.Fatalf("deny: %d %s", r.status, denied)
	}
	if r := f.do(f.h, "POST", "/oauth/consent/"+id, "", "decision=approve", "Cookie", cookie, "Content-Type", "application/x-www-form-urlencoded"); r.status != 400 {
		t.Fatalf("approve after deny: %d", r.status)
	}
}

func TestMCPOAuth_SessionToken(t *testing.T) {
	t.Parallel()
	f := setup(t)
	_, m, raw := f.json("POST", "/v1/sessions", `{"userId":"ann","connectors":["delta"],"mcpToken":true}`)
	d := dataOf(m)
	tok, _ := d["mcpToken"].(string)
	if !strings.HasPrefix(tok, "sbst_") || d["mcpUrl"] == nil {
		t.Fatalf("session with mcpToken: %s", raw)
	}
	_, m2, _ := f.json("POST", "/v1/sessions", `{"userId":"bob","connectors":["delta"]}`)
	if _, ok := dataOf(m2)["mcpToken"]; ok {
		t.Fatal("a token without asking")
	}
	id, other := d["id"].(string), dataOf(m2)["id"].(string)
	ping := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	if r := f.mcpWith(f.h, "/v1/sessions/"+id+"/mcp", tok, ping); r.status != 200 {
		t.Fatalf("own session: %d %s", r.status, r.body)
	}
	if r := f.mcpWith(f.h, "/v1/sessions/"+other+"/mcp", tok, ping); r.status != 401 {
		t.Fatalf("another session: %d %s", r.status, r.body)
	}
	if r := f.do(f.h, "GET", "/v1/sessions/"+id, "Bearer "+tok, ""); r.status != 401 {
		t.Fatalf("the session's REST route: %d", r.status)
	}
	if r := f.do(f.h, "POST", "/v1/sessions/"+id+"/tools/delta_get_task", "Bearer "+tok, `{"arguments":{"id":"1"}}`); r.status != 401 {
		t.Fatalf("the session's tool route: %d", r.status)
	}
	f.clock.Advance(time.Duration(session.DefaultTTL+1) * time.Minute)
	if r := f.mcpWith(f.h, "/v1/sessions/"+id+"/mcp", tok, ping); r.status != 401 {
		t.Fatalf("token after the session expired: %d", r.status)
	}
}

// liveOAuth drives every operation of the MCP authorization server through
// the live check (openapi_live_test.go), on both databases.
func liveOAuth(t *testing.T, lc *liveCheck, f *fixture) {
	t.Helper()
	f.oauthEndpoint(t, "live-signin")
	form := []string{"Content-Type", "application/x-www-form-urlencoded"}
	lc.do(f.h, "GET", "/.well-known/oauth-authorization-server", "", "", 200)
	lc.do(f.h, "GET", "/.well-known/openid-configuration", "", "", 200)
	lc.do(f.h, "OPTIONS", "/.well-known/", "", "", 204)
	lc.do(f.h, "GET", "/.well-known/oauth-protected-resource/v1/mcp/live-signin", "", "", 200)
	lc.do(f.h, "GET", "/.well-known/oauth-protected-resource/v1/mcp/nope", "", "", 404)
	lc.do(f.h, "OPTIONS", "/oauth/", "", "", 204)
	lc.do(f.h, "POST", "/oauth/register", "", `{"redirect_uris":["http://evil.example/cb"]}`, 400)
	r := lc.do(f.h, "POST", "/oauth/register", "", `{"client_name":"Live","redirect_uris":["https://client.example/cb"]}`, 201)
	var reg struct {
		ClientID string `json:"client_id"`
	}
	_ = json.Unmarshal(r.body, &reg)
	q := url.Values{"response_type": {"code"}, "client_id": {reg.ClientID}, "redirect_uri": {"https://client.example/cb"}, "state": {"s"},
		"code_challenge": {challengeOf(testVerifier)}, "code_challenge_method": {"S256"}, "resource": {"http://sb.test/v1/mcp/live-signin"}}
	lc.do(f.h, "GET", "/oauth/authorize?"+url.Values{"client_id": {"nope"}, "response_type": {"code"}, "code_challenge": {"x"}, "code_challenge_method": {"S256"}, "resource": {"x"}}.Encode(), "", "", 400)
	r = lc.do(f.h, "GET", "/oauth/authorize?"+q.Encode(), "", "", 302)
	to, _ := url.Parse(r.header.Get("Location"))
	c := (&http.Response{Header: r.header}).Cookies()[0]
	cookie := c.Name + "=" + c.Value
	id := to.Query().Get("sb_request")
	lc.do(f.h, "GET", "/oauth/handoff?"+url.Values{"sb_request": {id}, "assertion": {"bad"}}.Encode(), "", "", 400, "Cookie", cookie)
	lc.do(f.h, "GET", "/oauth/handoff?"+url.Values{"sb_request": {id}, "assertion": {signAssertion(t, "u1", to.Query().Get("nonce"), f.clock.Now().Add(time.Minute))}}.Encode(), "", "", 303, "Cookie", cookie)
	lc.do(f.h, "GET", "/oauth/consent/"+id, "", "", 200, "Cookie", cookie)
	lc.do(f.h, "GET", "/oauth/consent/nope", "", "", 400)
	lc.do(f.h, "GET", "/oauth/oidc/callback?state="+id+"&code=x", "", "", 400, "Cookie", cookie)
	lc.do(f.h, "POST", "/oauth/consent/"+id, "", "decision=maybe", 400, append([]string{"Cookie", cookie}, form...)...)
	lc.do(f.h, "POST", "/oauth/consent/"+id, "", "decision=approve", 403, append([]string{"Cookie", cookie, "Sec-Fetch-Site", "cross-site"}, form...)...)
	r = lc.do(f.h, "POST", "/oauth/consent/"+id, "", "decision=approve", 303, append([]string{"Cookie", cookie}, form...)...)
	back, _ := url.Parse(r.header.Get("Location"))
	lc.do(f.h, "POST", "/oauth/token", "", "client_id="+reg.ClientID, 400, form...)
	lc.do(f.h, "POST", "/oauth/token", "", "grant_type=authorization_code", 401, form...)
	r = lc.do(f.h, "POST", "/oauth/token", "", codeForm(reg.ClientID, back.Query().Get("code"), "https://client.example/cb").Encode(), 200, form...)
	var tok tokens
	_ = json.Unmarshal(r.body, &tok)
	lc.do(f.h, "POST", "/oauth/revoke", "", "client_id="+reg.ClientID, 400, form...)
	lc.do(f.h, "POST", "/oauth/revoke", "", url.Values{"token": {tok.Refresh}, "client_id": {"another"}}.Encode(), 401, form...)
	lc.do(f.h, "POST", "/oauth/revoke", "", url.Values{"token": {tok.Refresh}, "client_id": {reg.ClientID}}.Encode(), 200, form...)
}

func TestMCPOAuth_HandoffWithJWKS(t *testing.T) {
	t.Parallel()
	f := setup(t)
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	b64 := func(n *big.Int) string { return base64.RawURLEncoding.EncodeToString(n.FillBytes(make([]byte, 32))) }
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `{"keys":[{"kty":"EC","crv":"P-256","kid":"k1","use":"sig","x":%q,"y":%q}]}`, b64(key.X), b64(key.Y))
	}))
	defer jwks.Close()
	ctx := context.Background()
	rec, err := f.srv.sessions.EndpointRecord(ctx, f.tenant(t, f.project.ID), session.EndpointRequest{ProjectID: f.project.ID, Slug: "jwks-signin",
		Connectors: []string{"delta"}, Mode: session.ModeTools})
	if err != nil {
		t.Fatal(err)
	}
	rec.ID = store.NewID()
	if err := f.srv.mcpAuth.Configure(&rec, store.AuthOAuth, mcpauth.Identity{HandoffURL: "https://app.example/mcp-signin", Issuer: "https://app.example", JWKSURL: jwks.URL}, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.CreateEndpoint(ctx, rec); err != nil {
		t.Fatal(err)
	}
	const redirect = "https://client.example/cb"
	client := f.registerClient(t, redirect)
	claims := func(n string) jwt.MapClaims {
		return jwt.MapClaims{"iss": "https://app.example", "aud": "http://sb.test", "sub": "ann", "nonce": n, "exp": f.clock.Now().Add(time.Minute).Unix()}
	}
	es := func(k *ecdsa.PrivateKey, kid string) func(string) string {
		return func(n string) string {
			tok := jwt.NewWithClaims(jwt.SigningMethodES256, claims(n))
			tok.Header["kid"] = kid
			s, err := tok.SignedString(k)
			if err != nil {
				t.Fatal(err)
			}
			return s
		}
	}
	for name, a := range map[string]func(string) string{
		"another key": es(other, "k1"),
		"unknown kid": es(key, "k2"),
		"HS256 instead": func(n string) string {
			return signAssertionWith(t, "ann", n, f.clock.Now().Add(time.Minute), handoffSecret)
		},
	} {
		if _, to := f.signInFlow(t, signIn{client: client, redirect: redirect, resource: "http://sb.test/v1/mcp/jwks-signin", assertion: a}); to.Path != "handoff-refused" {
			t.Errorf("%s: accepted (%s)", name, to)
		}
	}
	code, _ := f.signInFlow(t, signIn{client: client, redirect: redirect, resource: "http://sb.test/v1/mcp/jwks-signin", assertion: es(key, "k1")})
	if st, tok := f.token(t, codeForm(client, code, redirect)); st != 200 || tok.Access == "" {
		t.Fatalf("ES256 sign-in: %d %+v", st, tok)
	}
	// Configure refuses what cannot work.
	bad := store.Endpoint{ID: store.NewID()}
	for _, c := range []struct {
		h      mcpauth.Identity
		secret string
	}{
		{mcpauth.Identity{HandoffURL: "http://app.example/x", Issuer: "i"}, handoffSecret},
		{mcpauth.Identity{HandoffURL: "https://app.example/x"}, handoffSecret},
		{mcpauth.Identity{HandoffURL: "https://app.example/x", Issuer: "i"}, "short"},
		{mcpauth.Identity{HandoffURL: "https://app.example/x", Issuer: "i", JWKSURL: "https://k.example/jwks"}, handoffSecret},
		{mcpauth.Identity{Kind: "oidc", Issuer: "http://idp.example"}, ""},
		{mcpauth.Identity{Kind: "oidc", Issuer: "https://idp.example"}, ""},
		{mcpauth.Identity{Kind: "oidc", Issuer: "https://idp.example", ClientID: "c", HandoffURL: "https://app.example/x"}, ""},
		{mcpauth.Identity{Kind: "saml", Issuer: "https://idp.example"}, ""},
	} {
		if err := f.srv.mcpAuth.Configure(&bad, store.AuthOAuth, c.h, c.secret); err == nil {
			t.Errorf("configured %+v with secret %q", c.h, c.secret)
		}
	}
}
