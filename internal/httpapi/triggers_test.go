package httpapi

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
	"github.com/switchboard-gw/switchboard/internal/webhook"
)

// receiver is a test webhook endpoint that verifies every delivery.
type receiver struct {
	srv    *httptest.Server
	mu     sync.Mutex
	secret string
	got    []webhook.Event
	bad    int
	status int
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{status: 200}
	rc.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		ts, _ := strconv.ParseInt(r.Header.Get("webhook-timestamp"), 10, 64)
		rc.mu.Lock()
		defer rc.mu.Unlock()
		if !webhook.Verify(rc.secret, r.Header.Get("webhook-id"), ts, body, r.Header.Get("webhook-signature")) {
			rc.bad++
			w.WriteHeader(400)
			return
		}
		var ev webhook.Event
		_ = json.Unmarshal(body, &ev)
		rc.got = append(rc.got, ev)
		w.WriteHeader(rc.status)
	}))
	t.Cleanup(rc.srv.Close)
	return rc
}

func (rc *receiver) events() []webhook.Event {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return append([]webhook.Event(nil), rc.got...)
}

func githubSign(secret string, body []byte) string {
	m := hmac.New(sha256.New, []byte(secret))
	m.Write(body)
	return "sha256=" + hex.EncodeToString(m.Sum(nil))
}

func (f *fixture) ingress(path string, body []byte, hdr ...string) response {
	f.t.Helper()
	req := httptest.NewRequest("POST", path, strings.NewReader(string(body)))
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	return response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// TestTriggers_EndToEnd: a provider event -> ingress -> a delivery received
// and verified by a webhook server, on SQLite and on PostgreSQL.
func TestTriggers_EndToEnd(t *testing.T) {
	t.Parallel()
	for name, open := range map[string]database{"sqlite": sqliteDB, "postgres": postgresDB} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if name == "postgres" {
				storetest.PostgresURL(t)
			}
			triggerScenario(t, setupOn(t, open))
		})
	}
}

