package httpapi

import (
	"context"
	"net/url"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

func TestDashboardCatalog_BrowseSearchAndSwitchTools(t *testing.T) {
	f := setup(t)
	dashOperator(t, f, "m@example.com", store.RoleMember)
	c := newDashClient(t, f.h)
	c.signIn("m@example.com", dashPassword)
	base := "/dashboard/p/" + f.project.ID + "/catalog"
	page := string(c.do("GET", base, nil).body)
	for _, want := range []string{"<h2>communication</h2>", "<h2>finance</h2>", "Alpha Chat", "Beta Books"} {
		if !strings.Contains(page, want) {
			t.Errorf("catalog page lacks %q", want)
		}
	}
	res := string(c.do("GET", base+"?q=invoice", nil).body)
	if !strings.Contains(res, "Beta Books") || strings.Contains(res, "Alpha Chat") {
		t.Fatalf("search for invoice: %s", res)
	}
	if r := c.do("GET", base+"?q=zzzqqq", nil); !strings.Contains(string(r.body), "No connector matches") {
		t.Fatalf("empty search: %s", r.body)
	}
	con := c.do("GET", base+"/beta", nil)
	body := string(con.body)
	if con.status != 200 || !strings.Contains(body, "beta_delete_invoice") || !strings.Contains(body, "effect: destructive") || !strings.Contains(body, "Input schema") {
		t.Fatalf("connector page: %d %s", con.status, body)
	}
	if strings.Contains(body, "Set up an OAuth client") {
		t.Fatal("an OAuth client is offered for a connector without OAuth")
	}
	if r := c.do("GET", base+"/alpha", nil); !strings.Contains(string(r.body), "authconfigs?connector=alpha") {
		t.Fatalf("no OAuth client link for alpha: %s", r.body)
	}
	if r := c.do("GET", base+"/nope", nil); r.status != 404 {
		t.Fatalf("unknown connector: %d", r.status)
	}
	tok := c.csrf(base + "/beta")
	if r := c.do("POST", base+"/beta/tools", url.Values{"csrf": {tok}, "tool": {"alpha_send_message"}, "enabled": {"0"}}); r.status != 404 {
		t.Fatalf("another connector's tool: %d", r.status)
	}
	if r := c.do("POST", base+"/beta/tools", url.Values{"csrf": {tok}, "tool": {"beta_delete_invoice"}, "enabled": {"0"}}); r.status != 303 {
		t.Fatalf("turn off: %d %s", r.status, r.body)
	}
	if r := f.do(f.h, "POST", "/v1/tools/execute", "Bearer "+f.key, `{"toolId":"beta_delete_invoice","userId":"u","input":{}}`); errorCode(t, r) != "TOOL_NOT_FOUND" { // a tool turned off is not in the project
		t.Fatalf("a tool turned off in the dashboard runs: %d %s", r.status, r.body)
	}
	if r := c.do("GET", base+"/beta", nil); !strings.Contains(string(r.body), "Turned off beta_delete_invoice") || !strings.Contains(string(r.body), "Turn on beta_delete_invoice") {
		t.Fatalf("after turning off: %s", r.body)
	}
	if r := c.do("POST", base+"/beta/tools", url.Values{"csrf": {tok}, "all": {"1"}, "enabled": {"1"}}); r.status != 303 {
		t.Fatalf("turn all on: %d", r.status)
	}
	tn, _ := f.srv.catalogs.Load(context.Background(), f.project.ID)
	if off, _ := f.store.DisabledTools(context.Background(), f.project.ID, tn.ToolsVersion); len(off) != 0 {
		t.Fatalf("tools still off: %v", off)
	}
}
