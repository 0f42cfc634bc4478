package execute

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/store"
)

func wantCode(t *testing.T, err error, code apierr.Code, status int) *apierr.Error {
	t.Helper()
	e, ok := apierr.As(err)
	if !ok || e.Code != code || e.HTTPStatus() != status {
		t.Fatalf("err %v, want %s %d", err, code, status)
	}
	return e
}

func TestExecute_APIKeyInHeaderAndQueryMapping(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.connect("u1", map[string]any{"type": "api_key", "apiKey": "k-secret"})
	got, err := e.run("acme_get_item", `{"id":"a b/c","verbose":true,"tags":["x","y"],"limit":3}`)
	if err != nil {
		t.Fatal(err)
	}
	r := e.fake.last()
	if r.Method != "GET" || r.Path != "/api/items/a%20b%2Fc" || r.Header.Get("X-Api-Key") != "Key k-secret" ||
		r.Header.Get("X-Acme-Version") != "2" || r.Query.Get("verbose") != "true" || strings.Join(r.Query["tags"], ",") != "x,y" ||
		r.Query.Get("limit") != "3" || r.Body != "" {
		t.Fatalf("request: %+v", r)
	}
	if m := asMap(got); m["method"] != "GET" {
		t.Fatalf("result: %v", got)
	}
}

func TestExecute_JSONBodyWrapHeaderAndForm(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.connect("u1", map[string]any{"type": "basic", "username": "ann", "password": "pw-secret"})
	if _, err := e.run("acme_create_item", `{"name":"w","count":2,"meta":{"a":1},"requestId":"r-1"}`); err != nil {
		t.Fatal(err)
	}
	r := e.fake.last()
	var body map[string]any
	_ = json.Unmarshal([]byte(r.Body), &body)
	item, _ := body["item"].(map[string]any)
	if r.Method != "POST" || r.Path != "/api/items" || item["name"] != "w" || item["count"] != float64(2) ||
		item["requestId"] != nil || r.Header.Get("X-Request-Ref") != "r-1" || r.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("request: %+v", r)
	}
	if u, p, ok := basicAuth(r.Header.Get("Authorization")); !ok || u != "ann" || p != "pw-secret" {
		t.Fatalf("basic auth: %q", r.Header.Get("Authorization"))
	}
	if _, err := e.run("acme_create_form", `{"title":"t","tags":["a","b"],"meta":{"k":"v"}}`); err != nil {
		t.Fatal(err)
	}
	r = e.fake.last()
	if r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" ||
		r.Body != "meta%5Bk%5D=v&source=switchboard&tags%5B%5D%5B0%5D=a&tags%5B%5D%5B1%5D=b&title=t" {
		t.Fatalf("form: %q %v", r.Body, r.Header)
	}
}

// TestExecute_StaticHeadersPinAToolsVersion: a tool's staticHeaders go
// with its call and replace the connector's header of the same name (an API
// that versions each endpoint apart, as Cal.com does); other tools keep the
// connector's.
func TestExecute_StaticHeadersPinAToolsVersion(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.connect("u1", map[string]any{"type": "api_key", "apiKey": "k-secret"})
	if _, err := e.run("acme_get_report", `{"id":"r1"}`); err != nil {
		t.Fatal(err)
	}
	r := e.fake.last()
	if r.Path != "/api/reports/r1" || r.Header.Get("X-Acme-Version") != "2026-01-01" || r.Header.Get("X-Acme-Beta") != "on" ||
		len(r.Header.Values("X-Acme-Version")) != 1 {
		t.Fatalf("request: %+v", r)
	}
	if _, err := e.run("acme_get_item", `{"id":"a"}`); err != nil {
		t.Fatal(err)
	}
	if r := e.fake.last(); r.Header.Get("X-Acme-Version") != "2" || r.Header.Get("X-Acme-Beta") != "" {
		t.Fatalf("another tool: %+v", r.Header)
	}
}