func triggerScenario(t *testing.T, f *fixture) {
	ctx := context.Background()
	rc := newReceiver(t)
	st, m, raw := f.json("POST", "/v1/webhooks", `{"url":"`+rc.srv.URL+`/hook","description":"test"}`)
	if st != 201 || !strings.HasPrefix(dataOf(m)["secret"].(string), "whsec_") {
		t.Fatalf("webhook: %d %s", st, raw)
	}
	rc.secret = dataOf(m)["secret"].(string)
	hookID := dataOf(m)["id"].(string)
	if st, _, raw := f.json("GET", "/v1/webhooks", ""); st != 200 || strings.Contains(raw, "whsec_") {
		t.Fatalf("list shows the secret: %s", raw)
	}
	_, m, _ = f.json("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","userId":"u1","credential":{"type":"api_key","apiKey":"delta-secret-key","host":%q}}`, f.providerHost))
	connID := dataOf(m)["id"].(string)

	// Creation rules.
	for body, want := range map[string]string{
		`{}`: "VALIDATION_ERROR",
		`{"connectionId":"` + connID + `","event":"alpha_message_posted","secret":"s"}`:                              "VALIDATION_ERROR",
		`{"connectionId":"` + connID + `","event":"delta_task_created"}`:                                             "VALIDATION_ERROR",
		`{"connectionId":"` + connID + `","event":"delta_task_created","secret":"` + strings.Repeat("s", 513) + `"}`: "VALIDATION_ERROR",
		`{"connectionId":"` + store.NewID() + `","event":"delta_task_created","secret":"s"}`:                         "CONNECTION_NOT_FOUND",
		`{"connectionId":"` + connID + `","event":"delta_task_done","config":{"project":5}}`:                         "VALIDATION_ERROR",
	} {
		if st, m, raw := f.json("POST", "/v1/triggers", body); st != 400 || errCode(m) != want {
			t.Errorf("%s: %d %s, want %s", body, st, raw, want)
		}
	}

	st, m, raw = f.json("POST", "/v1/triggers", `{"connectionId":"`+connID+`","event":"delta_task_created","secret":"gh-secret"}`)
	if st != 201 || !strings.HasPrefix(dataOf(m)["url"].(string), "http://sb.test/api/triggers/") || dataOf(m)["fireCount"] != float64(0) {
		t.Fatalf("manual trigger: %d %s", st, raw)
	}
	trigID := dataOf(m)["id"].(string)
	path := strings.TrimPrefix(dataOf(m)["url"].(string), "http://sb.test")

	event := []byte(`{"action":"created","task":{"id":"t1","title":"Write tests"}}`)
	if r := f.ingress(path, event, "X-Delta-Event", "task", "X-Hub-Signature-256", githubSign("gh-secret", event)); r.status != 200 || len(r.body) != 0 {
		t.Fatalf("verified event: %d %s", r.status, r.body)
	}
	other := []byte(`{"action":"deleted"}`)
	if r := f.ingress(path, other, "X-Delta-Event", "task", "X-Hub-Signature-256", githubSign("gh-secret", other)); r.status != 200 {
		t.Fatalf("other event: %d", r.status)
	}
	if r := f.ingress(path, event, "X-Delta-Event", "task", "X-Hub-Signature-256", githubSign("wrong", event)); r.status != 401 || len(r.body) != 0 {
		t.Fatalf("bad signature: %d", r.status)
	}
	if r := f.ingress(path, event, "X-Delta-Event", "task"); r.status != 401 {
		t.Fatalf("no signature: %d", r.status)
	}
	if r := f.ingress("/api/triggers/unknown-token", event); r.status != 404 || len(r.body) != 0 {
		t.Fatalf("unknown token: %d", r.status)
	}
	if r := f.ingress(path, make([]byte, 1_000_001)); r.status != 413 {
		t.Fatalf("big body: %d", r.status)
	}
	if r := f.ingress(path, make([]byte, 1_000_000), "X-Hub-Signature-256", githubSign("gh-secret", make([]byte, 1_000_000))); r.status != 200 {
		t.Fatalf("body at the limit: %d", r.status)
	}

	// Deliver: one event matched, so one delivery reaches the receiver, signed.
	if _, err := f.worker.RunOnce(ctx); err != nil {
		t.Fatal(err)
	}
	evs := rc.events()
	if len(evs) != 1 || evs[0].Type != "trigger.fired" || evs[0].Data.TriggerID != trigID || evs[0].Data.Event != "delta_task_created" ||
		*evs[0].Data.UserID != "u1" || evs[0].Data.ConnectorID != "delta" || !strings.Contains(string(evs[0].Data.Payload), "Write tests") {
		t.Fatalf("delivered: %+v (bad signatures %d)", evs, rc.bad)
	}
	_, m, _ = f.json("GET", "/v1/triggers?userId=u1", "")
	list := m["data"].([]any)
	if len(list) != 1 || list[0].(map[string]any)["fireCount"] != float64(1) || list[0].(map[string]any)["lastFiredAt"] == nil {
		t.Fatalf("trigger list: %v", list)
	}
	_, m, _ = f.json("GET", "/v1/webhooks/"+hookID+"/deliveries", "")
	ds := m["data"].([]any)
	if len(ds) != 1 || ds[0].(map[string]any)["status"] != "delivered" || ds[0].(map[string]any)["lastResponseStatus"] != float64(200) {
		t.Fatalf("deliveries: %v", ds)
	}
	if st, _, _ := f.json("POST", "/v1/webhooks/"+hookID+"/deliveries/"+ds[0].(map[string]any)["id"].(string)+"/retry", ""); st != 200 {
		t.Fatalf("retry: %d", st)
	}
	if _, err := f.worker.RunOnce(ctx); err != nil || len(rc.events()) != 2 {
		t.Fatalf("redelivery: %v %d", err, len(rc.events()))
	}

	// A secret that cannot be opened: 503, the provider retries later.
	tr, _ := f.store.GetTrigger(ctx, f.project.ID, trigID)
	if err := f.store.SetTriggerSecret(ctx, tr.ID, []byte("not a sealed secret")); err != nil {
		t.Fatal(err)
	}
	if r := f.ingress(path, event, "X-Delta-Event", "task", "X-Hub-Signature-256", githubSign("gh-secret", event)); r.status != 503 {
		t.Fatalf("unreadable secret: %d", r.status)
	}

	// Automatic setup registers a hook at the provider and removes it on delete.
	st, m, raw = f.json("POST", "/v1/triggers", `{"connectionId":"`+connID+`","event":"delta_task_done","config":{"project":"p1"}}`)
	if st != 201 || dataOf(m)["url"] != nil {
		t.Fatalf("automatic trigger: %d %s", st, raw)
	}
	auto := dataOf(m)["id"].(string)
	registered := false
	fakeHooks.Range(func(k, _ any) bool {
		registered = registered || (strings.Contains(k.(string), `"project":"p1"`) && strings.Contains(k.(string), "http://sb.test/api/triggers/"))
		return true
	})
	if !registered {
		t.Fatal("the provider hook was not registered with our URL")
	}
	if st, m, _ := f.json("DELETE", "/v1/triggers/"+auto, ""); st != 200 || dataOf(m)["id"] != auto {
		t.Fatalf("delete: %d", st)
	}
	if _, ok := fakeHooks.Load("deleted hk_77"); !ok {
		t.Fatal("the provider hook was not removed")
	}
	if st, m, _ := f.json("DELETE", "/v1/triggers/"+auto, ""); st != 404 || errCode(m) != "NOT_FOUND" {
		t.Fatalf("delete twice: %d", st)
	}
	// Deleting the connection removes its triggers.
	f.json("DELETE", "/v1/connections/"+connID, "")
	if _, m, _ := f.json("GET", "/v1/triggers", ""); len(m["data"].([]any)) != 0 {
		t.Fatalf("triggers outlived their connection: %v", m["data"])
	}
}

func TestTriggerIngress_RateLimitExactlyAt600(t *testing.T) {
	t.Parallel()
	f := setup(t)
	_, m, _ := f.json("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","userId":"u1","credential":{"type":"api_key","apiKey":"k","host":%q}}`, f.providerHost))
	_, m, _ = f.json("POST", "/v1/triggers", `{"connectionId":"`+dataOf(m)["id"].(string)+`","event":"delta_task_created","secret":"s"}`)
	path := strings.TrimPrefix(dataOf(m)["url"].(string), "http://sb.test")
	body := []byte(`{"action":"created"}`)
	sig := githubSign("s", body)
	for i := 1; i <= 600; i++ {
		if r := f.ingress(path, body, "X-Hub-Signature-256", sig); r.status != 200 {
			t.Fatalf("delivery %d: %d", i, r.status)
		}
	}
	if r := f.ingress(path, body, "X-Hub-Signature-256", sig); r.status != 429 {
		t.Fatalf("delivery 601: %d", r.status)
	}
	f.clock.Advance(time.Minute)
	if r := f.ingress(path, body, "X-Hub-Signature-256", sig); r.status != 200 {
		t.Fatalf("next minute: %d", r.status)
	}
}

