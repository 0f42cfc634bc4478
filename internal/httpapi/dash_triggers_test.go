package httpapi

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// The triggers screen lists the project's triggers (per user) and deletes
// one through trigger.Service; the sessions screen shows the live
// sessions with their scope and policy.
func TestDashboard_TriggersAndSessions(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.manualDeltaTrigger(t)
	if st, _, raw := f.json("POST", "/v1/sessions", `{"userId":"u1","connectors":["delta"],"policy":{"readOnly":true},"ttlMinutes":10}`); st != 201 {
		t.Fatalf("session: %d %s", st, raw)
	}
	triggers := "/dashboard/p/" + f.project.ID + "/triggers"
	sessions := "/dashboard/p/" + f.project.ID + "/sessions"
	c := newDashClient(t, f.h)
	for _, p := range []string{triggers, sessions} {
		if r := c.do("GET", p, nil); r.status != 303 {
			t.Fatalf("signed out %s: %d", p, r.status)
		}
	}
	dashOperator(t, f, "member@example.com", store.RoleMember)
	c.signIn("member@example.com", dashPassword)

	r := c.do("GET", triggers, nil)
	del := regexp.MustCompile(`/triggers/([0-9a-f-]+)/delete`).FindSubmatch(r.body)
	if r.status != 200 || del == nil || !strings.Contains(string(r.body), "delta_task_created") || !strings.Contains(string(r.body), ">u1<") {
		t.Fatalf("triggers: %d %s", r.status, r.body)
	}
	if r := c.do("GET", triggers+"?userId=someone-else", nil); !strings.Contains(string(r.body), "No triggers for someone-else") {
		t.Fatalf("another user's: %s", r.body)
	}
	tok := c.csrf(triggers)
	if r := c.do("POST", triggers+"/"+string(del[1])+"/delete", url.Values{}); r.status != 403 {
		t.Fatalf("delete without token: %d", r.status)
	}
	if r := c.do("POST", triggers+"/"+string(del[1])+"/delete", url.Values{"csrf": {tok}}); r.status != 303 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	if list, _ := f.store.ListTriggers(context.Background(), f.project.ID, ""); len(list) != 0 {
		t.Fatalf("still there: %+v", list)
	}
	if r := c.do("POST", triggers+"/"+string(del[1])+"/delete", url.Values{"csrf": {tok}}); r.status != 404 {
		t.Fatalf("delete twice: %d", r.status)
	}

	r = c.do("GET", sessions, nil)
	if r.status != 200 || !strings.Contains(string(r.body), ">u1<") || !strings.Contains(string(r.body), `&#34;readOnly&#34;: true`) ||
		!strings.Contains(string(r.body), "delta") {
		t.Fatalf("sessions: %d %s", r.status, r.body)
	}
	f.clock.Advance(11 * 60e9)
	if r := c.do("GET", sessions, nil); !strings.Contains(string(r.body), "No live sessions") {
		t.Fatalf("after expiry: %s", r.body)
	}
}
