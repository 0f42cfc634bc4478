package execute

import (
	"context"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
)

// The token grants the gateway runs itself (docs/auth-methods.md), each
// against a fake token endpoint that checks the request the provider
// documents, then a tool call that must carry the token.

var (
	testKeyOnce sync.Once
	testKey     *rsa.PrivateKey
	testKeyPEM  string
)

// rsaTestKey is one RSA key for every test here (generating one is slow).
func rsaTestKey(t *testing.T) (*rsa.PrivateKey, string) {
	t.Helper()
	testKeyOnce.Do(func() {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			panic(err)
		}
		der, _ := x509.MarshalPKCS8PrivateKey(k)
		testKey, testKeyPEM = k, string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	})
	return testKey, testKeyPEM
}

// grantReq is one request the grant fake received.
type grantReq struct {
	Host, Method, Path string
	Header             http.Header
	Form               url.Values
}

// grantFake answers token requests with tokenFunc and API calls with
// {"ok": true}, recording both with the host the executor meant.
type grantFake struct {
	srv       *httptest.Server
	mu        sync.Mutex
	tokens    []grantReq
	calls     []grantReq
	tokenPath string
	tokenFunc func(w http.ResponseWriter, r grantReq)
	// apiFunc, when set, answers API calls instead of {"ok": true}.
	apiFunc func(w http.ResponseWriter, r grantReq)
}

func newGrantEnv(t *testing.T, tokenPath string, tokenFunc func(w http.ResponseWriter, r grantReq)) (*env, *grantFake) {
	t.Helper()
	_, e := newBuiltinEnv(t)
	g := &grantFake{tokenPath: tokenPath, tokenFunc: tokenFunc}
	g.srv = httptest.NewTLSServer(http.HandlerFunc(g.serve))
	t.Cleanup(g.srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(g.srv.Certificate())
	e.exec.client = &http.Client{Transport: &rewriter{host: strings.TrimPrefix(g.srv.URL, "https://"),
		next: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}}
	return e, g
}

func (g *grantFake) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	form, _ := url.ParseQuery(string(body))
	req := grantReq{Host: r.Header.Get(originalHostHeader), Method: r.Method, Path: r.URL.EscapedPath(), Header: r.Header.Clone(), Form: form}
	w.Header().Set("Content-Type", "application/json")
	g.mu.Lock()
	if r.URL.Path == g.tokenPath {
		g.tokens = append(g.tokens, req)
		g.mu.Unlock()
		g.tokenFunc(w, req)
		return
	}
	g.calls = append(g.calls, req)
	g.mu.Unlock()
	if g.apiFunc != nil {
		g.apiFunc(w, req)
		return
	}
	_, _ = io.WriteString(w, `{"ok":true}`)
}

func (g *grantFake) counts() (tokens, calls int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.tokens), len(g.calls)
}

func (g *grantFake) lastToken() grantReq {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.tokens[len(g.tokens)-1]
}

func (g *grantFake) lastCall() grantReq {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.calls[len(g.calls)-1]
}

// jwtParts checks an RS256 JWT's signature against the test key and
// returns its header and claims.
func jwtParts(t *testing.T, token string) (header, claims map[string]any) {
	t.Helper()
	key, _ := rsaTestKey(t)
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %d parts", len(parts))
	}
	sig, err := base64.RawURLEncoding.DecodeString(parts[2])
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(parts[0] + "." + parts[1]))
	if err := rsa.VerifyPKCS1v15(&key.PublicKey, crypto.SHA256, sum[:], sig); err != nil {
		t.Fatalf("the RS256 signature does not verify with the test key: %v", err)
	}
	for i, dst := range []*map[string]any{&header, &claims} {
		raw, err := base64.RawURLEncoding.DecodeString(parts[i])
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			t.Fatal(err)
		}
	}
	if header["alg"] != "RS256" {
		t.Fatalf("alg %v, want RS256", header["alg"])
	}
	return header, claims
}