// TestExecute_PathParameterAlsoInTheBody: a path parameter a PATCH lists
// in body goes to the path and, as given, into the (wrapped) body.
func TestExecute_PathParameterAlsoInTheBody(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.connect("u1", map[string]any{"type": "api_key", "apiKey": "k-secret"})
	if _, err := e.run("acme_update_item", `{"id":"it 1","name":"n"}`); err != nil {
		t.Fatal(err)
	}
	r := e.fake.last()
	if r.Method != "PATCH" || r.Path != "/api/items/it%201" || r.Body != `{"data":{"id":"it 1","name":"n","type":"item"}}` {
		t.Fatalf("request: %s %s %s", r.Method, r.Path, r.Body)
	}
}

func basicAuth(h string) (string, string, bool) {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(h, "Basic "))
	if err != nil {
		return "", "", false
	}
	u, p, ok := strings.Cut(string(raw), ":")
	return u, p, ok
}

func TestExecute_CustomCredentialAndPathSlashes(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.connect("u1", map[string]any{"type": "custom", "fields": map[string]any{"token": "t-secret", "workspace": "w1"}})
	if _, err := e.run("acme_get_file", `{"path":"docs/read me.md"}`); err != nil {
		t.Fatal(err)
	}
	r := e.fake.last()
	if r.Path != "/api/files/docs/read%20me.md" || r.Header.Get("X-Token") != "t-secret" || r.Query.Get("ws") != "w1" {
		t.Fatalf("request: %+v", r)
	}
	// Values a server could read as dot segments: plain, with ';parameters'
	// dropped, Unicode-folded, or in a one-segment placeholder whose %2F a
	// server decodes.
	for _, c := range []struct{ tool, input string }{
		{"acme_get_file", `{"path":"docs/../../admin"}`},
		{"acme_get_file", `{"path":"docs/..;/..;/admin"}`},
		{"acme_get_file", `{"path":"docs/\uff0e\uff0e/admin"}`},
		{"acme_get_file", `{"path":"docs\\..\\admin"}`},
		{"acme_get_item", `{"id":".."}`},
		{"acme_get_item", `{"id":"../admin"}`},
		{"acme_get_item", `{"id":"..\\admin"}`},
		{"acme_get_item", `{"id":"\uff0e\uff0e\uff0fadmin"}`},
		{"acme_get_item", `{"id":"..;x"}`},
	} {
		_, err := e.run(c.tool, c.input)
		if ae, ok := apierr.As(err); !ok || ae.Code != apierr.ValidationError {
			t.Errorf("%s %s: %v", c.tool, c.input, err)
		}
	}
	for _, input := range []string{`{"id":"a..b"}`, `{"id":"v1.2"}`, `{"id":"a/b"}`} {
		if _, err := e.run("acme_get_item", input); err != nil {
			t.Errorf("%s refused: %v", input, err)
		}
	}
}

func TestExecute_AWSSigV4(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.connect("u1", map[string]any{"type": "aws_iam", "accessKeyId": "AKIDEXAMPLE", "secretAccessKey": "aws-secret"})
	if _, err := e.run("acme_delete_item", `{"id":"i1"}`); err != nil {
		t.Fatal(err)
	}
	r := e.fake.last()
	auth := r.Header.Get("Authorization")
	if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/") || !strings.Contains(auth, "/eu-west-1/s3/aws4_request") ||
		r.Header.Get("X-Amz-Date") == "" || r.Header.Get("X-Amz-Content-Sha256") == "" || strings.Contains(auth, "aws-secret") {
		t.Fatalf("sigv4: %q %v", auth, r.Header)
	}
}

func TestExecute_ClientCredentialsTokenCached(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.connect("u1", map[string]any{"type": "oauth2_client_credentials", "clientId": "cc-id", "clientSecret": "cc-secret"})
	for range 3 {
		if _, err := e.run("acme_get_item", `{"id":"1"}`); err != nil {
			t.Fatal(err)
		}
	}
	if e.fake.last().Header.Get("Authorization") != "Bearer cc-access" || e.fake.ccTokens.Load() != 1 {
		t.Fatalf("auth %q, token requests %d", e.fake.last().Header.Get("Authorization"), e.fake.ccTokens.Load())
	}
}

