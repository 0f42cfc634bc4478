package trigger

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/webhook"
)

func sum256(key string, parts ...string) []byte {
	m := hmac.New(sha256.New, []byte(key))
	for _, p := range parts {
		m.Write([]byte(p))
	}
	return m.Sum(nil)
}

func sum1(key string, parts ...string) []byte {
	m := hmac.New(sha1.New, []byte(key))
	for _, p := range parts {
		m.Write([]byte(p))
	}
	return m.Sum(nil)
}

// signer signs a delivery the way a provider does.
type signer func(d *Delivery, secret string, now time.Time)

var now = time.Unix(1_800_000_000, 0)

const body = `{"type":"event","id":"e1"}`

// signers sign like the providers of each scheme.
var signers = map[string]signer{
	"github_hmac_sha256": func(d *Delivery, s string, _ time.Time) {
		d.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(sum256(s, string(d.Body))))
	},
	"jira_hmac": func(d *Delivery, s string, _ time.Time) {
		d.Header.Set("X-Hub-Signature", "sha256="+hex.EncodeToString(sum256(s, string(d.Body))))
	},
	"intercom_hmac_sha1": func(d *Delivery, s string, _ time.Time) {
		d.Header.Set("X-Hub-Signature", "sha1="+hex.EncodeToString(sum1(s, string(d.Body))))
	},
	"linear_hmac": func(d *Delivery, s string, _ time.Time) {
		d.Header.Set("Linear-Signature", hex.EncodeToString(sum256(s, string(d.Body))))
	},
	"sentry": func(d *Delivery, s string, _ time.Time) {
		d.Header.Set("Sentry-Hook-Signature", hex.EncodeToString(sum256(s, string(d.Body))))
	},
	"clickup": func(d *Delivery, s string, _ time.Time) {
		d.Header.Set("X-Signature", hex.EncodeToString(sum256(s, string(d.Body))))
	},
	"asana": func(d *Delivery, s string, _ time.Time) {
		d.Header.Set("X-Hook-Signature", hex.EncodeToString(sum256(s, string(d.Body))))
	},
	"shopify_hmac": func(d *Delivery, s string, _ time.Time) {
		d.Header.Set("X-Shopify-Hmac-Sha256", base64.StdEncoding.EncodeToString(sum256(s, string(d.Body))))
	},
	"gitlab_token": func(d *Delivery, s string, _ time.Time) { d.Header.Set("X-Gitlab-Token", s) },
	"slack_v0": func(d *Delivery, s string, n time.Time) {
		ts := strconv.FormatInt(n.Unix(), 10)
		d.Header.Set("X-Slack-Request-Timestamp", ts)
		d.Header.Set("X-Slack-Signature", "v0="+hex.EncodeToString(sum256(s, "v0:"+ts+":"+string(d.Body))))
	},
	"zoom": func(d *Delivery, s string, n time.Time) {
		ts := strconv.FormatInt(n.Unix(), 10)
		d.Header.Set("X-Zm-Request-Timestamp", ts)
		d.Header.Set("X-Zm-Signature", "v0="+hex.EncodeToString(sum256(s, "v0:"+ts+":"+string(d.Body))))
	},
	"stripe": func(d *Delivery, s string, n time.Time) {
		ts := strconv.FormatInt(n.Unix(), 10)
		d.Header.Set("Stripe-Signature", "t="+ts+",v1="+hex.EncodeToString(sum256(s, ts+"."+string(d.Body)))+",v0=ignored")
	},
	"calendly": func(d *Delivery, s string, n time.Time) {
		ts := strconv.FormatInt(n.Unix(), 10)
		d.Header.Set("Calendly-Webhook-Signature", "t="+ts+",v1="+hex.EncodeToString(sum256(s, ts+"."+string(d.Body))))
	},
	"pagerduty_v1": func(d *Delivery, s string, _ time.Time) {
		d.Header.Set("X-PagerDuty-Signature", "v1=deadbeef,v1="+hex.EncodeToString(sum256(s, string(d.Body))))
	},
	"zendesk": func(d *Delivery, s string, n time.Time) {
		ts := n.UTC().Format(time.RFC3339)
		d.Header.Set("X-Zendesk-Webhook-Signature-Timestamp", ts)
		d.Header.Set("X-Zendesk-Webhook-Signature", base64.StdEncoding.EncodeToString(sum256(s, ts+string(d.Body))))
	},
	"square": func(d *Delivery, s string, _ time.Time) {
		d.Header.Set("X-Square-Hmacsha256-Signature", base64.StdEncoding.EncodeToString(sum256(s, d.URL+string(d.Body))))
	},
	"hubspot_v3": func(d *Delivery, s string, n time.Time) {
		ts := strconv.FormatInt(n.UnixMilli(), 10)
		d.Header.Set("X-HubSpot-Request-Timestamp", ts)
		d.Header.Set("X-HubSpot-Signature-v3", base64.StdEncoding.EncodeToString(sum256(s, d.Method+d.URL+string(d.Body)+ts)))
	},
	"twilio": func(d *Delivery, s string, _ time.Time) {
		form, _ := url.ParseQuery(string(d.Body))
		keys := make([]string, 0, len(form))
		for k := range form {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		msg := d.URL
		for _, k := range keys {
			vs := form[k]
			sort.Strings(vs)
			for _, v := range vs {
				msg += k + v
			}
		}
		d.Header.Set("X-Twilio-Signature", base64.StdEncoding.EncodeToString(sum1(s, msg)))
	},
	"standard_webhooks": func(d *Delivery, s string, n time.Time) {
		sig, _ := webhook.Sign(s, "msg_1", n.Unix(), d.Body)
		d.Header.Set("Webhook-Id", "msg_1")
		d.Header.Set("Webhook-Timestamp", strconv.FormatInt(n.Unix(), 10))
		d.Header.Set("Webhook-Signature", sig)
	},
}

