package httpapi

import (
	"context"
	"html"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// The execution log screen lists the project's calls through the same
// query as GET /v1/logs: filters, cursor pages, a record's detail; another
// project's record is not found and a bad filter is shown on the page.
func TestDashboard_Logs(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.connectDelta(t, "alice")
	f.connectDelta(t, "bob")
	for _, u := range []string{"alice", "bob", "alice"} {
		if st, _, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"delta_create_task","userId":"`+u+`","input":{"title":"t"}}`); st != 200 {
			t.Fatalf("call: %d %s", st, raw)
		}
	}
	f.srv.execlog.Flush(context.Background())
	logs := "/dashboard/p/" + f.project.ID + "/logs"

	c := newDashClient(t, f.h)
	if r := c.do("GET", logs, nil); r.status != 303 || !strings.HasPrefix(r.header.Get("Location"), "/dashboard/signin") {
		t.Fatalf("signed out: %d", r.status)
	}
	dashOperator(t, f, "member@example.com", store.RoleMember)
	c.signIn("member@example.com", dashPassword)

	page := c.do("GET", logs, nil)
	body := string(page.body)
	if page.status != 200 || strings.Count(body, "delta_create_task") != 3 || !strings.Contains(body, "alice") || !strings.Contains(body, "bob") {
		t.Fatalf("log page: %d %s", page.status, body)
	}
	page = c.do("GET", logs+"?userId=bob&connectorId=&toolId=&outcome=ok&since=&until=", nil)
	if body := string(page.body); page.status != 200 || strings.Count(body, "delta_create_task") != 1 || strings.Contains(body, ">alice<") {
		t.Fatalf("filtered by bob: %d %s", page.status, body)
	}
	page = c.do("GET", logs+"?userId=carol", nil)
	if !strings.Contains(string(page.body), "No calls match these filters") {
		t.Fatalf("no match: %s", page.body)
	}
	page = c.do("GET", logs+"?since=yesterday", nil)
	if page.status != 422 || !strings.Contains(string(page.body), "since must be an RFC 3339 time") {
		t.Fatalf("bad since: %d %s", page.status, page.body)
	}
	page = c.do("GET", logs+"?since=2000-01-01T00:00&until=2000-01-02T00:00", nil)
	if page.status != 200 || !strings.Contains(string(page.body), "No calls match") || !strings.Contains(string(page.body), `value="2000-01-01T00:00"`) {
		t.Fatalf("datetime-local range: %d %s", page.status, page.body)
	}

	// Cursor pages: two records on the first page, a link to the rest.
	page = c.do("GET", logs+"?userId=alice&limit=1", nil)
	next := regexp.MustCompile(`href="(/dashboard/p/[^"]+/logs\?[^"]*cursor=[^"]+)"`).FindSubmatch(page.body)
	if strings.Count(string(page.body), "delta_create_task") != 1 || next == nil {
		t.Fatalf("first page: %s", page.body)
	}
	second := c.do("GET", html.UnescapeString(string(next[1])), nil)
	if second.status != 200 || strings.Count(string(second.body), "delta_create_task") != 1 || strings.Contains(string(second.body), ">bob<") {
		t.Fatalf("second page: %d %s", second.status, second.body)
	}

	// A record's detail, and another project's record.
	id := regexp.MustCompile(`/logs/([0-9a-z_-]+)"`).FindSubmatch(page.body)
	if id == nil {
		t.Fatalf("no detail link: %s", page.body)
	}
	detail := c.do("GET", logs+"/"+string(id[1]), nil)
	if detail.status != 200 || !strings.Contains(string(detail.body), string(id[1])) || !strings.Contains(string(detail.body), "alice") {
		t.Fatalf("detail: %d %s", detail.status, detail.body)
	}
	other, _ := f.store.CreateProject(context.Background(), "other")
	if r := c.do("GET", "/dashboard/p/"+other.ID+"/logs", nil); r.status != 404 {
		t.Fatalf("another project's log: %d", r.status)
	}
	if err := f.store.InsertLogRecords(context.Background(), []store.LogRecord{{ID: "rec_foreign", ProjectID: other.ID, UserID: "x",
		Outcome: "ok", CreatedAt: f.clock.Now()}}); err != nil {
		t.Fatal(err)
	}
	if r := c.do("GET", logs+"/rec_foreign", nil); r.status != 404 {
		t.Fatalf("another project's record: %d %s", r.status, r.body)
	}
}

// A browser posting a form under Referrer-Policy no-referrer sends
// "Origin: null"; it passes only with Sec-Fetch-Site same-origin.
func TestDashboard_NullOriginOnlyWhenSameOrigin(t *testing.T) {
	t.Parallel()
	f := setup(t)
	dashOperator(t, f, "owner@example.com", store.RoleOwner)
	c := newDashClient(t, f.h)
	c.signIn("owner@example.com", dashPassword)
	page := "/dashboard/p/" + f.project.ID + "/approvals"
	tok := c.csrf(page)
	form := url.Values{"csrf": {tok}, "decision": {"ask"}}
	if r := c.do("POST", "/dashboard/p/"+f.project.ID+"/policies/default", form, "Origin", "null"); r.status != 403 {
		t.Fatalf("null origin alone: %d", r.status)
	}
	if r := c.do("POST", "/dashboard/p/"+f.project.ID+"/policies/default", form, "Origin", "null", "Sec-Fetch-Site", "cross-site"); r.status != 403 {
		t.Fatalf("null origin, cross-site: %d", r.status)
	}
	if r := c.do("POST", "/dashboard/p/"+f.project.ID+"/policies/default", form, "Origin", "null", "Sec-Fetch-Site", "same-origin"); r.status != 303 {
		t.Fatalf("null origin, same-origin: %d %s", r.status, r.body)
	}
	if r := c.do("POST", "/dashboard/p/"+f.project.ID+"/policies/default", url.Values{"decision": {"ask"}}, "Origin", "null", "Sec-Fetch-Site", "same-origin"); r.status != 403 {
		t.Fatalf("null origin without the token: %d", r.status)
	}
}