func unix(v any) time.Time { f, _ := v.(float64); return time.Unix(int64(f), 0) }

// connectAs stores a credential for u1 on connector.
func (e *env) connectAs(connector string, credential map[string]any) (store_ string, err error) {
	e.t.Helper()
	raw, _ := json.Marshal(credential)
	c, err := e.accounts.Create(context.Background(), e.tenant(), account.CreateRequest{ConnectorID: connector, UserID: "u1", Credential: raw})
	return c.ID, err
}

func noSecrets(t *testing.T, err error, secrets ...string) {
	t.Helper()
	if err == nil {
		return
	}
	b, _ := json.Marshal(err)
	_, keyPEM := rsaTestKey(t)
	body := strings.Split(keyPEM, "\n")[1][:32] // a piece of the key itself
	for _, s := range append(secrets, body) {
		if s == "" {
			continue
		}
		if strings.Contains(err.Error(), s) || strings.Contains(string(b), s) {
			t.Fatalf("the error shows secret material %q: %v", s, err)
		}
	}
}

func TestServiceAccount_GmailJWTGrantWithSubject(t *testing.T) {
	t.Parallel()
	e, g := newGrantEnv(t, "/token", func(w http.ResponseWriter, r grantReq) {
		_, _ = io.WriteString(w, `{"access_token":"sa-access","token_type":"Bearer","expires_in":3599}`)
	})
	_, keyPEM := rsaTestKey(t)
	keyFile, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "p1", "private_key_id": "kid-1", "private_key": keyPEM,
		"client_email": "bot@p1.iam.gserviceaccount.com", "client_id": "1234", "token_uri": "https://oauth2.googleapis.com/token",
	})
	// The key file as the Connect page sends it: a string.
	if _, err := e.connectAs("gmail", map[string]any{"type": "google_service_account", "serviceAccountKey": string(keyFile), "subject": "ann@example.com"}); err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	for range 2 {
		if _, err := e.run("gmail_list_labels", `{}`); err != nil {
			t.Fatal(err)
		}
	}
	tokens, calls := g.counts()
	if tokens != 1 || calls != 2 {
		t.Fatalf("token requests %d (want 1: cached), calls %d", tokens, calls)
	}
	tr := g.lastToken()
	if tr.Host != "oauth2.googleapis.com" || tr.Method != "POST" || tr.Header.Get("Content-Type") != "application/x-www-form-urlencoded" ||
		tr.Form.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" || len(tr.Form) != 2 {
		t.Fatalf("token request: %+v", tr)
	}
	header, claims := jwtParts(t, tr.Form.Get("assertion"))
	wantScope := "https://www.googleapis.com/auth/gmail.send https://www.googleapis.com/auth/gmail.readonly https://www.googleapis.com/auth/gmail.modify https://mail.google.com/ " +
		"https://www.googleapis.com/auth/gmail.settings.basic"
	if header["kid"] != "kid-1" || claims["iss"] != "bot@p1.iam.gserviceaccount.com" || claims["sub"] != "ann@example.com" ||
		claims["aud"] != "https://oauth2.googleapis.com/token" || claims["scope"] != wantScope {
		t.Fatalf("assertion header %v claims %v", header, claims)
	}
	// Google takes assertions valid for at most an hour.
	if exp := unix(claims["exp"]); exp.Before(before) || exp.After(before.Add(time.Hour)) || unix(claims["iat"]).After(exp) {
		t.Fatalf("iat %v exp %v", claims["iat"], claims["exp"])
	}
	c := g.lastCall()
	if c.Host != "gmail.googleapis.com" || c.Path != "/gmail/v1/users/me/labels" || c.Header.Get("Authorization") != "Bearer sa-access" {
		t.Fatalf("tool call: %+v", c)
	}
}

