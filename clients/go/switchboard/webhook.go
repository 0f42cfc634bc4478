package switchboard

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// DefaultWebhookTolerance is how far a delivery's webhook-timestamp may be
// from the receiver's clock.
const DefaultWebhookTolerance = 5 * time.Minute

// ErrWebhookSignature is returned by VerifyWebhook for a delivery that is
// not proven to come from Switchboard; answer it 400 or 401.
var ErrWebhookSignature = errors.New("switchboard: webhook signature does not verify")

// TriggerFiredEvent is the body of a trigger.fired delivery.
type TriggerFiredEvent struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Timestamp string `json:"timestamp"`
	Data      struct {
		TriggerID    string          `json:"triggerId"`
		ConnectionID string          `json:"connectionId"`
		ConnectorID  string          `json:"connectorId"`
		UserID       *string         `json:"userId"`
		Event        string          `json:"event"`
		Payload      json.RawMessage `json:"payload"`
	} `json:"data"`
}

// VerifyWebhook checks a delivery's Standard Webhooks signature with the
// endpoint's whsec_ secret and its timestamp against now (within
// tolerance; 0 means DefaultWebhookTolerance), then decodes the body.
// Read the body raw: any re-encoding breaks the signature.
func VerifyWebhook(secret string, header http.Header, body []byte, now time.Time, tolerance time.Duration) (TriggerFiredEvent, error) {
	var ev TriggerFiredEvent
	if tolerance <= 0 {
		tolerance = DefaultWebhookTolerance
	}
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil || len(key) == 0 {
		return ev, errors.New("switchboard: the webhook secret is not whsec_ followed by base64")
	}
	id, ts, sigs := header.Get("webhook-id"), header.Get("webhook-timestamp"), header.Get("webhook-signature")
	if id == "" || ts == "" || sigs == "" {
		return ev, ErrWebhookSignature
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return ev, ErrWebhookSignature
	}
	if d := now.Sub(time.Unix(sec, 0)); d > tolerance || d < -tolerance {
		return ev, ErrWebhookSignature
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	ok := false
	for _, s := range strings.Fields(sigs) {
		version, b64, found := strings.Cut(s, ",")
		if !found || version != "v1" {
			continue
		}
		got, err := base64.StdEncoding.DecodeString(b64)
		if err == nil && hmac.Equal(got, want) {
			ok = true
		}
	}
	if !ok {
		return ev, ErrWebhookSignature
	}
	if err := json.Unmarshal(body, &ev); err != nil {
		return ev, errors.New("switchboard: the webhook body is not a JSON event")
	}
	return ev, nil
}