func TestExecute_NoneAndGraphQL(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.connect("u1", map[string]any{"type": "none"})
	got, err := e.run("acme_find_item", `{"id":"7"}`)
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := got.(map[string]any); m["name"] != "widget" {
		t.Fatalf("graphql result: %v", got)
	}
	r := e.fake.last()
	if r.Header.Get("Authorization") != "" || !strings.Contains(r.Body, `"variables":{"id":"7"}`) || !strings.Contains(r.Body, `"query":"query($id: ID!)`) {
		t.Fatalf("graphql request: %+v", r)
	}
	_, err = e.run("acme_find_item", `{"id":"missing"}`)
	wantCode(t, err, apierr.ExecutionError, 400)
}

func TestExecute_ResponseSelectionAndProviderErrors(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.connect("u1", map[string]any{"type": "api_key", "apiKey": "k"})
	got, err := e.run("acme_status", `{"code":"200"}`)
	if m, _ := got.(map[string]any); err != nil || m["deep"] != float64(1) {
		t.Fatalf("selected: %v %v", got, err)
	}
	ae := wantCode(t, mustErr(e.run("acme_status", `{"code":"404"}`)), apierr.ExecutionError, 400)
	if ae.Upstream == nil || ae.Upstream.Status != 404 || len(ae.Upstream.Body) > maxErrorBody+4 || !strings.Contains(ae.Upstream.Body, "failure 404") {
		t.Fatalf("upstream: %+v", ae.Upstream)
	}
	ae = wantCode(t, mustErr(e.run("acme_status", `{"code":"503"}`)), apierr.UpstreamError, 502)
	if ae.Upstream.Status != 503 {
		t.Fatalf("upstream: %+v", ae.Upstream)
	}
	ae = wantCode(t, mustErr(e.run("acme_status", `{"code":"429"}`)), apierr.ExecutionError, 400)
	if ae.RetryAfter != "7" || ae.Upstream.Status != 429 {
		t.Fatalf("429: %+v", ae)
	}
	wantCode(t, mustErr(e.run("acme_status", `{"code":"slow"}`)), apierr.UpstreamError, 502)
}

func mustErr(_ any, err error) error { return err }

func TestExecute_InputValidationListsEveryProblem(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.connect("u1", map[string]any{"type": "api_key", "apiKey": "k"})
	ae := wantCode(t, mustErr(e.run("acme_get_item", `{"verbose":"yes","limit":50,"extra":1}`)), apierr.ValidationError, 400)
	paths := map[string]bool{}
	for _, is := range ae.Issues {
		paths[apierr.PathString(is.Path)] = true
	}
	for _, want := range []string{"input.verbose", "input.limit", "input"} {
		if !paths[want] {
			t.Errorf("no issue at %s: %+v", want, ae.Issues)
		}
	}
	wantCode(t, mustErr(e.run("acme_get_item", `[1]`)), apierr.ValidationError, 400)
	if len(e.fake.requests) != 0 {
		t.Fatal("an invalid input reached the provider")
	}
}

func TestExecute_UnknownAndDisabledTools(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	wantCode(t, mustErr(e.run("acme_nope", `{}`)), apierr.ToolNotFound, 404)
	if err := e.store.SetToolsEnabled(context.Background(), e.project.ID, []string{"acme_get_item"}, false); err != nil {
		t.Fatal(err)
	}
	wantCode(t, mustErr(e.run("acme_get_item", `{"id":"1"}`)), apierr.ToolNotFound, 404)
}

