package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/operator"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// dashClient is a browser for the dashboard tests: it keeps cookies and
// sends the web app's Origin on posts.
type dashClient struct {
	t       *testing.T
	h       http.Handler
	cookies map[string]string
	origin  string
}

func newDashClient(t *testing.T, h http.Handler) *dashClient {
	return &dashClient{t: t, h: h, cookies: map[string]string{}, origin: "http://web.sb.test"}
}

func (c *dashClient) do(method, path string, form url.Values, hdr ...string) response {
	c.t.Helper()
	var body string
	if form != nil {
		body = form.Encode()
	}
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	if method != "GET" && c.origin != "" {
		req.Header.Set("Origin", c.origin)
	}
	for name, v := range c.cookies {
		req.AddCookie(&http.Cookie{Name: name, Value: v})
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	c.h.ServeHTTP(rec, req)
	for _, ck := range rec.Result().Cookies() {
		if ck.MaxAge < 0 {
			delete(c.cookies, ck.Name)
		} else {
			c.cookies[ck.Name] = ck.Value
		}
	}
	return response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

var dashCSRFField = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

// csrf returns the CSRF token of the forms on a page.
func (c *dashClient) csrf(path string) string {
	c.t.Helper()
	r := c.do("GET", path, nil)
	m := dashCSRFField.FindSubmatch(r.body)
	if r.status != 200 || m == nil {
		c.t.Fatalf("GET %s: %d, no csrf field: %s", path, r.status, r.body)
	}
	return string(m[1])
}

// signIn signs in with the sign-in form.
func (c *dashClient) signIn(email, password string) response {
	c.t.Helper()
	tok := c.csrf("/dashboard/signin")
	return c.do("POST", "/dashboard/signin", url.Values{"csrf": {tok}, "email": {email}, "password": {password}, "next": {"/dashboard/projects"}})
}

const dashPassword = "correct horse battery"

// dashOperator creates an operator with role in the fixture's project
// (role "" for none).
func dashOperator(t *testing.T, f *fixture, email, role string) store.Operator {
	t.Helper()
	ops := operator.NewService(operator.Options{Store: f.store})
	o, err := ops.Create(context.Background(), email, dashPassword)
	if err != nil {
		t.Fatal(err)
	}
	if role != "" {
		if err := f.store.SetOperatorRole(context.Background(), o.ID, f.project.ID, role); err != nil {
			t.Fatal(err)
		}
	}
	return o
}

func TestDashboard_SignInCreateKeySignOut(t *testing.T) {
	f := setup(t)
	dashOperator(t, f, "owner@example.com", store.RoleOwner)
	c := newDashClient(t, f.h)

	if r := c.do("GET", "/dashboard/p/"+f.project.ID+"/keys", nil); r.status != 303 || !strings.HasPrefix(r.header.Get("Location"), "/dashboard/signin") {
		t.Fatalf("signed out: %d %q", r.status, r.header.Get("Location"))
	}
	if r := c.signIn("owner@example.com", "wrong password!!"); r.status != 401 || !strings.Contains(string(r.body), "not correct") {
		t.Fatalf("wrong password: %d %s", r.status, r.body)
	}
	r := c.signIn("Owner@Example.com", dashPassword)
	if r.status != 303 || r.header.Get("Location") != "/dashboard/projects" {
		t.Fatalf("sign in: %d %q %s", r.status, r.header.Get("Location"), r.body)
	}
	setCookie := strings.Join(r.header.Values("Set-Cookie"), "\n")
	if !strings.Contains(setCookie, "sb_dash=") || !strings.Contains(setCookie, "HttpOnly") || !strings.Contains(setCookie, "SameSite=Lax") {
		t.Fatalf("session cookie: %s", setCookie)
	}
	keys := "/dashboard/p/" + f.project.ID + "/keys"
	page := c.do("GET", keys, nil)
	if page.status != 200 || !strings.Contains(page.header.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
		t.Fatalf("keys page: %d %v", page.status, page.header)
	}
	tok := dashCSRFField.FindSubmatch(page.body)[1]
	r = c.do("POST", keys, url.Values{"csrf": {string(tok)}, "name": {"ci"}, "expires": {"720h"}})
	key := regexp.MustCompile(`sb_[0-9a-f]{64}`).Find(r.body)
	if r.status != 200 || key == nil {
		t.Fatalf("create key: %d %s", r.status, r.body)
	}
	if got := f.do(f.h, "GET", "/v1/connectors", "Bearer "+string(key), ""); got.status != 200 {
		t.Fatalf("the new key does not work: %d %s", got.status, got.body)
	}
	if again := c.do("GET", keys, nil); strings.Contains(string(again.body), string(key)) {
		t.Fatal("the key is shown a second time")
	}

	r = c.do("POST", "/dashboard/signout", url.Values{"csrf": {string(tok)}})
	if r.status != 303 {
		t.Fatalf("sign out: %d %s", r.status, r.body)
	}
	if r := c.do("GET", "/api/dashboard/me", nil); r.status != 401 {
		t.Fatalf("after sign-out: %d %s", r.status, r.body)
	}
}

func TestDashboardAPI_RefusesAPIKeysAndChecksCSRF(t *testing.T) {
	f := setup(t)
	dashOperator(t, f, "owner@example.com", store.RoleOwner)
	if r := f.do(f.h, "GET", "/api/dashboard/me", "Bearer "+f.key, ""); r.status != 401 || errorCode(t, r) != "UNAUTHORIZED" ||
		!strings.Contains(string(r.body), "API keys are not accepted") {
		t.Fatalf("API key: %d %s", r.status, r.body)
	}
	c := newDashClient(t, f.h)
	c.signIn("owner@example.com", dashPassword)
	me := c.do("GET", "/api/dashboard/me", nil)
	if me.status != 200 {
		t.Fatalf("me: %d %s", me.status, me.body)
	}
	path := "/api/dashboard/projects/" + f.project.ID + "/keys"
	if r := c.do("POST", path, nil, "Content-Type", "application/json"); r.status != 403 {
		t.Fatalf("no CSRF token: %d %s", r.status, r.body)
	}
	if r := c.do("POST", path, nil, "X-CSRF-Token", strings.Repeat("0", 64)); r.status != 403 {
		t.Fatalf("wrong CSRF token: %d %s", r.status, r.body)
	}
	tok := c.csrf("/dashboard/projects")
	if r := c.do("POST", path, nil, "X-CSRF-Token", tok, "Origin", "https://evil.example"); r.status != 403 {
		t.Fatalf("other origin: %d %s", r.status, r.body)
	}
	if r := c.do("POST", path, nil, "X-CSRF-Token", tok, "Sec-Fetch-Site", "cross-site"); r.status != 403 {
		t.Fatalf("cross-site: %d %s", r.status, r.body)
	}
	r := c.do("POST", path, nil, "X-CSRF-Token", tok)
	var created struct{ Key string }
	if r.status != 201 || json.Unmarshal(r.body, &created) != nil || !strings.HasPrefix(created.Key, "sb_") {
		t.Fatalf("with the token: %d %s", r.status, r.body)
	}
}
