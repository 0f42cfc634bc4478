package httpapi

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

func TestDashboardAuthConfigs_CreateShowDelete(t *testing.T) {
	f := setup(t)
	dashOperator(t, f, "m@example.com", store.RoleMember)
	c := newDashClient(t, f.h)
	c.signIn("m@example.com", dashPassword)
	base := "/dashboard/p/" + f.project.ID + "/authconfigs"
	page := c.do("GET", base, nil)
	body := string(page.body)
	if page.status != 200 || !strings.Contains(body, `value="http://sb.test/api/oauth/callback"`) || !strings.Contains(body, "No OAuth clients yet") ||
		!strings.Contains(body, `<option value="alpha"`) || strings.Contains(body, `<option value="beta"`) {
		t.Fatalf("page: %d %s", page.status, body)
	}
	tok := c.csrf(base)
	form := url.Values{"csrf": {tok}, "connector": {"alpha"}, "type": {"oauth2"}, "clientId": {"alpha-client"}}
	if r := c.do("POST", base, form); r.status != 422 || !strings.Contains(string(r.body), "needs a client id and a client secret") ||
		!strings.Contains(string(r.body), `value="alpha-client"`) {
		t.Fatalf("no secret: %d %s", r.status, r.body)
	}
	form.Set("connector", "beta")
	form.Set("clientSecret", "s3cret-value")
	if r := c.do("POST", base, form); r.status != 422 || !strings.Contains(string(r.body), "no auth method of type oauth2") {
		t.Fatalf("connector without OAuth: %d %s", r.status, r.body)
	}
	form.Set("connector", "alpha")
	form.Set("scopes", "chat:read, chat:write")
	if r := c.do("POST", base, form); r.status != 303 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	list, _ := f.store.ListAuthConfigs(context.Background(), f.project.ID, "alpha")
	if len(list) != 1 || list[0].ClientID != "alpha-client" || len(list[0].ClientSecret) == 0 || string(list[0].ClientSecret) == "s3cret-value" ||
		len(list[0].Scopes) != 2 {
		t.Fatalf("stored: %+v", list)
	}
	page = c.do("GET", base, nil)
	if !strings.Contains(string(page.body), "alpha-client") || strings.Contains(string(page.body), "s3cret-value") || !strings.Contains(string(page.body), "saved for alpha") {
		t.Fatalf("after create: %s", page.body)
	}
	if r := c.do("POST", base, form); r.status != 422 || !strings.Contains(string(r.body), "already has an auth config") {
		t.Fatalf("same key again: %d %s", r.status, r.body)
	}
	other, _ := f.store.CreateProject(context.Background(), "other")
	if r := c.do("POST", "/dashboard/p/"+other.ID+"/authconfigs/"+list[0].ID+"/delete", url.Values{"csrf": {tok}}); r.status != 404 {
		t.Fatalf("through another project: %d", r.status)
	}
	if r := c.do("POST", base+"/"+list[0].ID+"/delete", url.Values{"csrf": {tok}}); r.status != 303 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	if list, _ := f.store.ListAuthConfigs(context.Background(), f.project.ID, ""); len(list) != 0 {
		t.Fatalf("after delete: %+v", list)
	}
}
