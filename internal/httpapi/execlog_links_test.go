package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
)

// deliveriesOf lists a webhook's deliveries through the API.
func (f *fixture) deliveriesOf(t *testing.T, hookID string) []map[string]any {
	t.Helper()
	st, _, raw := f.json("GET", "/v1/webhooks/"+hookID+"/deliveries", "")
	var page struct {
		Data []map[string]any `json:"data"`
	}
	if st != 200 || json.Unmarshal([]byte(raw), &page) != nil {
		t.Fatalf("deliveries: %d %s", st, raw)
	}
	return page.Data
}

// TestExecLog_LinksToWebhookDeliveries: a call held for approval (REST and
// in a session) names the approval.requested deliveries it caused in its
// log record (list and single), and each delivery names the record and the
// request; a trigger.fired delivery names the trigger, the event (the id
// its receiver gets) and the provider's delivery id; a call that caused
// nothing lists no deliveries; with the log off a held call's delivery
// names its request and no record.
func TestExecLog_LinksToWebhookDeliveries(t *testing.T) {
	t.Parallel()
	onBothDatabases(t, func(t *testing.T, f *fixture) {
		f.connectDelta(t, "u1")
		_, hook, raw := f.json("POST", "/v1/webhooks", `{"url":"https://hooks.example.com/all","events":["approval.requested","trigger.fired"]}`)
		hookID, ok := dataOf(hook)["id"].(string)
		if !ok {
			t.Fatalf("webhook: %s", raw)
		}
		f.rule(t, `{"decision":"ask","match":{"tool":"delta_create_task"}}`)
		if r := f.logCall(t, "POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","input":{"id":"9"}}`, "plain"); r.status != 200 {
			t.Fatalf("plain call: %d %s", r.status, r.body)
		}
		if r := f.logCall(t, "POST", "/v1/tools/execute", `{"toolId":"delta_create_task","userId":"u1","input":{"title":"a"}}`, "held-rest"); r.status != http.StatusAccepted {
			t.Fatalf("held call: %d %s", r.status, r.body)
		}
		sid := f.newSession(t, `{"userId":"u1","connectors":["delta"],"pinned":["delta_create_task"]}`)
		if r := f.logCall(t, "POST", "/v1/sessions/"+sid+"/tools/delta_create_task", `{"arguments":{"title":"b"}}`, "held-session"); r.status != 200 {
			t.Fatalf("held session call: %d %s", r.status, r.body)
		}

		logs := f.logsByRequest(t, f.key)
		deliveries := f.deliveriesOf(t, hookID)
		if len(deliveries) != 2 {
			t.Fatalf("deliveries: %v", deliveries)
		}
		byLog := map[string]map[string]any{}
		for _, d := range deliveries {
			if d["event"] != "approval.requested" || d["triggerId"] != nil || d["eventId"] != nil || d["providerEventId"] != nil {
				t.Fatalf("approval delivery: %v", d)
			}
			id, _ := d["logId"].(string)
			byLog[id] = d
		}
		for _, req := range []string{"held-rest", "held-session"} {
			rec := logs[req]
			if rec == nil {
				t.Fatalf("%s: no record", req)
			}
			d := byLog[rec["id"].(string)]
			if d == nil || d["requestId"] != req {
				t.Fatalf("%s: no delivery names record %s: %v", req, rec["id"], deliveries)
			}
			listed, _ := rec["deliveries"].([]any)
			if len(listed) != 1 || listed[0].(map[string]any)["id"] != d["id"] || listed[0].(map[string]any)["webhookId"] != hookID ||
				listed[0].(map[string]any)["event"] != "approval.requested" {
				t.Fatalf("%s: record lists %v", req, rec["deliveries"])
			}
			st, one, raw := f.json("GET", "/v1/logs/"+rec["id"].(string), "")
			got, _ := dataOf(one)["deliveries"].([]any)
			if st != 200 || len(got) != 1 || got[0].(map[string]any)["id"] != d["id"] {
				t.Fatalf("%s: GET one: %d %s", req, st, raw)
			}
		}
		if plain, _ := logs["plain"]["deliveries"].([]any); plain == nil || len(plain) != 0 {
			t.Fatalf("a call that caused nothing: %v", logs["plain"])
		}

		// With the log off, a held call's delivery names its request only.
		f.srv.execlog = nil
		if r := f.logCall(t, "POST", "/v1/tools/execute", `{"toolId":"delta_create_task","userId":"u1","input":{"title":"c"}}`, "held-off"); r.status != http.StatusAccepted {
			t.Fatalf("held call, log off: %d %s", r.status, r.body)
		}
		var off map[string]any
		for _, d := range f.deliveriesOf(t, hookID) {
			if d["requestId"] == "held-off" {
				off = d
			}
		}
		if off == nil || off["logId"] != nil {
			t.Fatalf("log off: delivery %v", off)
		}

		// A trigger fired by a GitHub-style delivery with its id.
		path := f.manualDeltaTrigger(t)
		_, trs, _ := f.json("GET", "/v1/triggers", "")
		triggerID := trs["data"].([]any)[0].(map[string]any)["id"].(string)
		body := []byte(`{"action":"created","task":{"id":"t1"}}`)
		if st := f.ingressFrom("192.0.2.10:443", path, body, "X-Delta-Event", "task", "X-Hub-Signature-256", githubSign("s", body),
			"X-GitHub-Delivery", "72d3162e-cc78-11e3-81ab-4c9367dc0958"); st != 200 {
			t.Fatalf("ingress: %d", st)
		}
		var fired map[string]any
		for _, d := range f.deliveriesOf(t, hookID) {
			if d["event"] == "trigger.fired" {
				fired = d
			}
		}
		if fired == nil || fired["triggerId"] != triggerID || fired["providerEventId"] != "72d3162e-cc78-11e3-81ab-4c9367dc0958" ||
			fired["logId"] != nil || fired["requestId"] != nil {
			t.Fatalf("trigger delivery: %v", fired)
		}
		// The event id is the id in the delivery's body.
		stored, err := f.store.ListDeliveries(context.Background(), f.project.ID, hookID, 10)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range stored {
			if d.ID != fired["id"] {
				continue
			}
			var ev struct {
				ID string `json:"id"`
			}
			if json.Unmarshal(d.Payload, &ev) != nil || ev.ID == "" || ev.ID != fired["eventId"] {
				t.Fatalf("event id %v, body %s", fired["eventId"], d.Payload)
			}
		}
	})
}
