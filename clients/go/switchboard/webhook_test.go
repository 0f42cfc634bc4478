package switchboard

import (
	"errors"
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/webhook"
)

// TestVerifyWebhook_AgainstTheServersSigner signs with the server's own
// signer (internal/webhook) and checks that only the exact delivery passes.
func TestVerifyWebhook_AgainstTheServersSigner(t *testing.T) {
	t.Parallel()
	const secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
	now := time.Unix(1_780_000_000, 0)
	body := []byte(`{"type":"trigger.fired","id":"e1","timestamp":"2026-05-04T09:30:00Z","data":{"triggerId":"t","connectionId":"c","connectorId":"github","userId":"ann","event":"github_issue_opened","payload":{"n":1}}}`)
	sig, err := webhook.Sign(secret, "msg_1", now.Unix(), body)
	if err != nil {
		t.Fatal(err)
	}
	hdr := func(id string, ts int64, sig string) http.Header {
		return http.Header{"Webhook-Id": {id}, "Webhook-Timestamp": {strconv.FormatInt(ts, 10)}, "Webhook-Signature": {sig}}
	}
	ev, err := VerifyWebhook(secret, hdr("msg_1", now.Unix(), "v1,bm9wZQ== "+sig), body, now.Add(time.Minute), 0)
	if err != nil || ev.Type != "trigger.fired" || *ev.Data.UserID != "ann" || string(ev.Data.Payload) != `{"n":1}` {
		t.Fatalf("a genuine delivery: %+v %v", ev, err)
	}
	for name, c := range map[string]struct {
		secret string
		h      http.Header
		body   []byte
		now    time.Time
	}{
		"body changed":      {secret, hdr("msg_1", now.Unix(), sig), append([]byte(" "), body...), now},
		"other id":          {secret, hdr("msg_2", now.Unix(), sig), body, now},
		"other secret":      {"whsec_" + "c2VjcmV0LXR3bw==", hdr("msg_1", now.Unix(), sig), body, now},
		"too old":           {secret, hdr("msg_1", now.Unix(), sig), body, now.Add(6 * time.Minute)},
		"from the future":   {secret, hdr("msg_1", now.Unix(), sig), body, now.Add(-6 * time.Minute)},
		"no signature":      {secret, hdr("msg_1", now.Unix(), ""), body, now},
		"other version tag": {secret, hdr("msg_1", now.Unix(), "v1a"+sig[2:]), body, now},
	} {
		if _, err := VerifyWebhook(c.secret, c.h, c.body, c.now, 0); !errors.Is(err, ErrWebhookSignature) {
			t.Errorf("%s: %v, want ErrWebhookSignature", name, err)
		}
	}
}