func TestServiceAccount_NoSubjectAndRefusedAssertion(t *testing.T) {
	t.Parallel()
	e, g := newGrantEnv(t, "/token", func(w http.ResponseWriter, r grantReq) {
		w.WriteHeader(400)
		_, _ = io.WriteString(w, `{"error":"unauthorized_client","error_description":"Client is unauthorized to retrieve access tokens using this method, or client not authorized for any of the scopes requested."}`)
	})
	_, keyPEM := rsaTestKey(t)
	// The key file as an object, as an API caller sends it.
	key := map[string]any{"type": "service_account", "private_key_id": "kid-2", "private_key": keyPEM, "client_email": "bot@p1.iam.gserviceaccount.com"}
	if _, err := e.connectAs("google_drive", map[string]any{"type": "google_service_account", "serviceAccountKey": key}); err != nil {
		t.Fatal(err)
	}
	_, err := e.run("google_drive_list_files", `{}`)
	ae := wantCode(t, err, apierr.ExecutionError, 400)
	if !strings.Contains(ae.Message, "unauthorized_client") || !strings.Contains(ae.Message, "domain-wide delegation") {
		t.Fatalf("message does not say what to fix: %s", ae.Message)
	}
	noSecrets(t, err, g.lastToken().Form.Get("assertion"))
	if _, claims := jwtParts(t, g.lastToken().Form.Get("assertion")); claims["sub"] != nil || claims["prn"] != nil {
		t.Fatalf("no subject was given, but the assertion has sub %v", claims["sub"])
	}
	if _, calls := g.counts(); calls != 0 {
		t.Fatalf("a tool call went out without a token")
	}
}

func TestServiceAccount_StoreRefusesUnusableKeys(t *testing.T) {
	t.Parallel()
	e, _ := newGrantEnv(t, "/token", nil)
	_, keyPEM := rsaTestKey(t)
	bad := strings.Replace(keyPEM, "A", "B", 5)
	for name, c := range map[string]map[string]any{
		"not a service account": {"type": "google_service_account", "serviceAccountKey": map[string]any{"type": "authorized_user", "private_key": keyPEM, "client_email": "x@y"}},
		"broken key":            {"type": "google_service_account", "serviceAccountKey": map[string]any{"type": "service_account", "private_key": bad, "client_email": "x@y"}},
		"other token uri":       {"type": "google_service_account", "serviceAccountKey": map[string]any{"type": "service_account", "private_key": keyPEM, "client_email": "x@y", "token_uri": "https://evil.example/token"}},
		"subject not a user":    {"type": "google_service_account", "serviceAccountKey": map[string]any{"type": "service_account", "private_key": keyPEM, "client_email": "x@y"}, "subject": "ann"},
		"no key":                {"type": "google_service_account"},
	} {
		_, err := e.connectAs("google_sheets", c)
		if ae, ok := apierr.As(err); !ok || ae.Code != apierr.ValidationError {
			t.Errorf("%s: %v, want VALIDATION_ERROR", name, err)
		}
		noSecrets(t, err)
	}
}

