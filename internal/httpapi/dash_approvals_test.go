package httpapi

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// The approvals screen shows a held call with its input; approving it
// there lets the same call run once (policy.Service.Decide, as the API);
// a second decision is refused; rules are added, refused when malformed,
// and deleted; every form needs the CSRF token.
func TestDashboard_Approvals(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.connectDelta(t, "u1")
	f.rule(t, `{"decision":"ask","match":{"connector":"delta","effect":"write"}}`)
	body := `{"toolId":"delta_create_task","userId":"u1","input":{"title":"ship it"}}`
	st, m, raw := f.json("POST", "/v1/tools/execute", body)
	if st != 202 {
		t.Fatalf("held call: %d %s", st, raw)
	}
	aid := dataOf(m)["id"].(string)
	page := "/dashboard/p/" + f.project.ID + "/approvals"

	c := newDashClient(t, f.h)
	if r := c.do("GET", page, nil); r.status != 303 {
		t.Fatalf("signed out: %d", r.status)
	}
	if r := c.do("POST", page+"/"+aid+"/approve", url.Values{}); r.status != 401 {
		t.Fatalf("signed out approve: %d", r.status)
	}
	dashOperator(t, f, "member@example.com", store.RoleMember)
	c.signIn("member@example.com", dashPassword)
	r := c.do("GET", page, nil)
	if r.status != 200 || !strings.Contains(string(r.body), "delta_create_task") || !strings.Contains(string(r.body), "ship it") ||
		!strings.Contains(string(r.body), page+"/"+aid+"/approve") {
		t.Fatalf("inbox: %d %s", r.status, r.body)
	}
	tok := c.csrf(page)
	if r := c.do("POST", page+"/"+aid+"/approve", url.Values{}); r.status != 403 {
		t.Fatalf("no CSRF token: %d", r.status)
	}
	if r := c.do("POST", page+"/"+aid+"/approve", url.Values{"csrf": {strings.Repeat("0", 64)}}); r.status != 403 {
		t.Fatalf("wrong CSRF token: %d", r.status)
	}
	if r := c.do("POST", page+"/"+aid+"/approve", url.Values{"csrf": {tok}}); r.status != 303 {
		t.Fatalf("approve: %d %s", r.status, r.body)
	}
	if r := c.do("GET", page, nil); !strings.Contains(string(r.body), "is approved") || !strings.Contains(string(r.body), "dashboard: member@example.com") ||
		!strings.Contains(string(r.body), "Nothing waits for a decision") {
		t.Fatalf("after approving: %s", r.body)
	}
	if st, _, raw := f.json("POST", "/v1/tools/execute", body); st != 200 {
		t.Fatalf("the approved call: %d %s", st, raw)
	}
	if r := c.do("POST", page+"/"+aid+"/deny", url.Values{"csrf": {tok}}); r.status != 409 || !strings.Contains(string(r.body), "a decision is made once") {
		t.Fatalf("second decision: %d %s", r.status, r.body)
	}

	// Rules: a malformed one is shown again with the problem; a good one is
	// listed and can be deleted; the default decision is set.
	bad := `{"decision":"maybe","match":{}}`
	if r := c.do("POST", "/dashboard/p/"+f.project.ID+"/policies", url.Values{"csrf": {tok}, "rule": {bad}}); r.status != 422 ||
		!strings.Contains(string(r.body), "decision") || !strings.Contains(string(r.body), "maybe") {
		t.Fatalf("bad rule: %d %s", r.status, r.body)
	}
	good := `{"decision":"deny","match":{"tool":"delta_*"},"description":"never delete"}`
	if r := c.do("POST", "/dashboard/p/"+f.project.ID+"/policies", url.Values{"csrf": {tok}, "rule": {good}}); r.status != 303 {
		t.Fatalf("good rule: %d %s", r.status, r.body)
	}
	r = c.do("GET", page, nil)
	del := regexp.MustCompile(`/policies/([0-9a-f-]+)/delete`).FindAllSubmatch(r.body, -1)
	if len(del) != 2 || !strings.Contains(string(r.body), "never delete") {
		t.Fatalf("rules listed: %s", r.body)
	}
	_, m, _ = f.json("GET", "/v1/policies", "")
	if n := len(m["data"].([]any)); n != 2 {
		t.Fatalf("the API sees %d rules", n)
	}
	if r := c.do("POST", "/dashboard/p/"+f.project.ID+"/policies/"+string(del[0][1])+"/delete", url.Values{"csrf": {tok}}); r.status != 303 {
		t.Fatalf("delete rule: %d %s", r.status, r.body)
	}
	if r := c.do("POST", "/dashboard/p/"+f.project.ID+"/policies/default", url.Values{"csrf": {tok}, "decision": {"deny"}}); r.status != 303 {
		t.Fatalf("default: %d %s", r.status, r.body)
	}
	_, m, _ = f.json("GET", "/v1/policies", "")
	if n := len(m["data"].([]any)); n != 1 || m["defaultDecision"] != "deny" {
		t.Fatalf("after delete and default: %v", m)
	}
	if r := c.do("POST", "/dashboard/p/"+f.project.ID+"/policies/default", url.Values{"csrf": {tok}, "decision": {"sometimes"}}); r.status != 422 {
		t.Fatalf("bad default: %d", r.status)
	}
}