func TestTriggerIngress_SlackChallengeStaleAndReplay(t *testing.T) {
	t.Parallel()
	f := setup(t)
	_, m, _ := f.json("POST", "/v1/connections", `{"connectorId":"alpha","userId":"u1","credential":{"type":"api_key","apiKey":"k"}}`)
	_, m, _ = f.json("POST", "/v1/triggers", `{"connectionId":"`+dataOf(m)["id"].(string)+`","event":"alpha_message_posted","secret":"slack-secret"}`)
	path := strings.TrimPrefix(dataOf(m)["url"].(string), "http://sb.test")
	sign := func(ts int64, body []byte) (string, string) {
		t := strconv.FormatInt(ts, 10)
		mac := hmac.New(sha256.New, []byte("slack-secret"))
		mac.Write([]byte("v0:" + t + ":"))
		mac.Write(body)
		return t, "v0=" + hex.EncodeToString(mac.Sum(nil))
	}
	now := f.clock.Now().Unix()
	challenge := []byte(`{"type":"url_verification","challenge":"c-123"}`)
	ts, sig := sign(now, challenge)
	r := f.ingress(path, challenge, "X-Slack-Request-Timestamp", ts, "X-Slack-Signature", sig)
	if r.status != 200 || string(r.body) != "c-123" || !strings.HasPrefix(r.header.Get("Content-Type"), "text/plain") {
		t.Fatalf("challenge: %d %q", r.status, r.body)
	}
	event := []byte(`{"type":"message","text":"hi"}`)
	ts, sig = sign(now, event)
	if r := f.ingress(path, event, "X-Slack-Request-Timestamp", ts, "X-Slack-Signature", sig); r.status != 200 {
		t.Fatalf("event: %d", r.status)
	}
	if r := f.ingress(path, event, "X-Slack-Request-Timestamp", ts, "X-Slack-Signature", sig); r.status != 400 {
		t.Fatalf("replay: %d", r.status)
	}
	ts, sig = sign(now-6*60, event)
	if r := f.ingress(path, event, "X-Slack-Request-Timestamp", ts, "X-Slack-Signature", sig); r.status != 400 {
		t.Fatalf("stale: %d", r.status)
	}
}

func TestWebhooks_URLRules(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for body, path := range map[string]string{
		`{}`:                                   "url",
		`{"url":"ftp://x.example/h"}`:          "url",
		`{"url":"http://hooks.example.com/h"}`: "url",
		`{"url":"https://u:p@hooks.example.com/h"}`:                "url",
		`{"url":"https://hooks.example.com/h","events":["other"]}`: "events",
	} {
		if st, m, raw := f.json("POST", "/v1/webhooks", body); st != 400 || errCode(m) != "VALIDATION_ERROR" || !strings.Contains(raw, `"path":["`+path) {
			t.Errorf("%s: %d %s", body, st, raw)
		}
	}
	if st, _, raw := f.json("POST", "/v1/webhooks", `{"url":"https://hooks.example.com/h","events":["trigger.fired"]}`); st != 201 {
		t.Fatalf("https: %d %s", st, raw)
	}
	if st, m, _ := f.json("DELETE", "/v1/webhooks/"+store.NewID(), ""); st != 404 || errCode(m) != "NOT_FOUND" {
		t.Fatalf("unknown webhook: %d", st)
	}
}
