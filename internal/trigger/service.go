// Package trigger turns verified provider webhooks into trigger.fired
// deliveries: trigger setup (manual, or automatic through the provider's
// API), ingress verification per provider scheme, event matching, rate
// limiting, and enqueueing deliveries in the same transaction.
package trigger

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/execute"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/telemetry"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// PurposeSecret binds a sealed trigger secret to its row.
const PurposeSecret = "trigger.secret"

// MaxSecretLen bounds a manual trigger secret (docs/README.md, "Limits").
const MaxSecretLen = 512

// Setups of a trigger.
const (
	SetupManual    = "manual"
	SetupAutomatic = "automatic"
	// SetupPoll is a poll trigger: Switchboard calls the provider's list
	// endpoint on a schedule (Poller).
	SetupPoll = "poll"
)

// Options configure a Service.
type Options struct {
	Store    *store.Store
	Keyring  *secret.Keyring
	Catalog  *catalog.Catalog
	Executor *execute.Executor
	Logger   *slog.Logger
	// BaseURL is {base_url}; ingress URLs are BaseURL/api/triggers/<token>.
	BaseURL string
	// Notify wakes the local delivery worker after an enqueue.
	Notify func()
	Now    func() time.Time
	// Metrics counts ingress deliveries by result and reason; nil counts
	// nothing.
	Metrics *telemetry.Metrics
}

// Service sets up triggers and runs ingress.
type Service struct {
	Options
	unverified unverifiedLimiter
}

// NewService returns a Service.
func NewService(o Options) *Service {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Notify == nil {
		o.Notify = func() {}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Service{Options: o}
}

// CreateRequest is the body of POST /v1/triggers.
type CreateRequest struct {
	ConnectionID string
	Event        string
	Secret       *string
	Config       map[string]any
}

// Created is a new trigger; URL is set for manual setup only.
type Created struct {
	store.Trigger
	URL string
}

func newToken() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return base64.RawURLEncoding.EncodeToString(b[:]), nil
}

// Create subscribes a connection to one event: manually (the caller gives
// the provider's signing secret and gets our URL to enter), or automatically
// through the provider's webhook API where the definition supports it.
func (s *Service) Create(ctx context.Context, tn tenant.Tenant, r CreateRequest) (Created, error) {
	if err := tn.Check(); err != nil {
		return Created{}, err
	}
	projectID := tn.ProjectID
	var issues apierr.Issues
	if r.ConnectionID == "" {
		issues.Add(apierr.IssueRequired, []any{"connectionId"}, "is required")
	}
	account.CheckConnectionID(r.ConnectionID, "connectionId", &issues)
	if r.Event == "" {
		issues.Add(apierr.IssueRequired, []any{"event"}, "is required: a trigger id from the public catalog detail")
	}
	if r.Secret != nil && (*r.Secret == "" || utf8.RuneCountInString(*r.Secret) > MaxSecretLen) {
		issues.Add(apierr.IssueInvalidValue, []any{"secret"}, "must be 1 to %d characters", MaxSecretLen)
	}
	if err := issues.Err(); err != nil {
		return Created{}, err
	}
	conn, err := s.Store.GetConnection(ctx, projectID, r.ConnectionID)
	if errors.Is(err, store.ErrNotFound) {
		return Created{}, apierr.New(apierr.ConnectionNotFound, "no connection %s in this project", r.ConnectionID).WithStatus(400)
	}
	if err != nil {
		return Created{}, err
	}
	def, ok := s.Catalog.Trigger(r.Event)
	if !ok || def.Connector().ID != conn.ConnectorID {
		return Created{}, apierr.Validation(apierr.Issue{Code: apierr.IssueInvalidValue, Path: []any{"event"},
			Message: fmt.Sprintf("%q is not a trigger of %s; GET /api/catalog/%s lists them", r.Event, conn.ConnectorID, conn.ConnectorID)})
	}
	if err := def.ValidateConfig(r.Config); err != nil {
		return Created{}, apierr.Validation(execute.SchemaIssues(err, "config")...)
	}
	config, _ := json.Marshal(r.Config)
	if r.Config == nil {
		config = []byte("{}")
	}
	token, err := newToken()
	if err != nil {
		return Created{}, err
	}
	t := store.Trigger{ID: store.NewID(), ProjectID: projectID, ConnectionID: conn.ID, ConnectorID: conn.ConnectorID, Event: def.ID,
		TokenHash: apikey.Hash(token), Config: config, UserID: conn.UserID}
	ingressURL := s.BaseURL + "/api/triggers/" + token

	if def.Polled() {
		// Switchboard calls the provider; nothing is set up there, and the
		// ingress token is never shown.
		if r.Secret != nil {
			return Created{}, apierr.Validation(apierr.Issue{Code: apierr.IssueInvalidValue, Path: []any{"secret"},
				Message: def.ID + " is polled by Switchboard; leave out the secret"})
		}
		t.Setup = SetupPoll
		created, err := s.Store.CreatePollTrigger(ctx, t, initialCursor(def, s.Now()))
		if err != nil {
			return Created{}, err
		}
		return Created{Trigger: created}, nil
	}
	if r.Secret != nil {
		if !def.Setup.Manual {
			return Created{}, apierr.Validation(apierr.Issue{Code: apierr.IssueInvalidValue, Path: []any{"secret"},
				Message: def.ID + " is set up automatically; leave out the secret"})
		}
		t.Setup = SetupManual
		if t.Secret, err = s.seal(t.ID, *r.Secret); err != nil {
			return Created{}, err
		}
		created, err := s.Store.CreateTrigger(ctx, t)
		if err != nil {
			return Created{}, err
		}
		return Created{Trigger: created, URL: ingressURL}, nil
	}
	if def.Setup.Register == nil {
		return Created{}, apierr.Validation(apierr.Issue{Code: apierr.IssueRequired, Path: []any{"secret"},
			Message: def.ID + " needs manual setup: give the provider's signing secret as secret, then enter the returned url in the provider's settings"})
	}
	var sb [24]byte
	_, _ = rand.Read(sb[:])
	ourSecret := hex.EncodeToString(sb[:])
	vars := map[string]string{"url": ingressURL, "secret": ourSecret}
	for k, v := range r.Config {
		vars[k] = configText(v)
	}
	reg := def.Setup.Register
	path, err := fillPath(reg.Path, vars)
	if err != nil {
		return Created{}, err
	}
	res, err := s.Executor.CallAPI(ctx, tn, conn.ID, reg.Method, path, fillBody(reg.Body, vars), reg.BodyType == "form")
	if err != nil {
		return Created{}, err
	}
	t.Setup = SetupAutomatic
	t.HookID = fmt.Sprint(catalog.SelectPath(res, reg.HookID))
	if t.HookID == "" || t.HookID == "<nil>" {
		return Created{}, apierr.New(apierr.ExecutionError, "%s accepted the webhook but its answer has no id at %s", conn.ConnectorID, reg.HookID)
	}
	if reg.Secret != "" {
		if v, ok := catalog.SelectPath(res, reg.Secret).(string); ok && v != "" {
			ourSecret = v
		}
	}
	// Some providers (Asana) hand the secret over in a handshake instead.
	if def.Verification != "asana" || reg.Secret != "" {
		if t.Secret, err = s.seal(t.ID, ourSecret); err != nil {
			return Created{}, err
		}
	}
	created, err := s.Store.CreateTrigger(ctx, t)
	if err != nil {
		return Created{}, err
	}
	return Created{Trigger: created}, nil
}

