package trigger

import (
	"crypto/hmac"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"hash"
	"net/http"
	"net/netip"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-gw/switchboard/internal/webhook"
)

// Tolerance is how far a signed timestamp may be from now.
const Tolerance = 5 * time.Minute

// Delivery is one provider request to the ingress route.
type Delivery struct {
	Method string
	// URL is the public URL the provider called (some schemes sign it).
	URL    string
	Header http.Header
	Body   []byte
	// From is the client's address, for the limit on deliveries that fail
	// verification; the zero Addr is not limited.
	From netip.Addr
}

// Errors of verification; both answer 401, a stale timestamp 400.
var (
	errMissing   = errors.New("the signature header is missing")
	errSignature = errors.New("the signature does not match")
	errStale     = errors.New("the signed timestamp is outside the tolerance")
)

// verifier checks one scheme. It returns the digest that identifies the
// delivery for replay refusal ("" when the scheme has no timestamp, so a
// resend cannot be told from a replay), or an error.
type verifier func(d Delivery, secret string, now time.Time) (digest string, err error)

// verifiers implement every scheme of catalog.Schemes.
var verifiers = map[string]verifier{
	"github_hmac_sha256": prefixedHex("X-Hub-Signature-256", "sha256=", sha256.New),
	"jira_hmac":          prefixedHex("X-Hub-Signature", "sha256=", sha256.New),
	"intercom_hmac_sha1": prefixedHex("X-Hub-Signature", "sha1=", sha1.New),
	"linear_hmac":        prefixedHex("Linear-Signature", "", sha256.New),
	"sentry":             prefixedHex("Sentry-Hook-Signature", "", sha256.New),
	"clickup":            prefixedHex("X-Signature", "", sha256.New),
	"asana":              prefixedHex("X-Hook-Signature", "", sha256.New),
	"shopify_hmac":       bodyBase64("X-Shopify-Hmac-Sha256"),
	"gitlab_token":       gitlabToken,
	"slack_v0":           versionedTimestamp("X-Slack-Signature", "X-Slack-Request-Timestamp"),
	"zoom":               versionedTimestamp("X-Zm-Signature", "X-Zm-Request-Timestamp"),
	"stripe":             tAndV1("Stripe-Signature"),
	"calendly":           tAndV1("Calendly-Webhook-Signature"),
	"pagerduty_v1":       pagerDuty,
	"zendesk":            zendesk,
	"square":             square,
	"hubspot_v3":         hubspotV3,
	"twilio":             twilio,
	"standard_webhooks":  standardWebhooks,
}

func mac(h func() hash.Hash, key string, parts ...[]byte) []byte {
	m := hmac.New(h, []byte(key))
	for _, p := range parts {
		m.Write(p)
	}
	return m.Sum(nil)
}

// equalHex compares a hex signature in constant time.
func equalHex(got string, want []byte) bool {
	raw, err := hex.DecodeString(strings.TrimSpace(got))
	return err == nil && hmac.Equal(raw, want)
}

func equalBase64(got string, want []byte) bool {
	raw, err := base64.StdEncoding.DecodeString(strings.TrimSpace(got))
	return err == nil && hmac.Equal(raw, want)
}

// prefixedHex: header = prefix + hex(HMAC(secret, body)).
func prefixedHex(header, prefix string, h func() hash.Hash) verifier {
	return func(d Delivery, secret string, _ time.Time) (string, error) {
		got := d.Header.Get(header)
		if got == "" {
			return "", errMissing
		}
		if !strings.HasPrefix(got, prefix) || !equalHex(strings.TrimPrefix(got, prefix), mac(h, secret, d.Body)) {
			return "", errSignature
		}
		return "", nil
	}
}

// bodyBase64: header = base64(HMAC-SHA256(secret, body)).
func bodyBase64(header string) verifier {
	return func(d Delivery, secret string, _ time.Time) (string, error) {
		got := d.Header.Get(header)
		if got == "" {
			return "", errMissing
		}
		if !equalBase64(got, mac(sha256.New, secret, d.Body)) {
			return "", errSignature
		}
		return "", nil
	}
}

func gitlabToken(d Delivery, secret string, _ time.Time) (string, error) {
	got := d.Header.Get("X-Gitlab-Token")
	if got == "" {
		return "", errMissing
	}
	if !hmac.Equal([]byte(got), []byte(secret)) {
		return "", errSignature
	}
	return "", nil
}

// fresh checks a Unix timestamp (seconds) against the tolerance.
func fresh(ts string, now time.Time) error {
	n, err := strconv.ParseInt(strings.TrimSpace(ts), 10, 64)
	if err != nil {
		return errStale
	}
	if d := now.Sub(time.Unix(n, 0)); d > Tolerance || d < -Tolerance {
		return errStale
	}
	return nil
}

