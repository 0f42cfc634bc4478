package httpapi

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// authorize starts an OAuth sign-in through a link and returns the
// provider URL and the Cookie header of the browser that started it.
func (f *fixture) authorize(t *testing.T, token, body string) (string, string) {
	t.Helper()
	r := f.do(f.h, "POST", "/api/connect/"+token+"/authorize", "", body, "Content-Type", "application/json")
	if r.status != 200 {
		t.Fatalf("authorize: %d %s", r.status, r.body)
	}
	var cookies []string
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		cookies = append(cookies, c.Name+"="+c.Value)
	}
	if len(cookies) != 1 {
		t.Fatalf("authorize set %d cookies: %v", len(cookies), r.header["Set-Cookie"])
	}
	return dataOf(decodeMap(r.body))["url"].(string), cookies[0]
}

// oauthCookie returns the browser-binding cookie an authorize response sets.
func oauthCookie(t *testing.T, r response) *http.Cookie {
	t.Helper()
	cs := (&http.Response{Header: r.header}).Cookies()
	if len(cs) != 1 {
		t.Fatalf("%d cookies set: %v", len(cs), r.header["Set-Cookie"])
	}
	return cs[0]
}

// TestConnect_OAuthStateIsBoundToTheBrowser: the callback completes only in
// the browser that started the sign-in, which holds the cookie set by
// authorize; without it (another person's browser, sent the provider's
// consent URL) nothing is exchanged or stored and the page says why.
func TestConnect_OAuthStateIsBoundToTheBrowser(t *testing.T) {
	t.Parallel()
	f, fake := setupConnect(t)
	ctx := context.Background()
	token := f.link(t, `{"userId":"ann","connectors":["epsilon"]}`)
	cfg := f.offeredConfig(t, token, "epsilon", "oauth2")
	body := `{"authConfigId":"` + cfg + `"}`

	r := f.do(f.h, "POST", "/api/connect/"+token+"/authorize", "", body, "Content-Type", "application/json")
	c := oauthCookie(t, r)
	if r.status != 200 || !c.HttpOnly || c.Secure || c.SameSite != http.SameSiteLaxMode || c.Path != "/api/oauth/callback" ||
		c.MaxAge <= 0 || c.MaxAge > 15*60 || len(c.Value) < 40 {
		t.Fatalf("cookie: %d %+v", r.status, c)
	}
	state := mustQuery(t, dataOf(decodeMap(r.body))["url"].(string), "state")
	if strings.Contains(c.Value, state) || strings.Contains(c.Name, state) {
		t.Fatalf("the cookie repeats the state: %+v", c)
	}
	callback := fake.approve(t, dataOf(decodeMap(r.body))["url"].(string), "code-victim")

	// Another browser: no cookie, or someone else's.
	for _, cookie := range []string{"", c.Name + "=forged-" + c.Value[7:]} {
		var hdr []string
		if cookie != "" {
			hdr = []string{"Cookie", cookie}
		}
		res := f.do(f.h, "GET", callback, "", "", hdr...)
		if res.status != 400 || !strings.Contains(string(res.body), "started in another browser") {
			t.Fatalf("callback with cookie %q: %d %s", cookie, res.status, res.body)
		}
		if fake.exchanges != 0 {
			t.Fatalf("the code was exchanged without the browser's cookie")
		}
		// The refused callback spent the state: start again.
		url, cookie := f.authorize(t, token, body)
		callback, c.Name, c.Value = fake.approve(t, url, "code-again"), strings.Split(cookie, "=")[0], strings.SplitN(cookie, "=", 2)[1]
	}
	if conns, _ := f.store.ListConnections(ctx, f.project.ID, "ann"); len(conns) != 0 {
		t.Fatalf("%d accounts stored by other browsers", len(conns))
	}

	// The browser that started it completes it, and the cookie is cleared.
	res := f.do(f.h, "GET", callback, "", "", "Cookie", c.Name+"="+c.Value)
	if res.status != 200 || !strings.Contains(string(res.body), "Epsilon Notes is connected") {
		t.Fatalf("callback in the starting browser: %d %s", res.status, res.body)
	}
	if cleared := oauthCookie(t, res); cleared.Name != c.Name || cleared.MaxAge >= 0 || cleared.Path != "/api/oauth/callback" {
		t.Fatalf("cookie not cleared: %+v", cleared)
	}
	if conns, _ := f.store.ListConnections(ctx, f.project.ID, "ann"); len(conns) != 1 {
		t.Fatalf("%d accounts stored, want 1", len(conns))
	}
}

// TestConnect_OAuthCookieSecureOnHTTPS: behind https the cookie is Secure.
func TestConnect_OAuthCookieSecureOnHTTPS(t *testing.T) {
	t.Parallel()
	fake := newOAuthFake(t)
	f := setupBase(t, sqliteDB, connectCatalog(t, fake), fake.srv, "https://sb.test", "https://sb.test")
	id := store.NewID()
	sealed, _ := f.srv.accounts.SealClientSecret(id, "eps-secret")
	if _, err := f.store.CreateAuthConfig(context.Background(), store.AuthConfig{ID: id, ProjectID: f.project.ID, ConnectorID: "epsilon",
		Key: "epsilon_oauth", AuthMethodID: "oauth2", AuthType: "oauth2", ClientID: "eps-client", ClientSecret: sealed}); err != nil {
		t.Fatal(err)
	}
	token := f.link(t, `{"userId":"ann","connectors":["epsilon"]}`)
	r := f.do(f.h, "POST", "/api/connect/"+token+"/authorize", "", `{"authConfigId":"`+f.offeredConfig(t, token, "epsilon", "oauth2")+`"}`,
		"Content-Type", "application/json")
	if c := oauthCookie(t, r); r.status != 200 || !c.Secure || !c.HttpOnly || c.SameSite != http.SameSiteLaxMode {
		t.Fatalf("cookie on https: %d %+v", r.status, c)
	}
}