var placeholder = regexp.MustCompile(`\{([A-Za-z0-9_]+)\}`)

// fillPath fills {name} placeholders of a setup path, escaping each value.
func fillPath(tmpl string, vars map[string]string) (string, error) {
	var missing string
	out := placeholder.ReplaceAllStringFunc(tmpl, func(m string) string {
		name := placeholder.FindStringSubmatch(m)[1]
		v, ok := vars[name]
		if !ok {
			missing = name
		}
		if u, err := url.Parse(v); err == nil && u.Scheme != "" && u.Host != "" {
			// An id given as a URL (Calendly's resource URI): its last segment.
			v = v[strings.LastIndex(strings.TrimRight(v, "/"), "/")+1:]
		}
		return url.PathEscape(v)
	})
	if missing != "" {
		return "", apierr.Validation(apierr.Issue{Code: apierr.IssueRequired, Path: []any{"config", missing}, Message: "is required for automatic setup"})
	}
	return out, nil
}

// fillBody replaces "{name}" strings in a setup body; a value that is only
// an unknown placeholder is left out.
func fillBody(v any, vars map[string]string) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, val := range x {
			if s, ok := val.(string); ok {
				if m := placeholder.FindStringSubmatch(s); m != nil && m[0] == s {
					if _, known := vars[m[1]]; !known {
						continue
					}
				}
			}
			out[k] = fillBody(val, vars)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, val := range x {
			out[i] = fillBody(val, vars)
		}
		return out
	case string:
		return placeholder.ReplaceAllStringFunc(x, func(m string) string {
			if v, ok := vars[placeholder.FindStringSubmatch(m)[1]]; ok {
				return v
			}
			return m
		})
	}
	return v
}

func (s *Service) seal(id, secretValue string) ([]byte, error) {
	return s.Keyring.Seal([]byte(secretValue), secret.AAD(PurposeSecret, id))
}

// List returns a project's triggers (of one user when userID is set).
func (s *Service) List(ctx context.Context, projectID, userID string) ([]store.Trigger, error) {
	return s.Store.ListTriggers(ctx, projectID, userID)
}

// Delete removes a trigger; an automatic one's provider webhook is removed
// first, best effort. No secret stays behind.
func (s *Service) Delete(ctx context.Context, tn tenant.Tenant, id string) error {
	if err := tn.Check(); err != nil {
		return err
	}
	projectID := tn.ProjectID
	t, err := s.Store.GetTrigger(ctx, projectID, id)
	if errors.Is(err, store.ErrNotFound) {
		return apierr.New(apierr.NotFound, "no trigger %s in this project", id)
	}
	if err != nil {
		return err
	}
	if def, ok := s.Catalog.Trigger(t.Event); ok && t.Setup == SetupAutomatic && t.HookID != "" && def.Setup.Unregister != nil {
		vars := map[string]string{"hookId": t.HookID}
		var cfg map[string]any
		_ = json.Unmarshal(t.Config, &cfg)
		for k, v := range cfg {
			vars[k] = configText(v)
		}
		if path, err := fillPath(def.Setup.Unregister.Path, vars); err == nil {
			if _, err := s.Executor.CallAPI(ctx, tn, t.ConnectionID, def.Setup.Unregister.Method, path, nil, false); err != nil {
				s.Logger.WarnContext(ctx, "could not remove the provider webhook of a deleted trigger", "trigger_id", t.ID, "error", err.Error())
			}
		}
	}
	err = s.Store.DeleteTrigger(ctx, projectID, id)
	if errors.Is(err, store.ErrNotFound) {
		return apierr.New(apierr.NotFound, "no trigger %s in this project", id)
	}
	return err
}
