package trigger

import (
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/webhook"
)

// fuzzHeaders are every header some scheme reads; the fuzzer's signature,
// timestamp and id values are put in all of them.
var (
	fuzzSigHeaders = []string{"X-Hub-Signature-256", "X-Hub-Signature", "Linear-Signature", "Sentry-Hook-Signature",
		"X-Signature", "X-Hook-Signature", "X-Shopify-Hmac-Sha256", "X-Gitlab-Token", "X-Slack-Signature", "X-Zm-Signature",
		"Stripe-Signature", "Calendly-Webhook-Signature", "X-PagerDuty-Signature", "X-Zendesk-Webhook-Signature",
		"X-Square-Hmacsha256-Signature", "X-HubSpot-Signature-v3", "X-Twilio-Signature", "Webhook-Signature"}
	fuzzTSHeaders = []string{"X-Slack-Request-Timestamp", "X-Zm-Request-Timestamp", "X-Zendesk-Webhook-Signature-Timestamp",
		"X-HubSpot-Request-Timestamp", "Webhook-Timestamp"}
)

// FuzzVerifySignature feeds every scheme arbitrary headers, bodies, URLs
// and secrets. A verifier must never panic; whatever it accepts must depend
// on the secret (another secret refuses it); and a delivery signed the
// provider's way must verify, and stop verifying once its body changes.
func FuzzVerifySignature(f *testing.F) {
	for i := range catalog.Schemes {
		f.Add(uint8(i), "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", []byte(body), "sha256=00", "1800000000", "msg_1", "https://sb.example/api/triggers/tok")
		f.Add(uint8(i), "", []byte("From=%2B1&Body=hi"), "t=1800000000,v1=00,v1=", "", "", "")
		f.Add(uint8(i), "s", []byte{}, "v0=zz", "1800000000000", " ", "?")
	}
	f.Fuzz(func(t *testing.T, n uint8, secret string, payload []byte, sig, ts, id, url string) {
		scheme := catalog.Schemes[int(n)%len(catalog.Schemes)]
		v := verifiers[scheme]
		other := secret + "x"

		// Arbitrary input: never a panic, and never accepted regardless of the secret.
		d := Delivery{Method: "POST", URL: url, Header: http.Header{}, Body: payload}
		for _, h := range fuzzSigHeaders {
			d.Header.Set(h, sig)
		}
		for _, h := range fuzzTSHeaders {
			d.Header.Set(h, ts)
		}
		d.Header.Set("Webhook-Id", id)
		if _, err := v(d, secret, now); err == nil {
			if _, err := v(d, other, now); err == nil {
				t.Fatalf("%s: accepted under two secrets %q and %q: %+v", scheme, secret, other, d)
			}
		}

		// Signed the provider's way: accepted, and refused once changed.
		d = Delivery{Method: "POST", URL: url, Header: http.Header{}, Body: slices.Clone(payload)}
		signers[scheme](&d, secret, now)
		if _, err := v(d, secret, now); err != nil {
			if !signable(scheme, secret, d) {
				return
			}
			t.Fatalf("%s: a delivery signed with %q was refused: %v", scheme, secret, err)
		}
		if _, err := v(d, other, now); err == nil {
			t.Fatalf("%s: a delivery signed with %q verified with %q", scheme, secret, other)
		}
		if scheme == "gitlab_token" {
			return // a shared token, not a signature: the body is not covered
		}
		if len(d.Body) == 0 {
			d.Body = []byte("x")
		} else {
			d.Body[len(d.Body)-1] ^= 1
		}
		if _, err := v(d, secret, now); err == nil {
			t.Fatalf("%s: a changed body %q verified", scheme, d.Body)
		}
	})
}

// signable reports whether a provider could sign this delivery at all, so
// a refusal is expected: Standard Webhooks secrets must be base64, a GitLab
// token and a header value cannot be empty or hold line breaks, and a
// Twilio body must be a form.
func signable(scheme, secret string, d Delivery) bool {
	switch scheme {
	case "standard_webhooks":
		_, err := webhook.Sign(secret, "msg_1", 0, nil)
		return err == nil
	case "gitlab_token":
		return secret != ""
	case "twilio":
		_, err := url.ParseQuery(string(d.Body))
		return err == nil
	}
	return true
}
