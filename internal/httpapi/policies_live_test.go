package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
)

// csrfField finds the approval page's anti-forgery field.
var csrfField = regexp.MustCompile(`name="csrf" value="([^"]+)"`)

// policyScenario drives the policy and approval routes for the live
// document check: rules, the default, a call held and approved through the
// API, and one denied through the approver link.
func policyScenario(lc *liveCheck, f *fixture, connID string) {
	t := lc.t
	t.Helper()
	key := "Bearer " + f.key
	v1 := func(method, path, body string, status int) map[string]any {
		t.Helper()
		return decodeMap(lc.do(f.h, method, path, key, body, status).body)
	}
	pol := dataOf(v1("POST", "/v1/policies", `{"decision":"ask","match":{"tool":"delta_get_task","arguments":[{"path":"id","equals":"42"}]}}`, 201))
	polID := pol["id"].(string)
	v1("POST", "/v1/policies", `{"decision":"ask","match":{"tool":"delta_get_task","arguments":[{"path":"id","regexp":"("}]}}`, 400)
	v1("POST", "/v1/policies", `{"decision":"ask","match":{"tol":"delta_get_task"}}`, 400)
	v1("GET", "/v1/policies", "", 200)
	v1("GET", "/v1/policies/"+polID, "", 200)
	v1("PUT", "/v1/policies/"+polID, `{"decision":"ask","priority":5,"match":{"tool":"delta_get_task","arguments":[{"path":"id","in":["42","43"]}]}}`, 200)
	v1("PUT", "/v1/policies/00000000-0000-4000-8000-000000000000", `{"decision":"deny"}`, 404)
	v1("PUT", "/v1/policies/default", `{"decision":"maybe"}`, 400)
	v1("PUT", "/v1/policies/default", `{"decision":"allow"}`, 200)
	hook := dataOf(v1("POST", "/v1/webhooks", `{"url":"https://hooks.example.com/approvals","events":["approval.requested"]}`, 201))

	call := func(id string, status int) map[string]any {
		t.Helper()
		return dataOf(v1("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","connectionId":"`+connID+`","input":{"id":"`+id+`"}}`, status))
	}
	held := call("42", 202)
	heldID := held["id"].(string)
	v1("GET", "/v1/approvals?status=pending&userId=u1&limit=1", "", 200)
	v1("GET", "/v1/approvals?status=nope", "", 400)
	v1("GET", "/v1/approvals/"+heldID, "", 200)
	v1("GET", "/v1/approvals/00000000-0000-4000-8000-000000000000", "", 404)
	v1("POST", "/v1/approvals/"+heldID+"/approve", `{"approver":"ops"}`, 200)
	v1("POST", "/v1/approvals/"+heldID+"/deny", "", 409)
	call("42", 200)

	// A second call, denied through the link of its approval.requested event.
	second := call("43", 202)["id"].(string)
	deliveries, err := f.store.ListDeliveries(context.Background(), f.project.ID, hook["id"].(string), 10)
	if err != nil {
		t.Fatal(err)
	}
	var link string
	for _, d := range deliveries {
		var ev struct {
			Data struct {
				Approval    struct{ ID string }
				DecisionURL string `json:"decisionUrl"`
			}
		}
		if json.Unmarshal(d.Payload, &ev) == nil && ev.Data.Approval.ID == second {
			link = ev.Data.DecisionURL
		}
	}
	if link == "" {
		t.Fatalf("no approval.requested event for %s in %d deliveries", second, len(deliveries))
	}
	// The deliveries name the held calls, whose records list them.
	listed, _ := v1("GET", "/v1/webhooks/"+hook["id"].(string)+"/deliveries", "", 200)["data"].([]any)
	if len(listed) == 0 || listed[0].(map[string]any)["logId"] == nil {
		t.Fatalf("deliveries without their log records: %v", listed)
	}
	f.srv.execlog.Flush(context.Background())
	v1("GET", "/v1/logs/"+listed[0].(map[string]any)["logId"].(string), "", 200)
	path := link[strings.Index(link, "/approvals/"):]
	page := lc.do(f.h, "GET", path, "", "", http.StatusOK)
	m := csrfField.FindSubmatch(page.body)
	if m == nil {
		t.Fatalf("no form token on the page: %s", page.body)
	}
	cookie := ""
	for _, c := range (&http.Response{Header: page.header}).Cookies() {
		if c.Name == approvalCSRFCookie {
			cookie = c.Name + "=" + c.Value
		}
	}
	form := []string{"Content-Type", "application/x-www-form-urlencoded", "Cookie", cookie}
	lc.do(f.h, "POST", path, "", "decision=deny&csrf="+string(m[1]), http.StatusOK, form...)
	lc.do(f.h, "POST", path, "", "decision=deny&csrf="+string(m[1]), http.StatusNotFound, form...)
	call("43", 403)
	v1("DELETE", "/v1/policies/"+polID, "", 200)
	call("43", 200)
	v1("DELETE", "/v1/webhooks/"+hook["id"].(string), "", 200)
}
