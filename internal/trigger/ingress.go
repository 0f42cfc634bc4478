package trigger

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"unicode/utf8"

	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/telemetry"
	"github.com/switchboard-gw/switchboard/internal/webhook"
)

// Limits of trigger ingress (docs/README.md, "Limits").
const (
	MaxBodyBytes = 1_000_000
	MaxPerMinute = 600
)

// Answer is what the ingress route replies: a status and, for a handshake,
// a body; never a JSON error envelope.
type Answer struct {
	Status      int
	Body        string
	ContentType string
	Header      map[string]string
	// reason says why, for the ingress metric (the Reason constants).
	reason string
}

func status(code int, reason string) Answer { return Answer{Status: code, reason: reason} }

// Ingress handles one provider delivery to /api/triggers/<token> (the body
// already read, no more than MaxBodyBytes).
//
// Only verified deliveries count against the trigger's limit
// (docs/README.md, "Limits"), so unsigned posts cannot use it up; deliveries that fail are counted
// per client address instead (see unverifiedLimiter). A delivery whose
// provider id was already processed is acknowledged with 200 and fires
// nothing, so a provider's retry stops and a resend has no effect.
func (s *Service) Ingress(ctx context.Context, token string, d Delivery) (Answer, error) {
	a, err := s.ingress(ctx, token, d)
	if s.Metrics != nil {
		switch {
		case err != nil:
			s.Metrics.TriggerIngress(telemetry.IngressRejected, ReasonError)
		case a.Status == http.StatusTooManyRequests:
			s.Metrics.TriggerIngress(telemetry.IngressLimited, a.reason)
		case a.Status < 300:
			s.Metrics.TriggerIngress(telemetry.IngressAccepted, a.reason)
		default:
			s.Metrics.TriggerIngress(telemetry.IngressRejected, a.reason)
		}
	}
	return a, err
}

// Reasons of ingress answers, the reason label of the ingress metric.
const (
	ReasonFired          = "fired"              // accepted: the trigger fired
	ReasonHandshake      = "handshake"          // accepted: a provider's set-up handshake
	ReasonNotMatched     = "not_matched"        // accepted: verified, not this trigger's event
	ReasonDuplicate      = "duplicate"          // accepted: a provider resent a delivery id already seen
	ReasonUnknownTrigger = "unknown_trigger"    // rejected: no such trigger token
	ReasonNoSecret       = "no_secret"          // rejected: the trigger has no signing secret yet
	ReasonBadSignature   = "bad_signature"      // rejected: the signature did not verify
	ReasonStale          = "stale"              // rejected: the signed timestamp is too old
	ReasonReplayed       = "replayed"           // rejected: a signature seen before
	ReasonSecretLocked   = "secret_unavailable" // 503: the trigger's secret cannot be opened (key ring)
	ReasonError          = "error"              // rejected: a database or other internal failure (503)
	ReasonTriggerLimit   = "trigger_limit"      // 429: the trigger's deliveries per minute
	ReasonClientLimit    = "client_limit"       // 429: failed verifications from one address
)

