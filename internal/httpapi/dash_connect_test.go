package httpapi

import (
	"bytes"
	"context"
	"image"
	"image/png"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// postMultipart posts a multipart form (fields, and a file under field
// "logo" when name is not "") with the client's cookies and origin.
func (c *dashClient) postMultipart(path string, fields map[string]string, name string, file []byte) response {
	c.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	if name != "" {
		fw, _ := mw.CreateFormFile("logo", name)
		_, _ = fw.Write(file)
	}
	mw.Close()
	req := httptest.NewRequest("POST", path, &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", c.origin)
	for n, v := range c.cookies {
		req.AddCookie(&http.Cookie{Name: n, Value: v})
	}
	rec := httptest.NewRecorder()
	c.h.ServeHTTP(rec, req)
	return response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// The Connect screen: a member creates a link (shown once, working on the
// hosted page) but cannot change the settings; an owner saves the name,
// accent, redirect URLs, self-management and a logo, with the rules of
// `admin project set` and `admin asset upload`.
func TestDashboard_Connect(t *testing.T) {
	t.Parallel()
	f := setup(t)
	page := "/dashboard/p/" + f.project.ID + "/connect"
	dashOperator(t, f, "member@example.com", store.RoleMember)
	dashOperator(t, f, "owner@example.com", store.RoleOwner)

	m := newDashClient(t, f.h)
	if r := m.do("GET", page, nil); r.status != 303 {
		t.Fatalf("signed out: %d", r.status)
	}
	m.signIn("member@example.com", dashPassword)
	tok := m.csrf(page)
	if r := m.do("POST", page+"/links", url.Values{"userId": {"ann"}}); r.status != 403 {
		t.Fatalf("link without token: %d", r.status)
	}
	if r := m.do("POST", page+"/links", url.Values{"csrf": {tok}, "userId": {"ann"}, "connectors": {"nope"}}); r.status != 422 ||
		!strings.Contains(string(r.body), "nope") || !strings.Contains(string(r.body), `value="ann"`) {
		t.Fatalf("unknown connector: %d %s", r.status, r.body)
	}
	r := m.do("POST", page+"/links", url.Values{"csrf": {tok}, "userId": {"ann"}, "connectors": {"delta"}, "expires": {"60"}})
	link := regexp.MustCompile(`http://web\.sb\.test(/connect/[A-Za-z0-9_-]+)`).FindSubmatch(r.body)
	if r.status != 200 || link == nil {
		t.Fatalf("create link: %d %s", r.status, r.body)
	}
	if got := f.do(f.h, "GET", "/api"+string(link[1]), "", ""); got.status != 200 || !strings.Contains(string(got.body), "delta") {
		t.Fatalf("the link does not open: %d %s", got.status, got.body)
	}
	if r := m.do("GET", page, nil); strings.Contains(string(r.body), string(link[1])) {
		t.Fatal("the link is shown a second time")
	}
	if r := m.postMultipart(page+"/settings", map[string]string{"csrf": tok, "name": "X"}, "", nil); r.status != 403 {
		t.Fatalf("member changes settings: %d %s", r.status, r.body)
	}

	o := newDashClient(t, f.h)
	o.signIn("owner@example.com", dashPassword)
	otok := o.csrf(page)
	good := map[string]string{"csrf": otok, "name": "Acme", "accent": "#0f766e", "redirectUrls": "https://app.example.com/done\n\n", "selfManage": "on"}
	bad := map[string]string{"csrf": otok, "accent": "teal"}
	if r := o.postMultipart(page+"/settings", bad, "", nil); r.status != 422 || !strings.Contains(string(r.body), "must be a colour") {
		t.Fatalf("bad accent: %d %s", r.status, r.body)
	}
	bad = map[string]string{"csrf": otok, "accent": "#0f766e", "redirectUrls": "ftp://x"}
	if r := o.postMultipart(page+"/settings", bad, "", nil); r.status != 422 || !strings.Contains(string(r.body), "not an absolute http(s) URL") {
		t.Fatalf("bad redirect: %d %s", r.status, r.body)
	}
	if r := o.postMultipart(page+"/settings", good, "logo.exe", []byte("MZ")); r.status != 422 || !strings.Contains(string(r.body), "uploads are images") {
		t.Fatalf("bad logo: %d %s", r.status, r.body)
	}
	if r := o.postMultipart(page+"/settings", good, "logo.png", []byte("not a png")); r.status != 422 || !strings.Contains(string(r.body), "not an image") {
		t.Fatalf("fake png: %d %s", r.status, r.body)
	}
	var img bytes.Buffer
	_ = png.Encode(&img, image.NewRGBA(image.Rect(0, 0, 4, 4)))
	delete(good, "csrf")
	if r := o.postMultipart(page+"/settings", good, "logo.png", img.Bytes()); r.status != 403 {
		t.Fatalf("settings without token: %d", r.status)
	}
	good["csrf"] = otok
	if r := o.postMultipart(page+"/settings", good, "logo.png", img.Bytes()); r.status != 303 {
		t.Fatalf("save: %d %s", r.status, r.body)
	}
	ctx := context.Background()
	cs, _ := f.store.GetConnectSettings(ctx, f.project.ID)
	urls, _ := f.store.RedirectURLs(ctx, f.project.ID)
	if cs.Name != "Acme" || cs.Accent != "#0f766e" || !cs.SelfManage || !strings.HasPrefix(cs.LogoKey, "projects/"+f.project.ID+"/") ||
		len(urls) != 1 || urls[0] != "https://app.example.com/done" {
		t.Fatalf("stored: %+v %v", cs, urls)
	}
	r = o.do("GET", page, nil)
	if !strings.Contains(string(r.body), `src="/assets/`+cs.LogoKey+`"`) || !strings.Contains(string(r.body), "Connect to Acme") {
		t.Fatalf("preview: %s", r.body)
	}
	if a := f.do(f.h, "GET", "/assets/"+cs.LogoKey, "", ""); a.status != 200 || a.header.Get("Content-Type") != "image/png" {
		t.Fatalf("the logo is not served: %d %v", a.status, a.header)
	}
	// Saving again without a file keeps the logo; removing it clears it.
	if r := o.postMultipart(page+"/settings", good, "", nil); r.status != 303 {
		t.Fatalf("save again: %d", r.status)
	}
	if cs2, _ := f.store.GetConnectSettings(ctx, f.project.ID); cs2.LogoKey != cs.LogoKey {
		t.Fatalf("the logo was dropped: %+v", cs2)
	}
	good["removeLogo"] = "on"
	o.postMultipart(page+"/settings", good, "", nil)
	if cs2, _ := f.store.GetConnectSettings(ctx, f.project.ID); cs2.LogoKey != "" {
		t.Fatalf("the logo was kept: %+v", cs2)
	}
}
