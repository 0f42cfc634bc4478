package httpapi

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
)

// ingressFrom posts a delivery from a given client address.
func (f *fixture) ingressFrom(addr, path string, body []byte, hdr ...string) int {
	f.t.Helper()
	req := httptest.NewRequest("POST", path, strings.NewReader(string(body)))
	req.RemoteAddr = addr
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	return rec.Code
}

// manualDeltaTrigger creates a manual delta_task_created trigger with
// secret "s" and returns its ingress path.
func (f *fixture) manualDeltaTrigger(t *testing.T) string {
	t.Helper()
	_, m, _ := f.json("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","userId":"u1","credential":{"type":"api_key","apiKey":"k","host":%q}}`, f.providerHost))
	_, m, raw := f.json("POST", "/v1/triggers", `{"connectionId":"`+dataOf(m)["id"].(string)+`","event":"delta_task_created","secret":"s"}`)
	u, ok := dataOf(m)["url"].(string)
	if !ok {
		t.Fatalf("trigger: %s", raw)
	}
	return strings.TrimPrefix(u, "http://sb.test")
}

func (f *fixture) fireCount(t *testing.T) float64 {
	t.Helper()
	_, m, _ := f.json("GET", "/v1/triggers", "")
	return m["data"].([]any)[0].(map[string]any)["fireCount"].(float64)
}

// Finding 15: unsigned posts must not use up the trigger's limit, and an
// address that keeps sending them is refused with 429.
func TestTriggerIngress_UnsignedFloodDoesNotBlockSignedDelivery(t *testing.T) {
	t.Parallel()
	f := setup(t)
	path := f.manualDeltaTrigger(t)
	body := []byte(`{"action":"created"}`)
	const attacker = "198.51.100.7:4000"
	counts := map[int]int{}
	last := 0
	for range 700 {
		last = f.ingressFrom(attacker, path, body, "X-Delta-Event", "task", "X-Hub-Signature-256", "sha256=00")
		counts[last]++
	}
	if last != 429 || counts[401] == 0 || counts[200] != 0 {
		t.Fatalf("unsigned flood answers: %v, last %d; want 401s then 429", counts, last)
	}
	// The genuine provider, from another address and from the attacker's
	// own (a shared load balancer), still gets through.
	sig := githubSign("s", body)
	for _, from := range []string{"192.0.2.10:443", attacker} {
		if st := f.ingressFrom(from, path, body, "X-Delta-Event", "task", "X-Hub-Signature-256", sig); st != 200 {
			t.Fatalf("signed delivery from %s after the flood: %d", from, st)
		}
	}
	if n := f.fireCount(t); n != 2 {
		t.Fatalf("fireCount %v, want 2", n)
	}
	// Unknown tokens count as unverified too.
	if st := f.ingressFrom(attacker, "/api/triggers/no-such-token", body); st != 429 {
		t.Fatalf("unknown token from a flooding address: %d", st)
	}
	// A new minute forgives the address.
	f.clock.Advance(61e9)
	if st := f.ingressFrom(attacker, path, body, "X-Hub-Signature-256", "sha256=00"); st != 401 {
		t.Fatalf("next minute: %d", st)
	}
}

// Finding 17: an exact resend of a GitHub delivery (same X-GitHub-Delivery)
// is acknowledged but fires nothing.
func TestTriggerIngress_GitHubDeliveryIDDeduplicated(t *testing.T) {
	t.Parallel()
	f := setup(t)
	path := f.manualDeltaTrigger(t)
	body := []byte(`{"action":"created","task":{"id":"t1"}}`)
	sig := githubSign("s", body)
	for i, id := range []string{"72d3162e-cc78-11e3-81ab-4c9367dc0958", "72d3162e-cc78-11e3-81ab-4c9367dc0958", "9e1f0a2c-0000-11e3-81ab-4c9367dc0958"} {
		if st := f.ingressFrom("192.0.2.10:443", path, body, "X-Delta-Event", "task", "X-Hub-Signature-256", sig, "X-GitHub-Delivery", id); st != 200 {
			t.Fatalf("delivery %d: %d", i, st)
		}
	}
	if n := f.fireCount(t); n != 2 {
		t.Fatalf("fireCount %v after a resent delivery id, want 2", n)
	}
}

// Finding 17: a client that goes away mid-request is not an ERROR.
func TestIngressAndConnect_ClientGoneIsNotAnError(t *testing.T) {
	t.Parallel()
	f := setup(t)
	path := f.manualDeltaTrigger(t)
	token := f.link(t, `{"userId":"u1"}`)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	body := []byte(`{"action":"created"}`)
	for _, p := range []string{path, "/api/connect/" + token + "/accounts"} {
		req := httptest.NewRequest("POST", p, strings.NewReader(string(body))).WithContext(ctx)
		req.Header.Set("X-Hub-Signature-256", githubSign("s", body))
		f.h.ServeHTTP(httptest.NewRecorder(), req)
	}
	logs := f.logs.String()
	if strings.Contains(logs, `"level":"ERROR"`) {
		t.Fatalf("a client disconnect was logged at ERROR:\n%s", logs)
	}
	if !strings.Contains(logs, "client went away") {
		t.Fatalf("no INFO line for the disconnect:\n%s", logs)
	}
}

// Finding 14: a webhook URL whose host is, or resolves to, an address the
// outbound guard refuses is a VALIDATION_ERROR at registration, and the
// answer does not repeat what the host resolved to.
func TestWebhooks_PrivateOrUnresolvableHostRefused(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, u := range []string{
		"https://10.1.2.3/h", "https://169.254.169.254/latest", "https://[fd00::1]/h", "https://0.0.0.0/h",
		"https://internal.example.com/h", "https://nxdomain.example.com/h",
	} {
		st, m, raw := f.json("POST", "/v1/webhooks", `{"url":"`+u+`"}`)
		if st != 400 || errCode(m) != "VALIDATION_ERROR" || !strings.Contains(raw, `"path":["url"]`) {
			t.Errorf("%s: %d %s", u, st, raw)
		}
		if strings.Contains(raw, "10.9.8.7") || strings.Contains(raw, "no such host") {
			t.Errorf("%s: the answer shows resolution details: %s", u, raw)
		}
	}
	if st, _, raw := f.json("POST", "/v1/webhooks", `{"url":"https://hooks.example.com/h"}`); st != 201 {
		t.Fatalf("public host: %d %s", st, raw)
	}
}
