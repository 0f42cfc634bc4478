package httpapi

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

func TestDashboardEndpoints_CreateEditRenameDelete(t *testing.T) {
	f := setup(t)
	dashOperator(t, f, "m@example.com", store.RoleMember) // members manage endpoints
	other, _ := f.store.CreateProject(context.Background(), "other")
	_, _ = f.store.CreateEndpoint(context.Background(), store.Endpoint{ProjectID: other.ID, Slug: "theirs", Mode: "tools", Spec: []byte(`{}`)})
	c := newDashClient(t, f.h)
	c.signIn("m@example.com", dashPassword)
	base := "/dashboard/p/" + f.project.ID + "/endpoints"
	page := c.do("GET", base, nil)
	if page.status != 200 || !strings.Contains(string(page.body), "No endpoints yet") {
		t.Fatalf("empty state: %d %s", page.status, page.body)
	}
	tok := c.csrf(base)
	form := url.Values{"csrf": {tok}, "slug": {"Bad Slug"}, "mode": {"tools"}}
	if r := c.do("POST", base, form); r.status != 422 || !strings.Contains(string(r.body), "lowercase letters") {
		t.Fatalf("bad slug: %d %s", r.status, r.body)
	}
	form.Set("slug", "theirs")
	if r := c.do("POST", base, form); r.status != 422 || !strings.Contains(string(r.body), "is taken") {
		t.Fatalf("taken slug: %d %s", r.status, r.body)
	}
	form.Set("slug", "support")
	form.Set("connectors", "nope")
	if r := c.do("POST", base, form); r.status != 422 {
		t.Fatalf("unknown connector: %d %s", r.status, r.body)
	}
	form.Set("connectors", "")
	form.Set("requireUser", "1")
	form.Set("readOnly", "1")
	if r := c.do("POST", base, form); r.status != 303 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	e, err := f.store.EndpointBySlug(context.Background(), "support")
	if err != nil || e.ProjectID != f.project.ID || !e.RequireUser || !strings.Contains(string(e.Spec), `"readOnly":true`) {
		t.Fatalf("stored: %+v %v", e, err)
	}
	page = c.do("GET", base, nil)
	body := string(page.body)
	for _, want := range []string{"http://sb.test/v1/mcp/support/&lt;userId&gt;", "mcpServers", "Bearer &lt;API key&gt;", "claude mcp add"} {
		if !strings.Contains(body, want) {
			t.Errorf("the endpoints page lacks %q", want)
		}
	}
	if strings.Contains(body, f.key) {
		t.Fatal("the page shows an API key")
	}
	// Another project's endpoint cannot be seen or changed.
	if r := c.do("GET", base+"/theirs", nil); r.status != 404 {
		t.Fatalf("another project's endpoint: %d", r.status)
	}
	if r := c.do("POST", base+"/theirs/delete", url.Values{"csrf": {tok}}); r.status != 404 {
		t.Fatalf("delete another project's endpoint: %d", r.status)
	}
	// Edit: rename, switch to meta.
	edit := c.do("GET", base+"/support", nil)
	if edit.status != 200 || !strings.Contains(string(edit.body), `value="support"`) || !strings.Contains(string(edit.body), `name="readOnly" value="1" checked`) {
		t.Fatalf("edit page: %d %s", edit.status, edit.body)
	}
	form = url.Values{"csrf": {tok}, "slug": {"help-desk"}, "mode": {"meta"}}
	if r := c.do("POST", base+"/support", form); r.status != 303 {
		t.Fatalf("update: %d %s", r.status, r.body)
	}
	if _, err := f.store.EndpointBySlug(context.Background(), "support"); err == nil {
		t.Fatal("the old slug still exists")
	}
	e, _ = f.store.EndpointBySlug(context.Background(), "help-desk")
	if e.Mode != "meta" || e.RequireUser || strings.Contains(string(e.Spec), `"readOnly":true`) {
		t.Fatalf("after update: %+v %s", e, e.Spec)
	}
	if r := c.do("POST", base+"/help-desk/delete", url.Values{"csrf": {tok}}); r.status != 303 {
		t.Fatalf("delete: %d", r.status)
	}
	if list, _ := f.store.ListEndpoints(context.Background(), f.project.ID); len(list) != 0 {
		t.Fatalf("after delete: %+v", list)
	}
}
