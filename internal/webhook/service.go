package webhook

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"slices"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// The event kinds: trigger.fired (docs/triggers.md) and
// approval.requested (docs/policies.md).
const (
	EventTriggerFired      = "trigger.fired"
	EventApprovalRequested = "approval.requested"
)

// PurposeSecret binds a sealed webhook secret to its row.
const PurposeSecret = "webhook.secret"

// Service manages a project's webhook endpoints.
type Service struct {
	store   *store.Store
	keyring *secret.Keyring
	// allowHTTPLoopback lets development point a webhook at http://localhost.
	allowHTTPLoopback bool
	notify            func()
	allowed           func(netip.Addr) bool
	lookup            func(ctx context.Context, host string) ([]netip.Addr, error)
}

// ServiceOptions configure a Service.
type ServiceOptions struct {
	Store   *store.Store
	Keyring *secret.Keyring
	// AllowHTTPLoopback lets endpoints be plain http on loopback, for development.
	AllowHTTPLoopback bool
	// Notify (may be nil) wakes the local worker when deliveries are enqueued.
	Notify func()
	// AllowedFunc reports whether deliveries may reach an address: the
	// outbound guard's rule for webhooks. Every address an endpoint's host
	// resolves to must pass at registration.
	AllowedFunc func(netip.Addr) bool
	// LookupFunc resolves a host name; nil uses the system resolver.
	LookupFunc func(ctx context.Context, host string) ([]netip.Addr, error)
}

// NewService returns a Service.
func NewService(o ServiceOptions) *Service {
	if o.Notify == nil {
		o.Notify = func() {}
	}
	if o.AllowedFunc == nil {
		o.AllowedFunc = netguard.New(netguard.Options{AllowLoopback: o.AllowHTTPLoopback}).Allowed
	}
	if o.LookupFunc == nil {
		o.LookupFunc = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	return &Service{store: o.Store, keyring: o.Keyring, allowHTTPLoopback: o.AllowHTTPLoopback, notify: o.Notify,
		allowed: o.AllowedFunc, lookup: o.LookupFunc}
}

// Created is a new webhook with its signing secret, shown this once.
type Created struct {
	store.Webhook
	Secret string
}

// Create registers an endpoint. URLs must be https; plain http only to a
// loopback host and only when configuration allows it.
func (s *Service) Create(ctx context.Context, projectID, rawURL string, events []string, description string) (Created, error) {
	var issues apierr.Issues
	u, err := url.Parse(rawURL)
	switch {
	case rawURL == "":
		issues.Add(apierr.IssueRequired, []any{"url"}, "is required")
	case err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http"):
		issues.Add(apierr.IssueInvalidValue, []any{"url"}, "must be an absolute https URL")
	case u.Scheme == "http" && !(s.allowHTTPLoopback && isLoopback(u.Hostname())):
		issues.Add(apierr.IssueInvalidValue, []any{"url"}, "must use https (plain http is allowed only to loopback, when the server allows it for development)")
	case u.User != nil:
		issues.Add(apierr.IssueInvalidValue, []any{"url"}, "must not carry credentials")
	default:
		if msg := s.checkHost(ctx, u.Hostname()); msg != "" {
			issues.Add(apierr.IssueInvalidValue, []any{"url"}, "%s", msg)
		}
	}
	if events == nil {
		events = []string{EventTriggerFired}
	}
	if len(events) == 0 {
		issues.Add(apierr.IssueTooSmall, []any{"events"}, "must name at least one event")
	}
	for i, e := range events {
		if e != EventTriggerFired && e != EventApprovalRequested {
			issues.Add(apierr.IssueInvalidValue, []any{"events", i}, "%q is not an event; they are trigger.fired and approval.requested", e)
		}
	}
	if len(description) > 500 {
		issues.Add(apierr.IssueTooBig, []any{"description"}, "must be at most 500 characters")
	}
	if err := issues.Err(); err != nil {
		return Created{}, err
	}
	raw := make([]byte, 24)
	if _, err := rand.Read(raw); err != nil {
		return Created{}, err
	}
	plain := SecretPrefix + base64.StdEncoding.EncodeToString(raw)
	w := store.Webhook{ID: store.NewID(), ProjectID: projectID, URL: rawURL, Events: slices.Compact(events), Description: description}
	if w.Secret, err = s.keyring.Seal([]byte(plain), secret.AAD(PurposeSecret, w.ID)); err != nil {
		return Created{}, err
	}
	w, err = s.store.CreateWebhook(ctx, w)
	if err != nil {
		return Created{}, err
	}
	return Created{Webhook: w, Secret: plain}, nil
}

// lookupTimeout bounds the DNS lookup of an endpoint's host at registration.
const lookupTimeout = 5 * time.Second

// checkHost resolves an endpoint's host and returns what is wrong with it,
// or "". The message names the host the caller gave, never what it
// resolved to: internal DNS answers are not the caller's business.
func (s *Service) checkHost(ctx context.Context, host string) string {
	if a, err := netip.ParseAddr(host); err == nil {
		if !s.allowed(a) {
			return "must not point to a private, loopback, link-local or reserved address; use a public host"
		}
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, lookupTimeout)
	defer cancel()
	addrs, err := s.lookup(ctx, host)
	if err != nil || len(addrs) == 0 {
		return fmt.Sprintf("host %q does not resolve; give a host name with a public DNS record", host)
	}
	for _, a := range addrs {
		if !s.allowed(a) {
			return fmt.Sprintf("host %q resolves to a private, loopback, link-local or reserved address, which deliveries may not reach; use a public host", host)
		}
	}
	return ""
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// Get returns a project's webhook; unknown is 404 NOT_FOUND.
func (s *Service) Get(ctx context.Context, projectID, id string) (store.Webhook, error) {
	w, err := s.store.GetWebhook(ctx, projectID, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Webhook{}, apierr.New(apierr.NotFound, "no webhook %s in this project", id)
	}
	return w, err
}

// Delete removes a webhook and its delivery log.
func (s *Service) Delete(ctx context.Context, projectID, id string) error {
	err := s.store.DeleteWebhook(ctx, projectID, id)
	if errors.Is(err, store.ErrNotFound) {
		return apierr.New(apierr.NotFound, "no webhook %s in this project", id)
	}
	return err
}

// Retry queues a delivery again now.
func (s *Service) Retry(ctx context.Context, projectID, webhookID, deliveryID string) error {
	err := s.store.RetryDelivery(ctx, projectID, webhookID, deliveryID)
	if errors.Is(err, store.ErrNotFound) {
		return apierr.New(apierr.NotFound, "no delivery %s of webhook %s", deliveryID, webhookID)
	}
	if err == nil {
		s.notify()
	}
	return err
}

// Deliveries returns a webhook's recent deliveries.
func (s *Service) Deliveries(ctx context.Context, projectID, webhookID string) ([]store.Delivery, error) {
	if _, err := s.Get(ctx, projectID, webhookID); err != nil {
		return nil, err
	}
	return s.store.ListDeliveries(ctx, projectID, webhookID, 100)
}

// openSecret opens a webhook's signing secret.
func openSecret(ring *secret.Keyring, w store.Webhook) (string, error) {
	plain, err := ring.Open(w.Secret, secret.AAD(PurposeSecret, w.ID))
	return string(plain), err
}

// Schedule is the retry back-off (docs/triggers.md): the wait before
// attempt 2, 3, … (jitter is added).
var Schedule = []time.Duration{5 * time.Second, 5 * time.Minute, 30 * time.Minute, 2 * time.Hour, 5 * time.Hour, 10 * time.Hour, 10 * time.Hour}