func delivery(scheme string) Delivery {
	d := Delivery{Method: "POST", URL: "https://sb.example/api/triggers/tok", Header: http.Header{}, Body: []byte(body)}
	if scheme == "twilio" {
		d.Body = []byte("From=%2B15550001&Body=hello&SmsStatus=received")
	}
	return d
}

// TestVerifiers_EveryCatalogScheme signs like each provider, then checks
// that the verifier accepts it and refuses a wrong secret and a changed body.
func TestVerifiers_EveryCatalogScheme(t *testing.T) {
	t.Parallel()
	for _, scheme := range catalog.Schemes {
		v, ok := verifiers[scheme]
		sign, hasSigner := signers[scheme]
		if !ok || !hasSigner {
			t.Errorf("scheme %s: verifier %v, test signer %v", scheme, ok, hasSigner)
			continue
		}
		secret := "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" // valid for every scheme
		d := delivery(scheme)
		sign(&d, secret, now)
		if _, err := v(d, secret, now); err != nil {
			t.Errorf("%s: valid delivery refused: %v", scheme, err)
		}
		if _, err := v(d, "whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", now); err == nil {
			t.Errorf("%s: wrong secret accepted", scheme)
		}
		tampered := d
		tampered.Body = append([]byte(nil), d.Body...)
		tampered.Body[len(tampered.Body)-1] ^= 1
		if _, err := v(tampered, secret, now); err == nil && scheme != "gitlab_token" {
			t.Errorf("%s: changed body accepted", scheme)
		}
		if _, err := v(delivery(scheme), secret, now); err == nil {
			t.Errorf("%s: unsigned delivery accepted", scheme)
		}
	}
}

func TestVerifiers_StaleTimestamps(t *testing.T) {
	t.Parallel()
	for _, scheme := range []string{"slack_v0", "zoom", "stripe", "calendly", "hubspot_v3", "standard_webhooks"} {
		d := delivery(scheme)
		signers[scheme](&d, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", now.Add(-6*time.Minute))
		if _, err := verifiers[scheme](d, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", now); !errors.Is(err, errStale) {
			t.Errorf("%s: six-minute-old delivery: %v", scheme, err)
		}
		if digest, err := verifiers[scheme](func() Delivery {
			d := delivery(scheme)
			signers[scheme](&d, "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", now)
			return d
		}(), "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", now); err != nil || digest == "" {
			t.Errorf("%s: fresh delivery gave no replay digest: %q %v", scheme, digest, err)
		}
	}
}

func TestMatches(t *testing.T) {
	t.Parallel()
	m := catalog.Match{Headers: map[string]string{"X-GitHub-Event": "issues"}, Body: map[string]string{"action": "opened", "events.0.type": "task", "n": "3"}}
	h := http.Header{"X-Github-Event": {"issues"}}
	body := map[string]any{"action": "opened", "events": []any{map[string]any{"type": "task"}}, "n": float64(3)}
	if !matches(m, h, body) {
		t.Fatal("matching delivery refused")
	}
	body["action"] = "closed"
	if matches(m, h, body) {
		t.Fatal("other action matched")
	}
	body["action"] = "opened"
	if matches(m, http.Header{"X-Github-Event": {"push"}}, body) {
		t.Fatal("other header matched")
	}
}

func TestDeliveryID_HeaderOrSignedBodyField(t *testing.T) {
	t.Parallel()
	h := http.Header{}
	h.Set("X-GitHub-Delivery", " 72d3162e ")
	sw := http.Header{}
	sw.Set("Webhook-Id", "msg_1")
	for _, c := range []struct {
		scheme string
		h      http.Header
		body   any
		want   string
		signed bool
	}{
		{"github_hmac_sha256", h, nil, "72d3162e", false},
		{"github_hmac_sha256", http.Header{}, map[string]any{"id": "x"}, "", false},
		{"standard_webhooks", sw, nil, "msg_1", true},
		{"stripe", http.Header{}, map[string]any{"id": "evt_1"}, "evt_1", true},
		{"pagerduty_v1", http.Header{}, map[string]any{"event": map[string]any{"id": "01D"}}, "01D", true},
		{"stripe", http.Header{}, map[string]any{"id": 5.0}, "", false},
		{"zoom", h, map[string]any{"id": "z"}, "", false},
		{"slack_v0", http.Header{}, map[string]any{"event_id": string(make([]byte, 201))}, "", false},
	} {
		if got, signed := deliveryID(c.scheme, c.h, c.body); got != c.want || signed != c.signed {
			t.Errorf("%s %v %v: %q %v, want %q %v", c.scheme, c.h, c.body, got, signed, c.want, c.signed)
		}
	}
}