func TestExecute_AccountResolution(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	wantCode(t, mustErr(e.run("acme_get_item", `{"id":"1"}`)), apierr.MissingConnection, 400)

	g1 := e.connect("", map[string]any{"type": "api_key", "apiKey": "global-1"})
	// A global account is not used unless allowed or named.
	wantCode(t, mustErr(e.run("acme_get_item", `{"id":"1"}`)), apierr.MissingConnection, 400)
	// Allowed, but without permission for the tool.
	wantCode(t, mustErr(e.run("acme_get_item", `{"id":"1"}`, func(c *Call) { c.AllowGlobal = true })), apierr.ActionDisabled, 403)
	if err := e.store.SetGlobalPermission(context.Background(), g1.ID, store.GlobalPermission{Tools: []string{"acme_get_*"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run("acme_get_item", `{"id":"1"}`, func(c *Call) { c.AllowGlobal = true }); err != nil || e.fake.last().Header.Get("X-Api-Key") != "Key global-1" {
		t.Fatalf("global account: %v", err)
	}
	wantCode(t, mustErr(e.run("acme_delete_item", `{"id":"1"}`, func(c *Call) { c.AllowGlobal = true })), apierr.ActionDisabled, 403)

	g2 := e.connect("", map[string]any{"type": "api_key", "apiKey": "global-2"})
	ae := wantCode(t, mustErr(e.run("acme_get_item", `{"id":"1"}`, func(c *Call) { c.AllowGlobal = true })), apierr.AmbiguousConnection, 409)
	if len(ae.Choices) != 2 || ae.Choices[0].ID != g1.ID || ae.Choices[1].ID != g2.ID || ae.Choices[0].DisplayName == "" {
		t.Fatalf("choices: %+v", ae.Choices)
	}
	// Naming a global account explicitly works without allowGlobalAccounts.
	if _, err := e.run("acme_get_item", `{"id":"1"}`, func(c *Call) { c.ConnectionID = g1.ID }); err != nil {
		t.Fatalf("named global account: %v", err)
	}

	own := e.connect("u1", map[string]any{"type": "api_key", "apiKey": "own"})
	if _, err := e.run("acme_get_item", `{"id":"1"}`, func(c *Call) { c.AllowGlobal = true }); err != nil || e.fake.last().Header.Get("X-Api-Key") != "Key own" {
		t.Fatalf("the user's default must win over global accounts: %v", err)
	}
	other := e.connect("u2", map[string]any{"type": "api_key", "apiKey": "other"})
	ae = wantCode(t, mustErr(e.run("acme_get_item", `{"id":"1"}`, func(c *Call) { c.ConnectionID = other.ID })), apierr.ConnectionNotFound, 400)
	if strings.Contains(ae.Message, "other") {
		t.Fatal("message leaks a credential")
	}
	wantCode(t, mustErr(e.run("acme_get_item", `{"id":"1"}`, func(c *Call) { c.ConnectionID = store.NewID() })), apierr.ConnectionNotFound, 400)

	if err := e.store.SetConnectionStatus(context.Background(), own.ID, own.Revision, store.StatusReauthRequired); err != nil {
		t.Fatal(err)
	}
	wantCode(t, mustErr(e.run("acme_get_item", `{"id":"1"}`)), apierr.ReauthRequired, 400)
	// The session preference picks an account by name or label.
	second := e.connect("u1", map[string]any{"type": "api_key", "apiKey": "second"})
	if _, err := e.run("acme_get_item", `{"id":"1"}`, func(c *Call) { c.Preferred = second.Name }); err != nil || e.fake.last().Header.Get("X-Api-Key") != "Key second" {
		t.Fatalf("preferred: %v", err)
	}
}

func TestExecute_OAuthRefreshRotatesAndStores(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.oauthAccount(t, "expired-access", -time.Minute)
	if _, err := e.run("acme_get_item", `{"id":"1"}`); err != nil {
		t.Fatal(err)
	}
	if got := e.fake.last().Header.Get("Authorization"); got != "Bearer access-1" || e.fake.refreshes.Load() != 1 {
		t.Fatalf("auth %q after %d refreshes", got, e.fake.refreshes.Load())
	}
	stored, _ := e.store.GetConnection(context.Background(), e.project.ID, c.ID)
	cred, err := e.accounts.Open(stored)
	if err != nil || cred.RefreshToken != "refresh-1" || cred.AccessToken != "access-1" || stored.Revision != c.Revision {
		t.Fatalf("stored after refresh: %v rev %d", err, stored.Revision)
	}
	// A valid token is not refreshed again.
	if _, err := e.run("acme_get_item", `{"id":"2"}`); err != nil || e.fake.refreshes.Load() != 1 {
		t.Fatalf("second call refreshed: %v %d", err, e.fake.refreshes.Load())
	}
}

func TestExecute_ParallelCallsOnExpiredTokenRefreshOnce(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.fake.refreshDelay = 100 * time.Millisecond
	e.oauthAccount(t, "expired", -time.Hour)
	// 50 calls at once under -race on a small machine can take longer than
	// the fixture's 2 s timeout (which the slow-provider test relies on).
	e.exec.guard = netguard.New(netguard.Options{AllowLoopback: true, Timeout: 30 * time.Second,
		TLSConfig: e.exec.guard.Client().Transport.(*http.Transport).TLSClientConfig})
	// Two executors over one database stand for two replicas.
	other := New(Options{Store: e.store, Accounts: e.accounts, Guard: e.exec.guard, Now: e.clock.Now})
	var wg sync.WaitGroup
	errs := make(chan error, 50)
	for i := range 50 {
		ex := e.exec
		if i%2 == 1 {
			ex = other
		}
		wg.Go(func() {
			_, err := ex.Execute(context.Background(), e.tenant(), Call{ToolID: "acme_get_item", Input: json.RawMessage(`{"id":"1"}`), UserID: "u1"})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := e.fake.refreshes.Load(); n != 1 {
		t.Fatalf("%d refreshes for 50 parallel calls on two replicas, want 1", n)
	}
}

func TestExecute_InvalidGrantMarksReauthRequired(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.oauthConfig()
	e.fake.revokedTokens.Store("refresh-revoked", true)
	raw, _ := json.Marshal(map[string]any{"type": "oauth2", "accessToken": "old", "refreshToken": "refresh-revoked",
		"expiresAt": e.clock.Now().Add(-time.Minute), "host": e.fake.host()})
	c, err := e.accounts.Create(context.Background(), e.tenant(), createReq("u1", raw, "acme-oauth"))
	if err != nil {
		t.Fatal(err)
	}
	wantCode(t, mustErr(e.run("acme_get_item", `{"id":"1"}`)), apierr.ReauthRequired, 400)
	got, _ := e.store.GetConnection(context.Background(), e.project.ID, c.ID)
	if got.Status != store.StatusReauthRequired {
		t.Fatalf("status %s", got.Status)
	}
	// Rotation brings it back.
	fresh, _ := json.Marshal(map[string]any{"type": "oauth2", "accessToken": "new", "refreshToken": "refresh-0",
		"expiresAt": e.clock.Now().Add(time.Hour), "host": e.fake.host()})
	if _, err := e.accounts.Rotate(context.Background(), e.tenant(), c.ID, fresh, got.Revision); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run("acme_get_item", `{"id":"1"}`); err != nil {
		t.Fatalf("after rotation: %v", err)
	}
}

func TestExecute_401ToRefreshedTokenMarksReauth(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.oauthAccount(t, "valid-looking", time.Hour)
	e.fake.srv.Config.Handler = revokeAll(e.fake)
	wantCode(t, mustErr(e.run("acme_get_item", `{"id":"1"}`)), apierr.ReauthRequired, 400)
	if e.fake.refreshes.Load() != 1 {
		t.Fatalf("refreshes %d", e.fake.refreshes.Load())
	}
	got, _ := e.store.GetConnection(context.Background(), e.project.ID, c.ID)
	if got.Status != store.StatusReauthRequired {
		t.Fatalf("status %s", got.Status)
	}
}

func TestExecute_CredentialThatCannotBeOpened_503(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.connect("u1", map[string]any{"type": "api_key", "apiKey": "k"})
	// Seal a credential for another row and move it here: the AAD refuses it.
	other, _ := e.accounts.Seal(store.NewID(), accountCred())
	if _, err := e.store.RotateCredential(context.Background(), e.project.ID, c.ID, c.Revision, other, nil); err != nil {
		t.Fatal(err)
	}
	wantCode(t, mustErr(e.run("acme_get_item", `{"id":"1"}`)), apierr.CredentialUnavailable, 503)
}

func TestUsage_LastUsedCoalescedIntoOneWrite(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.connect("u1", map[string]any{"type": "api_key", "apiKey": "k"})
	for range 5 {
		if _, err := e.run("acme_get_item", `{"id":"1"}`); err != nil {
			t.Fatal(err)
		}
	}
	got, _ := e.store.GetConnection(context.Background(), e.project.ID, c.ID)
	if got.LastUsedAt != nil {
		t.Fatal("lastUsedAt written on the call path")
	}
	e.exec.Close(context.Background())
	got, _ = e.store.GetConnection(context.Background(), e.project.ID, c.ID)
	if got.LastUsedAt == nil || !got.LastUsedAt.Equal(e.clock.Now()) {
		t.Fatalf("lastUsedAt after flush: %v", got.LastUsedAt)
	}
}

func TestExecute_RefreshWithoutOAuthClient_ConnectorUnavailable(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	// No explicit OAuth auth config: the account lands on the implicit one, which has no client.
	e.connect("u1", map[string]any{"type": "oauth2", "accessToken": "old", "refreshToken": "r",
		"expiresAt": e.clock.Now().Add(-time.Minute)})
	wantCode(t, mustErr(e.run("acme_get_item", `{"id":"1"}`)), apierr.ConnectorUnavailable, 409)
	if e.fake.refreshes.Load() != 0 {
		t.Fatal("a refresh was attempted without a client")
	}
}

// asMap decodes a result (a decoded value or raw JSON) as an object.
func asMap(v any) map[string]any {
	if raw, ok := v.(json.RawMessage); ok {
		var m map[string]any
		_ = json.Unmarshal(raw, &m)
		return m
	}
	m, _ := v.(map[string]any)
	return m
}

// TestExecute_RefreshLandingBeforeTheLeaseIsNotRepeated covers the window
// between reading an expired account and taking its refresh lease: when
// another replica stores new tokens (rotating the refresh token) in that
// window, the lease holder must use them, not refresh with the old refresh
// token, which a provider that rotates refresh tokens would refuse.
func TestExecute_RefreshLandingBeforeTheLeaseIsNotRepeated(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.oauthAccount(t, "expired", -time.Hour)
	e.exec.beforeLease = func() {
		e.exec.beforeLease = nil
		// The other replica's refresh lands now.
		fresh, _ := json.Marshal(map[string]any{"type": "oauth2", "accessToken": "from-other-replica", "refreshToken": "refresh-rotated",
			"expiresAt": e.clock.Now().Add(time.Hour), "host": e.fake.host()})
		if _, err := e.accounts.Rotate(context.Background(), e.tenant(), c.ID, fresh, c.Revision); err != nil {
			t.Error(err)
		}
	}
	if _, err := e.run("acme_get_item", `{"id":"1"}`); err != nil {
		t.Fatal(err)
	}
	if got := e.fake.last().Header.Get("Authorization"); got != "Bearer from-other-replica" || e.fake.refreshes.Load() != 0 {
		t.Fatalf("sent %q after %d refreshes; want the other replica's token and no refresh", got, e.fake.refreshes.Load())
	}
}

// oauthAccount configures the OAuth client and connects user u1 with an
// access token that expires after expiresIn (negative: already expired)
// and refresh token refresh-0.
func (e *env) oauthAccount(t *testing.T, accessToken string, expiresIn time.Duration) store.Connection {
	t.Helper()
	e.oauthConfig()
	raw, _ := json.Marshal(map[string]any{"type": "oauth2", "accessToken": accessToken, "refreshToken": "refresh-0",
		"expiresAt": e.clock.Now().Add(expiresIn), "host": e.fake.host()})
	c, err := e.accounts.Create(context.Background(), e.tenant(), createReq("u1", raw, "acme-oauth"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}