func TestJWTBearer_SalesforceInstanceURLBecomesTheBaseURL(t *testing.T) {
	t.Parallel()
	e, g := newGrantEnv(t, "/services/oauth2/token", func(w http.ResponseWriter, r grantReq) {
		_, _ = io.WriteString(w, `{"access_token":"00Dxx!sf-access","scope":"api","instance_url":"https://acme--dev.sandbox.my.salesforce.com","id":"https://test.salesforce.com/id/00D/005","token_type":"Bearer"}`)
	})
	_, keyPEM := rsaTestKey(t)
	if _, err := e.connectAs("salesforce", map[string]any{"type": "oauth2_jwt_bearer", "clientId": "3MVG9-consumer-key", "username": "ann@acme.com.dev",
		"privateKey": keyPEM, "loginHost": "test.salesforce.com"}); err != nil {
		t.Fatal(err)
	}
	before := time.Now()
	if _, err := e.run("salesforce_query_records", `{"q":"SELECT Id FROM Account"}`); err != nil {
		t.Fatal(err)
	}
	tr := g.lastToken()
	if tr.Host != "test.salesforce.com" || tr.Method != "POST" || tr.Form.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" || len(tr.Form) != 2 {
		t.Fatalf("token request: %+v", tr)
	}
	_, claims := jwtParts(t, tr.Form.Get("assertion"))
	if claims["iss"] != "3MVG9-consumer-key" || claims["sub"] != "ann@acme.com.dev" || claims["aud"] != "https://test.salesforce.com" || claims["scope"] != nil {
		t.Fatalf("claims %v", claims)
	}
	// Salesforce refuses assertions that expire more than three minutes out.
	if exp := unix(claims["exp"]); exp.Before(before) || exp.After(before.Add(3*time.Minute)) {
		t.Fatalf("exp %v, want within three minutes", exp)
	}
	c := g.lastCall()
	if c.Host != "acme--dev.sandbox.my.salesforce.com" || c.Path != "/services/data/v67.0/query" || c.Header.Get("Authorization") != "Bearer 00Dxx!sf-access" {
		t.Fatalf("tool call: %+v", c)
	}
	// The login host is one of Salesforce's two: the assertion goes nowhere else.
	_, err := e.connectAs("salesforce", map[string]any{"type": "oauth2_jwt_bearer", "clientId": "c", "username": "u", "privateKey": keyPEM, "loginHost": "evil.example"})
	wantCode(t, err, apierr.ValidationError, 400)
}

func TestJWTBearer_RefusedAssertionSaysWhatToFix(t *testing.T) {
	t.Parallel()
	e, g := newGrantEnv(t, "/services/oauth2/token", func(w http.ResponseWriter, r grantReq) {
		w.WriteHeader(400)
		_, _ = io.WriteString(w, `{"error":"invalid_grant","error_description":"user hasn't approved this consumer"}`)
	})
	_, keyPEM := rsaTestKey(t)
	if _, err := e.connectAs("salesforce", map[string]any{"type": "oauth2_jwt_bearer", "clientId": "ck", "username": "ann@acme.com", "privateKey": keyPEM}); err != nil {
		t.Fatal(err)
	}
	_, err := e.run("salesforce_query_records", `{"q":"SELECT Id FROM Account"}`)
	ae := wantCode(t, err, apierr.ExecutionError, 400)
	if !strings.Contains(ae.Message, "invalid_grant") || !strings.Contains(ae.Message, "pre-authorized") {
		t.Fatalf("message: %s", ae.Message)
	}
	if g.lastToken().Host != "login.salesforce.com" {
		t.Fatalf("the default login host is login.salesforce.com, got %s", g.lastToken().Host)
	}
	noSecrets(t, err, g.lastToken().Form.Get("assertion"))
}