// versionedTimestamp: sig = "v0=" + hex(HMAC(secret, "v0:" + ts + ":" + body)) (Slack, Zoom).
func versionedTimestamp(sigHeader, tsHeader string) verifier {
	return func(d Delivery, secret string, now time.Time) (string, error) {
		got, ts := d.Header.Get(sigHeader), d.Header.Get(tsHeader)
		if got == "" || ts == "" {
			return "", errMissing
		}
		if err := fresh(ts, now); err != nil {
			return "", err
		}
		if !strings.HasPrefix(got, "v0=") || !equalHex(strings.TrimPrefix(got, "v0="), mac(sha256.New, secret, []byte("v0:"+ts+":"), d.Body)) {
			return "", errSignature
		}
		return digestOf(got), nil
	}
}

// tAndV1: header "t=<ts>,v1=<hex>[,v1=…]" over ts + "." + body (Stripe, Calendly).
func tAndV1(header string) verifier {
	return func(d Delivery, secret string, now time.Time) (string, error) {
		got := d.Header.Get(header)
		if got == "" {
			return "", errMissing
		}
		var ts string
		var sigs []string
		for _, part := range strings.Split(got, ",") {
			k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
			switch k {
			case "t":
				ts = v
			case "v1":
				sigs = append(sigs, v)
			}
		}
		if ts == "" || len(sigs) == 0 {
			return "", errSignature
		}
		if err := fresh(ts, now); err != nil {
			return "", err
		}
		want := mac(sha256.New, secret, []byte(ts+"."), d.Body)
		for _, s := range sigs {
			if equalHex(s, want) {
				return digestOf(got), nil
			}
		}
		return "", errSignature
	}
}

func pagerDuty(d Delivery, secret string, _ time.Time) (string, error) {
	got := d.Header.Get("X-PagerDuty-Signature")
	if got == "" {
		return "", errMissing
	}
	want := mac(sha256.New, secret, d.Body)
	for _, s := range strings.Split(got, ",") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(s), "v1="); ok && equalHex(v, want) {
			return "", nil
		}
	}
	return "", errSignature
}

func zendesk(d Delivery, secret string, _ time.Time) (string, error) {
	got, ts := d.Header.Get("X-Zendesk-Webhook-Signature"), d.Header.Get("X-Zendesk-Webhook-Signature-Timestamp")
	if got == "" || ts == "" {
		return "", errMissing
	}
	if !equalBase64(got, mac(sha256.New, secret, []byte(ts), d.Body)) {
		return "", errSignature
	}
	return digestOf(got), nil
}

// square signs the notification URL followed by the body.
func square(d Delivery, secret string, _ time.Time) (string, error) {
	got := d.Header.Get("X-Square-Hmacsha256-Signature")
	if got == "" {
		return "", errMissing
	}
	if !equalBase64(got, mac(sha256.New, secret, []byte(d.URL), d.Body)) {
		return "", errSignature
	}
	return "", nil
}

// hubspotV3 signs method + URL + body + timestamp (milliseconds).
func hubspotV3(d Delivery, secret string, now time.Time) (string, error) {
	got, ts := d.Header.Get("X-HubSpot-Signature-v3"), d.Header.Get("X-HubSpot-Request-Timestamp")
	if got == "" || ts == "" {
		return "", errMissing
	}
	ms, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return "", errStale
	}
	if diff := now.Sub(time.UnixMilli(ms)); diff > Tolerance || diff < -Tolerance {
		return "", errStale
	}
	if !equalBase64(got, mac(sha256.New, secret, []byte(d.Method+d.URL), d.Body, []byte(ts))) {
		return "", errSignature
	}
	return digestOf(got), nil
}

// twilio signs the URL followed by the sorted form parameters, with SHA-1.
func twilio(d Delivery, secret string, _ time.Time) (string, error) {
	got := d.Header.Get("X-Twilio-Signature")
	if got == "" {
		return "", errMissing
	}
	form, err := url.ParseQuery(string(d.Body))
	if err != nil {
		// ParseQuery skips a malformed pair, which the signature would then
		// not cover: a body that is not a clean form is not Twilio's.
		return "", errSignature
	}
	keys := make([]string, 0, len(form))
	for k := range form {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	b.WriteString(d.URL)
	for _, k := range keys {
		// Twilio's own validators sort a repeated parameter's values too.
		vs := form[k]
		sort.Strings(vs)
		for _, v := range vs {
			b.WriteString(k)
			b.WriteString(v)
		}
	}
	if !equalBase64(got, mac(sha1.New, secret, []byte(b.String()))) {
		return "", errSignature
	}
	return "", nil
}

func standardWebhooks(d Delivery, secret string, now time.Time) (string, error) {
	id, ts, sig := d.Header.Get("Webhook-Id"), d.Header.Get("Webhook-Timestamp"), d.Header.Get("Webhook-Signature")
	if id == "" || ts == "" || sig == "" {
		return "", errMissing
	}
	if err := fresh(ts, now); err != nil {
		return "", err
	}
	n, _ := strconv.ParseInt(strings.TrimSpace(ts), 10, 64)
	if !webhook.Verify(secret, id, n, d.Body, sig) {
		return "", errSignature
	}
	return digestOf(id), nil
}

func digestOf(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:16])
}
