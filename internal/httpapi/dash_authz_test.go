package httpapi

import (
	"context"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
)

// Members may look but not manage keys; a project the operator is not in
// is 404 on pages and on the API.
func TestDashboard_MemberOwnerAndOtherProjects(t *testing.T) {
	f := setup(t)
	dashOperator(t, f, "member@example.com", store.RoleMember)
	other, _ := f.store.CreateProject(context.Background(), "not mine")
	c := newDashClient(t, f.h)
	if r := c.signIn("member@example.com", dashPassword); r.status != 303 {
		t.Fatalf("sign in: %d", r.status)
	}
	keys := "/dashboard/p/" + f.project.ID + "/keys"
	page := c.do("GET", keys, nil)
	if page.status != 200 || strings.Contains(string(page.body), `action="`+keys+`"`) {
		t.Fatalf("a member sees the create form: %d", page.status)
	}
	tok := c.csrf(keys)
	if r := c.do("POST", keys, url.Values{"csrf": {tok}, "name": {"x"}}); r.status != 403 || !strings.Contains(string(r.body), "only an owner") {
		t.Fatalf("member creates a key: %d %s", r.status, r.body)
	}
	if r := c.do("POST", keys+"/"+f.keyID+"/revoke", url.Values{"csrf": {tok}}); r.status != 403 {
		t.Fatalf("member revokes a key: %d %s", r.status, r.body)
	}
	if r := c.do("POST", "/api/dashboard/projects/"+f.project.ID+"/keys", nil, "X-CSRF-Token", tok); r.status != 403 || errorCode(t, r) != "FORBIDDEN" {
		t.Fatalf("member creates a key by API: %d %s", r.status, r.body)
	}
	if r := c.do("POST", "/dashboard/projects/"+f.project.ID+"/rename", url.Values{"csrf": {tok}, "name": {"x"}}); r.status != 403 {
		t.Fatalf("member renames: %d %s", r.status, r.body)
	}
	if r := c.do("GET", "/dashboard/p/"+other.ID+"/keys", nil); r.status != 404 {
		t.Fatalf("another project's page: %d", r.status)
	}
	if r := c.do("GET", "/api/dashboard/projects/"+other.ID+"/keys", nil); r.status != 404 || errorCode(t, r) != "NOT_FOUND" {
		t.Fatalf("another project by API: %d %s", r.status, r.body)
	}
	if r := c.do("GET", "/dashboard/switch?project="+other.ID, nil); r.status != 404 {
		t.Fatalf("switch to another project: %d", r.status)
	}
	// The key is untouched.
	if r := f.do(f.h, "GET", "/v1/connectors", "Bearer "+f.key, ""); r.status != 200 {
		t.Fatalf("the project's key stopped working: %d", r.status)
	}

	// An owner of the same project revokes; a key of another project is 404.
	dashOperator(t, f, "owner@example.com", store.RoleOwner)
	o := newDashClient(t, f.h)
	o.signIn("owner@example.com", dashPassword)
	otok := o.csrf(keys)
	_, nk := storetestKey(t, other.ID)
	foreign, _ := f.store.CreateAPIKey(context.Background(), nk)
	if r := o.do("POST", keys+"/"+foreign.ID+"/revoke", url.Values{"csrf": {otok}}); r.status != 404 {
		t.Fatalf("revoking another project's key: %d %s", r.status, r.body)
	}
	if r := o.do("POST", keys+"/"+f.keyID+"/revoke", url.Values{"csrf": {otok}}); r.status != 303 {
		t.Fatalf("owner revokes: %d %s", r.status, r.body)
	}
	if r := f.do(f.h, "GET", "/v1/connectors", "Bearer "+f.key, ""); r.status != 401 {
		t.Fatalf("the revoked key works: %d", r.status)
	}
	if r := o.do("GET", keys, nil); !strings.Contains(string(r.body), "revoked: it stops working") {
		t.Fatalf("no flash or state after revoke: %s", r.body)
	}
}

func storetestKey(t *testing.T, projectID string) (string, store.NewAPIKey) {
	t.Helper()
	key, hash, hint, err := apikey.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return key, store.NewAPIKey{ProjectID: projectID, Name: "other", Hash: hash, Hint: hint}
}

