package httpapi

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// The end users screen finds a user's accounts, renames one, makes another
// the default and deletes one, through account.Service as the API; a
// global account's allowance is set and checked against the catalog.
func TestDashboard_Users(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.connectDelta(t, "alice")
	f.connectDelta(t, "alice")
	f.connectDelta(t, "bob")
	cred := fmt.Sprintf(`{"type":"api_key","apiKey":"delta-secret-key","host":%q}`, f.providerHost)
	if st, _, raw := f.json("POST", "/v1/connections", `{"connectorId":"delta","global":true,"credential":`+cred+`}`); st != 200 {
		t.Fatalf("global: %d %s", st, raw)
	}
	ctx := context.Background()
	conns, _ := f.store.ListConnections(ctx, f.project.ID, "alice")
	var alice []store.Connection
	var global store.Connection
	for _, c := range conns {
		if c.Global {
			global = c
		} else {
			alice = append(alice, c)
		}
	}
	if len(alice) != 2 {
		t.Fatalf("alice: %+v", alice)
	}
	page := "/dashboard/p/" + f.project.ID + "/users"

	c := newDashClient(t, f.h)
	if r := c.do("GET", page, nil); r.status != 303 {
		t.Fatalf("signed out: %d", r.status)
	}
	dashOperator(t, f, "member@example.com", store.RoleMember)
	c.signIn("member@example.com", dashPassword)
	r := c.do("GET", page, nil)
	if r.status != 200 || !strings.Contains(string(r.body), "Search for a user") || !strings.Contains(string(r.body), global.ID) {
		t.Fatalf("no search: %d %s", r.status, r.body)
	}
	r = c.do("GET", page+"?userId=alice", nil)
	body := string(r.body)
	if r.status != 200 || !strings.Contains(body, alice[0].ID) || !strings.Contains(body, alice[1].ID) || strings.Contains(body, "bob") {
		t.Fatalf("alice's accounts: %d %s", r.status, body)
	}
	if r := c.do("GET", page+"?userId=alice&status=reauth_required", nil); strings.Contains(string(r.body), alice[0].ID) ||
		!strings.Contains(string(r.body), "No reauth_required accounts") {
		t.Fatalf("status filter: %s", r.body)
	}
	if r := c.do("GET", page+"?userId=nobody", nil); !strings.Contains(string(r.body), "No accounts for this user") {
		t.Fatalf("unknown user: %s", r.body)
	}
	tok := c.csrf(page)
	acct := page + "/accounts/" + alice[1].ID
	if r := c.do("POST", acct+"/rename", url.Values{"name": {"work"}}); r.status != 403 {
		t.Fatalf("rename without token: %d", r.status)
	}
	if r := c.do("POST", acct+"/rename", url.Values{"csrf": {tok}, "name": {"work"}}); r.status != 303 || r.header.Get("Location") != page+"?userId=alice" {
		t.Fatalf("rename: %d %s", r.status, r.header.Get("Location"))
	}
	if r := c.do("POST", acct+"/default", url.Values{"csrf": {tok}}); r.status != 303 {
		t.Fatalf("default: %d %s", r.status, r.body)
	}
	_, m, _ := f.json("GET", "/v1/connections?userId=alice", "")
	found := false
	for _, it := range m["data"].([]any) {
		a := it.(map[string]any)
		if a["id"] == alice[1].ID {
			found = a["name"] == "work" && a["isDefault"] == true
		}
	}
	if !found {
		t.Fatalf("the API does not see the rename and default: %v", m)
	}
	if r := c.do("POST", page+"/accounts/"+alice[0].ID+"/delete", url.Values{"csrf": {tok}}); r.status != 303 {
		t.Fatalf("delete: %d", r.status)
	}
	if conns, _ := f.store.ListConnections(ctx, f.project.ID, "alice"); len(conns) != 2 { // work + the global one
		t.Fatalf("after delete: %+v", conns)
	}

	// The global account's allowance.
	allow := page + "/accounts/" + global.ID + "/allow"
	if r := c.do("POST", allow, url.Values{"csrf": {tok}, "tools": {"nope_*"}}); r.status != 400 || !strings.Contains(string(r.body), "no tool matches") {
		t.Fatalf("unknown tools: %d %s", r.status, r.body)
	}
	if r := c.do("POST", allow, url.Values{"csrf": {tok}, "tools": {"delta_*"}, "proxy": {"on"}}); r.status != 303 {
		t.Fatalf("allow: %d %s", r.status, r.body)
	}
	if p, _ := f.store.GetGlobalPermission(ctx, global.ID); len(p.Tools) != 1 || p.Tools[0] != "delta_*" || !p.Proxy {
		t.Fatalf("stored: %+v", p)
	}
	if r := c.do("POST", page+"/accounts/"+alice[1].ID+"/allow", url.Values{"csrf": {tok}, "tools": {"delta_*"}}); r.status != 400 ||
		!strings.Contains(string(r.body), "only global accounts") {
		t.Fatalf("a user's account: %d %s", r.status, r.body)
	}
	if r := c.do("POST", allow, url.Values{"csrf": {tok}}); r.status != 303 {
		t.Fatalf("revoke: %d", r.status)
	}
	if p, _ := f.store.GetGlobalPermission(ctx, global.ID); len(p.Tools) != 0 || p.Proxy {
		t.Fatalf("after revoke: %+v", p)
	}

	// Another project's account is not found.
	other, _ := f.store.CreateProject(ctx, "other")
	ac, _ := f.store.EnsureImplicitAuthConfig(ctx, other.ID, "delta", "delta_api_key", "api_key", "api_key")
	foreign, err := f.store.CreateConnection(ctx, store.NewConnection{ID: store.NewID(), ProjectID: other.ID, ConnectorID: "delta",
		AuthConfigID: ac.ID, UserID: "alice", Credential: []byte("x")})
	if err != nil {
		t.Fatal(err)
	}
	if r := c.do("POST", page+"/accounts/"+foreign.ID+"/delete", url.Values{"csrf": {tok}}); r.status != 404 {
		t.Fatalf("another project's account: %d", r.status)
	}
	if regexp.MustCompile(`delta-secret-key`).Match(c.do("GET", page+"?userId=alice", nil).body) {
		t.Fatal("a credential is shown")
	}
}