func (s *Service) ingress(ctx context.Context, token string, d Delivery) (Answer, error) {
	t, err := s.Store.TriggerByToken(ctx, apikey.Hash(token))
	if errors.Is(err, store.ErrNotFound) {
		return s.refuse(d, http.StatusNotFound, ReasonUnknownTrigger), nil
	}
	if err != nil {
		return Answer{}, err
	}
	def, ok := s.Catalog.Trigger(t.Event)
	if !ok {
		return s.refuse(d, http.StatusNotFound, ReasonUnknownTrigger), nil
	}
	// Asana hands the secret over once, in an unsigned handshake, before any event.
	if hs := d.Header.Get("X-Hook-Secret"); hs != "" && def.Verification == "asana" && len(t.Secret) == 0 {
		sealed, err := s.seal(t.ID, hs)
		if err != nil {
			return Answer{}, err
		}
		if err := s.Store.SetTriggerSecret(ctx, t.ID, sealed); err != nil {
			return Answer{}, err
		}
		return Answer{Status: http.StatusOK, Header: map[string]string{"X-Hook-Secret": hs}, reason: ReasonHandshake}, nil
	}
	if len(t.Secret) == 0 {
		return s.refuse(d, http.StatusUnauthorized, ReasonNoSecret), nil
	}
	plain, err := s.Keyring.Open(t.Secret, secret.AAD(PurposeSecret, t.ID))
	if err != nil {
		s.Logger.ErrorContext(ctx, "a trigger secret cannot be opened; the provider will retry", "trigger_id", t.ID)
		return status(http.StatusServiceUnavailable, ReasonSecretLocked), nil
	}
	verify, ok := verifiers[def.Verification]
	if !ok {
		return Answer{}, fmt.Errorf("trigger: no verifier for scheme %s", def.Verification)
	}
	digest, err := verify(d, string(plain), s.Now())
	switch {
	case errors.Is(err, errStale):
		return s.refuse(d, http.StatusBadRequest, ReasonStale), nil
	case err != nil:
		return s.refuse(d, http.StatusUnauthorized, ReasonBadSignature), nil
	}
	hits, err := s.Store.CountTriggerHit(ctx, t.ID)
	if err != nil {
		return Answer{}, err
	}
	if hits > MaxPerMinute {
		return tooMany(ReasonTriggerLimit), nil
	}
	body, isJSON := decode(d)
	if a, ok := handshake(def, body, string(plain)); ok {
		a.reason = ReasonHandshake
		return a, nil
	}
	if !matches(def.Match, d.Header, body) {
		return status(http.StatusOK, ReasonNotMatched), nil // acknowledged, not this trigger's event
	}
	// The provider's delivery id replaces the signature digest, unless the id
	// is an unsigned header and the signature has a digest of its own: a
	// replayer could change such an id, but not the signature.
	id, signed := deliveryID(def.Verification, d.Header, body)
	// The deliveries name the event and the provider's id of this delivery
	// (signed or not: it is what the provider's own delivery log shows).
	cause := store.EventCause{EventID: newEventID(), ProviderEventID: id}
	if id != "" && !signed && digest != "" {
		id = ""
	}
	if id != "" {
		digest = "id:" + digestOf(id) // kept apart from signature digests by the prefix
	}
	payload := json.RawMessage(d.Body)
	if !isJSON || !utf8.Valid(d.Body) {
		// A form is sent on as JSON; so is a JSON body with invalid UTF-8,
		// re-encoded from its decoded form (invalid bytes become U+FFFD),
		// because PostgreSQL cannot store it as text.
		payload, _ = json.Marshal(body)
	}
	ids, err := s.Store.FireTrigger(ctx, t, digest, webhook.EventTriggerFired, cause, func() ([]byte, error) {
		return firedEvent(t, cause.EventID, s.Now(), payload)
	})
	if errors.Is(err, store.ErrUncounted) {
		// The event is stored and its deliveries queued: only a statistic is off.
		s.Logger.WarnContext(ctx, "a trigger fired but its fire count was not updated", "trigger_id", t.ID, "error", err.Error())
		err = nil
	}
	if errors.Is(err, store.ErrReplayed) {
		if id != "" {
			// The provider resent a delivery it already made: acknowledge it,
			// or it retries for days.
			return status(http.StatusOK, ReasonDuplicate), nil
		}
		return s.refuse(d, http.StatusBadRequest, ReasonReplayed), nil
	}
	if err != nil {
		return Answer{}, err
	}
	if len(ids) > 0 {
		s.Notify()
	}
	return status(http.StatusOK, ReasonFired), nil
}

// refuse answers a delivery that did not verify with code, or with 429 when
// its client address has sent too many such deliveries this minute.
func (s *Service) refuse(d Delivery, code int, reason string) Answer {
	if s.unverified.fail(d.From, s.Now()) {
		return tooMany(ReasonClientLimit)
	}
	return status(code, reason)
}

func tooMany(reason string) Answer {
	return Answer{Status: http.StatusTooManyRequests, Header: map[string]string{"Retry-After": "60"}, reason: reason}
}

// decode reads a delivery body: JSON (isJSON), or a form (Twilio) as an
// object of strings.
func decode(d Delivery) (body any, isJSON bool) {
	var v any
	if json.Unmarshal(d.Body, &v) == nil {
		return v, true
	}
	form, err := url.ParseQuery(string(d.Body))
	if err != nil {
		return nil, false
	}
	out := map[string]any{}
	for k, vs := range form {
		out[k] = vs[0]
	}
	return out, false
}

// handshake answers the URL-verification requests providers send when a
// webhook is set up: Slack's challenge (as text) and Zoom's url_validation.
func handshake(def *catalog.Trigger, body any, secretValue string) (Answer, bool) {
	m, _ := body.(map[string]any)
	if m == nil {
		return Answer{}, false
	}
	switch def.Verification {
	case "slack_v0":
		if m["type"] == "url_verification" {
			c, _ := m["challenge"].(string)
			return Answer{Status: http.StatusOK, Body: c, ContentType: "text/plain; charset=utf-8"}, true
		}
	case "zoom":
		if m["event"] == "endpoint.url_validation" {
			p, _ := m["payload"].(map[string]any)
			plain, _ := p["plainToken"].(string)
			h := hmac.New(sha256.New, []byte(secretValue))
			h.Write([]byte(plain))
			b, _ := json.Marshal(map[string]string{"plainToken": plain, "encryptedToken": hex.EncodeToString(h.Sum(nil))})
			return Answer{Status: http.StatusOK, Body: string(b), ContentType: "application/json"}, true
		}
	}
	return Answer{}, false
}

// matches applies a trigger's selectors: every header equals its value and
// every dotted body path equals its value.
func matches(m catalog.Match, h http.Header, body any) bool {
	for k, v := range m.Headers {
		if h.Get(k) != v {
			return false
		}
	}
	for path, want := range m.Body {
		got := catalog.SelectPath(body, path)
		if got == nil || fmt.Sprint(got) != want {
			return false
		}
	}
	return true
}