// Two servers on one database: a session made on one works on the other,
// and signing out (or expiry) on one ends it on both.
func TestDashboard_SessionsAcrossReplicas(t *testing.T) {
	for _, db := range bothStores {
		t.Run(db.name, func(t *testing.T) {
			if db.name == "postgres" {
				storetest.PostgresURL(t)
			}
			a, b := dashReplicas(t, db.open(t))
			dashOperator(t, a, "ops@example.com", store.RoleOwner)
			ca := newDashClient(t, a.h)
			if r := ca.signIn("ops@example.com", dashPassword); r.status != 303 {
				t.Fatalf("sign in on a: %d %s", r.status, r.body)
			}
			cb := newDashClient(t, b.h)
			cb.cookies = ca.cookies
			if r := cb.do("GET", "/api/dashboard/me", nil); r.status != 200 || !strings.Contains(string(r.body), "ops@example.com") {
				t.Fatalf("a's session on b: %d %s", r.status, r.body)
			}
			tok := ca.csrf("/dashboard/projects")
			session := ca.cookies["sb_dash"]
			if r := cb.do("POST", "/dashboard/signout", url.Values{"csrf": {tok}}); r.status != 303 {
				t.Fatalf("sign out on b: %d %s", r.status, r.body)
			}
			if _, ok := cb.cookies["sb_dash"]; ok || session == "" {
				t.Fatal("sign-out left the cookie")
			}
			// A copy of the signed-out cookie does not work on a either.
			old := newDashClient(t, a.h)
			old.cookies["sb_dash"] = session
			if r := old.do("GET", "/api/dashboard/me", nil); r.status != 401 {
				t.Fatalf("a still takes the signed-out session: %d", r.status)
			}

			// Expiry: both servers run on clocks that agree on the stored
			// expiry; a session past it is refused by either.
			cx := newDashClient(t, a.h)
			cx.signIn("ops@example.com", dashPassword)
			a.clock.Advance(13 * time.Hour) // b shares a's clock
			cy := newDashClient(t, b.h)
			cy.cookies = cx.cookies
			if r := cy.do("GET", "/api/dashboard/me", nil); r.status != 401 {
				t.Fatalf("an expired session works on b: %d", r.status)
			}
			if r := cy.do("GET", "/dashboard/projects", nil); r.status != http.StatusSeeOther {
				t.Fatalf("an expired session's page: %d", r.status)
			}
		})
	}
}

// dashReplicas builds two servers on one database (one key ring, one
// clock), as two replicas; a has the fixture's project.
func dashReplicas(t *testing.T, dbURL string) (a, b *fixture) {
	t.Helper()
	clock := storetest.NewClock()
	ring := "k1:" + base64.StdEncoding.EncodeToString(make([]byte, secret.KeySize))
	build := func() *fixture {
		parts := BuildApp(t, FixtureApp{DatabaseURL: dbURL, BaseURL: "http://sb.test", WebURL: "http://web.sb.test", SecretKeys: ring,
			CatalogFS: testCatalogFS, Now: clock.Now, Logs: &syncBuffer{}, LookupFunc: fakeLookup})
		return &fixture{t: t, srv: parts.Server, h: parts.Server.Handler(), store: parts.Store, clock: clock}
	}
	a, b = build(), build()
	p, err := a.store.CreateProject(context.Background(), "test")
	if err != nil {
		t.Fatal(err)
	}
	a.project, b.project = p, p
	return a, b
}