func TestGitHubApp_InstallationTokenCachedUntilShortlyBeforeExpiry(t *testing.T) {
	t.Parallel()
	var e *env
	n := 0
	e, g := newGrantEnv(t, "/app/installations/678/access_tokens", func(w http.ResponseWriter, r grantReq) {
		n++
		w.WriteHeader(201)
		_ = json.NewEncoder(w).Encode(map[string]any{"token": "ghs_installation_" + itoa(int64(n)), "expires_at": e.clock.Now().Add(time.Hour).Format(time.RFC3339)})
	})
	_, keyPEM := rsaTestKey(t)
	// An app id as a JSON number, as GitHub shows it.
	if _, err := e.connectAs("github", map[string]any{"type": "github_app", "appId": 12345, "installationId": "678", "privateKey": keyPEM}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run("github_get_repository", `{"owner":"o","repo":"r"}`); err != nil {
		t.Fatal(err)
	}
	tr := g.lastToken()
	if tr.Host != "api.github.com" || tr.Method != "POST" || tr.Header.Get("Accept") != "application/vnd.github+json" ||
		tr.Header.Get("X-GitHub-Api-Version") != "2022-11-28" {
		t.Fatalf("token request: %+v", tr)
	}
	now := e.clock.Now()
	_, claims := jwtParts(t, strings.TrimPrefix(tr.Header.Get("Authorization"), "Bearer "))
	iat, exp := unix(claims["iat"]), unix(claims["exp"])
	if claims["iss"] != "12345" || !iat.Equal(now.Add(-60*time.Second)) || !exp.After(now) || exp.Sub(iat) > 10*time.Minute {
		t.Fatalf("app JWT claims %v (now %v)", claims, now)
	}
	c := g.lastCall()
	if c.Host != "api.github.com" || c.Path != "/repos/o/r" || c.Header.Get("Authorization") != "Bearer ghs_installation_1" {
		t.Fatalf("tool call: %+v", c)
	}
	// Cached for the hour, renewed a minute before it ends.
	e.clock.Advance(58 * time.Minute)
	if _, err := e.run("github_get_repository", `{"owner":"o","repo":"r"}`); err != nil {
		t.Fatal(err)
	}
	if tokens, _ := g.counts(); tokens != 1 {
		t.Fatalf("token requests %d, want 1 while the token is valid", tokens)
	}
	// An installation token acts for the app: /user tools are refused.
	_, err := e.run("github_get_authenticated_user", `{}`)
	wantCode(t, err, apierr.ActionDisabled, 403)
	e.clock.Advance(90 * time.Second)
	if _, err := e.run("github_get_repository", `{"owner":"o","repo":"r"}`); err != nil {
		t.Fatal(err)
	}
	if tokens, _ := g.counts(); tokens != 2 || g.lastCall().Header.Get("Authorization") != "Bearer ghs_installation_2" {
		t.Fatalf("token requests %d, auth %q: the token was not renewed before expiry", tokens, g.lastCall().Header.Get("Authorization"))
	}
}

func TestGitHubApp_RefusedJWTAndBadCredential(t *testing.T) {
	t.Parallel()
	e, g := newGrantEnv(t, "/app/installations/9/access_tokens", func(w http.ResponseWriter, r grantReq) {
		w.WriteHeader(401)
		_, _ = io.WriteString(w, `{"message":"A JSON web token could not be decoded","documentation_url":"https://docs.github.com/rest"}`)
	})
	_, keyPEM := rsaTestKey(t)
	if _, err := e.connectAs("github", map[string]any{"type": "github_app", "appId": "Iv23liExample", "installationId": 9, "privateKey": keyPEM}); err != nil {
		t.Fatal(err)
	}
	_, err := e.run("github_get_repository", `{"owner":"o","repo":"r"}`)
	ae := wantCode(t, err, apierr.ExecutionError, 400)
	if !strings.Contains(ae.Message, "could not be decoded") || !strings.Contains(ae.Message, "app id") {
		t.Fatalf("message: %s", ae.Message)
	}
	noSecrets(t, err, strings.TrimPrefix(g.lastToken().Header.Get("Authorization"), "Bearer "))
	for name, c := range map[string]map[string]any{
		"installation id not a number": {"type": "github_app", "appId": "1", "installationId": "abc", "privateKey": keyPEM},
		"key not PEM":                  {"type": "github_app", "appId": "1", "installationId": "2", "privateKey": "not a key"},
		"no app id":                    {"type": "github_app", "installationId": "2", "privateKey": keyPEM},
	} {
		_, err := e.connectAs("github", c)
		if ae, ok := apierr.As(err); !ok || ae.Code != apierr.ValidationError {
			t.Errorf("%s: %v", name, err)
		}
		noSecrets(t, err)
	}
}

func TestZoomServerToServer_AccountCredentialsGrant(t *testing.T) {
	t.Parallel()
	e, g := newGrantEnv(t, "/oauth/token", func(w http.ResponseWriter, r grantReq) {
		_, _ = io.WriteString(w, `{"access_token":"zoom-s2s","token_type":"bearer","expires_in":3599,"scope":"meeting:read:list_meetings:admin user:read:list_users:admin","api_url":"https://api.zoom.us"}`)
	})
	if _, err := e.connectAs("zoom", map[string]any{"type": "oauth2_client_credentials", "clientId": "zc-id", "clientSecret": "zc-secret", "accountId": "AbCdEfGhIj_123"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run("zoom_list_meetings", `{"userId":"me"}`); err != nil {
		t.Fatal(err)
	}
	tr := g.lastToken()
	user, pass, ok := basicAuth(tr.Header.Get("Authorization"))
	if tr.Host != "zoom.us" || tr.Method != "POST" || !ok || user != "zc-id" || pass != "zc-secret" ||
		tr.Form.Get("grant_type") != "account_credentials" || tr.Form.Get("account_id") != "AbCdEfGhIj_123" ||
		tr.Form.Has("client_secret") || tr.Form.Has("scope") {
		t.Fatalf("token request: %+v", tr)
	}
	c := g.lastCall()
	if c.Host != "api.zoom.us" || c.Path != "/v2/users/me/meetings" || c.Header.Get("Authorization") != "Bearer zoom-s2s" {
		t.Fatalf("tool call: %+v", c)
	}
	// The account-wide admin tools run with a Server-to-Server account...
	if _, err := e.run("zoom_list_users", `{"status":"active"}`); err != nil {
		t.Fatal(err)
	}
	if c := g.lastCall(); c.Path != "/v2/users" || c.Header.Get("Authorization") != "Bearer zoom-s2s" {
		t.Fatalf("admin tool call: %+v", c)
	}
	// ...and are refused, before any provider call, for a user OAuth account.
	_, before := g.counts()
	oauthID, err := e.connectAs("zoom", map[string]any{"type": "oauth2", "accessToken": "user-token"})
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.run("zoom_get_meeting_participants_report", `{"meetingId":"1"}`, func(c *Call) { c.ConnectionID = oauthID })
	wantCode(t, err, apierr.ActionDisabled, 403)
	if _, after := g.counts(); after != before {
		t.Fatal("an excluded tool reached the provider")
	}
	// The user OAuth method has no account id.
	_, err = e.connectAs("zoom", map[string]any{"type": "oauth2", "accessToken": "t", "accountId": "AbCdEfGhIj_123"})
	wantCode(t, err, apierr.ValidationError, 400)
}

func TestMicrosoftAppOnly_OutlookAndTeams(t *testing.T) {
	t.Parallel()
	tenant := "8c3d5e4f-0000-4000-8000-123456789abc"
	e, g := newGrantEnv(t, "/"+tenant+"/oauth2/v2.0/token", func(w http.ResponseWriter, r grantReq) {
		_, _ = io.WriteString(w, `{"token_type":"Bearer","expires_in":3599,"ext_expires_in":3599,"access_token":"graph-app"}`)
	})
	cred := func() map[string]any {
		return map[string]any{"type": "oauth2_client_credentials", "clientId": "app-1", "clientSecret": "app-secret", "tenantId": tenant, "userId": "ann@contoso.com"}
	}
	if _, err := e.connectAs("outlook", cred()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run("outlook_list_messages", `{}`); err != nil {
		t.Fatal(err)
	}
	tr := g.lastToken()
	if tr.Host != "login.microsoftonline.com" || tr.Form.Get("grant_type") != "client_credentials" || tr.Form.Get("client_id") != "app-1" ||
		tr.Form.Get("client_secret") != "app-secret" || tr.Form.Get("scope") != "https://graph.microsoft.com/.default" {
		t.Fatalf("token request: %+v", tr)
	}
	// An app-only token has no /me: the account's user stands for it.
	c := g.lastCall()
	if c.Host != "graph.microsoft.com" || c.Path != "/v1.0/users/ann@contoso.com/messages" || c.Header.Get("Authorization") != "Bearer graph-app" {
		t.Fatalf("tool call: %+v", c)
	}
	if _, err := e.connectAs("microsoft_teams", cred()); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run("microsoft_teams_list_joined_teams", `{}`); err != nil {
		t.Fatal(err)
	}
	if c := g.lastCall(); c.Path != "/v1.0/users/ann@contoso.com/joinedTeams" {
		t.Fatalf("tool call: %+v", c)
	}
	// Graph does not let an app post chat messages with its own token.
	_, calls := g.counts()
	_, err := e.run("microsoft_teams_send_chat_message", `{"chat_id":"19:abc","body":{"content":"hi"}}`)
	ae := wantCode(t, err, apierr.ActionDisabled, 403)
	if !strings.Contains(ae.Message, "app_only") {
		t.Fatalf("message: %s", ae.Message)
	}
	if _, after := g.counts(); after != calls {
		t.Fatal("an excluded tool reached the provider")
	}
	// Without the tenant the token URL cannot be filled: refused on store.
	bad := cred()
	delete(bad, "tenantId")
	_, err = e.connectAs("outlook", bad)
	wantCode(t, err, apierr.ValidationError, 400)
}

func TestGrant_ConcurrentCallsShareOneTokenRequest(t *testing.T) {
	t.Parallel()
	e, g := newGrantEnv(t, "/token", func(w http.ResponseWriter, r grantReq) {
		time.Sleep(200 * time.Millisecond) // long enough for every call to be waiting
		_, _ = io.WriteString(w, `{"access_token":"shared","token_type":"Bearer","expires_in":3600}`)
	})
	_, keyPEM := rsaTestKey(t)
	key := map[string]any{"type": "service_account", "private_key": keyPEM, "client_email": "bot@p1.iam.gserviceaccount.com"}
	if _, err := e.connectAs("google_calendar", map[string]any{"type": "google_service_account", "serviceAccountKey": key, "subject": "ann@example.com"}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			if _, err := e.run("google_calendar_list_calendars", `{}`); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if tokens, calls := g.counts(); tokens != 1 || calls != 16 {
		t.Fatalf("token requests %d (want 1), calls %d", tokens, calls)
	}
}

func TestGrant_TokenRefusedWith401IsReplacedOnce(t *testing.T) {
	t.Parallel()
	n := 0
	e, g := newGrantEnv(t, "/services/oauth2/token", func(w http.ResponseWriter, r grantReq) {
		n++
		_, _ = io.WriteString(w, `{"access_token":"sf-`+itoa(int64(n))+`","instance_url":"https://acme.my.salesforce.com","token_type":"Bearer"}`)
	})
	// The org ended the first session early (a short session timeout).
	g.apiFunc = func(w http.ResponseWriter, r grantReq) {
		if r.Header.Get("Authorization") == "Bearer sf-1" {
			w.WriteHeader(401)
			_, _ = io.WriteString(w, `[{"message":"Session expired or invalid","errorCode":"INVALID_SESSION_ID"}]`)
			return
		}
		_, _ = io.WriteString(w, `{"totalSize":0,"records":[]}`)
	}
	_, keyPEM := rsaTestKey(t)
	if _, err := e.connectAs("salesforce", map[string]any{"type": "oauth2_jwt_bearer", "clientId": "ck", "username": "ann@acme.com", "privateKey": keyPEM}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run("salesforce_query_records", `{"q":"SELECT Id FROM Account"}`); err != nil {
		t.Fatal(err)
	}
	if tokens, calls := g.counts(); tokens != 2 || calls != 2 || g.lastCall().Header.Get("Authorization") != "Bearer sf-2" {
		t.Fatalf("token requests %d, calls %d, last auth %q", tokens, calls, g.lastCall().Header.Get("Authorization"))
	}
	// A token that keeps being refused is the provider's answer, after one retry.
	g.apiFunc = func(w http.ResponseWriter, r grantReq) { w.WriteHeader(401) }
	_, err := e.run("salesforce_query_records", `{"q":"SELECT Id FROM Account"}`)
	wantCode(t, err, apierr.ExecutionError, 400)
	if tokens, calls := g.counts(); tokens != 3 || calls != 4 {
		t.Fatalf("token requests %d, calls %d: want one retry with a new token", tokens, calls)
	}
}