// The sign-in forms need their double-submit token and the web origin; a
// sign-in link sets the password once and signs in.
func TestDashboard_SigninFormsAndLink(t *testing.T) {
	f := setup(t)
	o := dashOperator(t, f, "ops@example.com", store.RoleOwner)
	c := newDashClient(t, f.h)
	c.csrf("/dashboard/signin")
	form := url.Values{"email": {"ops@example.com"}, "password": {dashPassword}}
	if r := c.do("POST", "/dashboard/signin", form); r.status != 403 {
		t.Fatalf("sign-in without the form token: %d", r.status)
	}
	form.Set("csrf", c.cookies["sb_dash_pre"])
	c.origin = "https://evil.example"
	if r := c.do("POST", "/dashboard/signin", form); r.status != 403 {
		t.Fatalf("sign-in from another origin: %d", r.status)
	}
	c.origin = "http://web.sb.test"
	if r := c.do("POST", "/dashboard/signin", form); r.status != 303 || r.header.Get("Location") != "/dashboard" {
		t.Fatalf("sign-in: %d %q", r.status, r.header.Get("Location"))
	}
	// next stays inside the dashboard.
	form.Set("next", "//evil.example/x")
	if r := c.do("POST", "/dashboard/signin", form); r.status != 303 || r.header.Get("Location") != "/dashboard" {
		t.Fatalf("next outside the dashboard: %q", r.header.Get("Location"))
	}

	token, err := f.srv.operators.CreateLink(context.Background(), o.ID)
	if err != nil {
		t.Fatal(err)
	}
	l := newDashClient(t, f.h)
	path := "/dashboard/signin/link/" + token
	page := l.do("GET", path, nil)
	if page.status != 200 || !strings.Contains(string(page.body), "ops@example.com") || page.header.Get("Referrer-Policy") != "same-origin" {
		t.Fatalf("link page: %d %v", page.status, page.header)
	}
	tok := l.csrf(path)
	if r := l.do("POST", path, url.Values{"csrf": {tok}, "password": {"short"}}); r.status != 400 || !strings.Contains(string(r.body), "at least 12") {
		t.Fatalf("short password: %d %s", r.status, r.body)
	}
	if r := l.do("POST", path, url.Values{"csrf": {tok}, "password": {"a brand new password"}}); r.status != 303 {
		t.Fatalf("use link: %d %s", r.status, r.body)
	}
	if r := l.do("GET", "/api/dashboard/me", nil); r.status != 200 {
		t.Fatalf("the link did not sign in: %d", r.status)
	}
	if r := l.do("GET", path, nil); r.status != 410 {
		t.Fatalf("used link page: %d", r.status)
	}
	if r := newDashClient(t, f.h).signIn("ops@example.com", "a brand new password"); r.status != 303 {
		t.Fatalf("sign in with the new password: %d", r.status)
	}
	// The old password no longer works and the old session ended.
	if r := c.do("GET", "/api/dashboard/me", nil); r.status != 401 {
		t.Fatalf("a session from before the password change: %d", r.status)
	}
}

func TestDashboard_StaticFilesAndHeaders(t *testing.T) {
	f := setup(t)
	for _, p := range []string{"/dashboard/static/dashboard.css", "/dashboard/static/dashboard.js"} {
		if r := f.do(f.h, "GET", p, "", ""); r.status != 200 || len(r.body) == 0 {
			t.Fatalf("%s: %d", p, r.status)
		}
	}
	if r := f.do(f.h, "GET", "/dashboard/static/layout.html", "", ""); r.status != 404 {
		t.Fatalf("a template as a static file: %d", r.status)
	}
	r := f.do(f.h, "GET", "/dashboard/signin", "", "")
	csp := r.header.Get("Content-Security-Policy")
	if r.status != 200 || !strings.Contains(csp, "default-src 'self'") || !strings.Contains(csp, "frame-ancestors 'none'") ||
		strings.Contains(csp, "unsafe-inline") || r.header.Get("X-Frame-Options") != "DENY" {
		t.Fatalf("sign-in page headers: %d %v", r.status, r.header)
	}
	if strings.Contains(string(r.body), "<script>") || strings.Contains(string(r.body), "style=") {
		t.Fatal("inline script or style on the sign-in page")
	}
	if r := f.do(f.h, "GET", "/dashboard", "", ""); r.status != 303 || r.header.Get("Location") != "/dashboard/signin" {
		t.Fatalf("/dashboard signed out: %d %q", r.status, r.header.Get("Location"))
	}
}

func TestDashboard_SigninPageWhenSignedInGoesOn(t *testing.T) {
	f := setup(t)
	dashOperator(t, f, "ops@example.com", store.RoleOwner)
	c := newDashClient(t, f.h)
	c.signIn("ops@example.com", dashPassword)
	if r := c.do("GET", "/dashboard/signin?next=/dashboard/projects", nil); r.status != 303 || r.header.Get("Location") != "/dashboard/projects" {
		t.Fatalf("sign-in page when signed in: %d %q", r.status, r.header.Get("Location"))
	}
}
