package policy

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/lru"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// DefaultApprovalTTL is how long an approval waits for a decision, and an
// approved call for its retry.
const DefaultApprovalTTL = 15 * time.Minute

// maxCachedSets bounds the cache of compiled rule sets (one per project).
const maxCachedSets = 4096

// Options configure a Service.
type Options struct {
	Store *store.Store
	// BaseURL is {base_url}, for an approval's API URL; WebURL is
	// {web_url}, for the approver link's page.
	BaseURL string
	WebURL  string
	// ApprovalTTL defaults to DefaultApprovalTTL.
	ApprovalTTL time.Duration
	// Notify (may be nil) wakes the webhook worker after an
	// approval.requested event was enqueued.
	Notify func()
	Logger *slog.Logger
	Now    func() time.Time
}

// Service holds a project's rules in memory and its approvals.
type Service struct {
	store   *store.Store
	baseURL string
	webURL  string
	ttl     time.Duration
	notify  func()
	log     *slog.Logger
	now     func() time.Time
	sets    *lru.Cache[string, cachedSet]
}

type cachedSet struct {
	version int64
	set     *Set
}

// NewService returns a Service.
func NewService(o Options) *Service {
	s := &Service{store: o.Store, baseURL: strings.TrimRight(o.BaseURL, "/"), webURL: strings.TrimRight(o.WebURL, "/"),
		ttl: o.ApprovalTTL, notify: o.Notify, log: o.Logger, now: o.Now, sets: lru.New[string, cachedSet](maxCachedSets)}
	if s.ttl <= 0 {
		s.ttl = DefaultApprovalTTL
	}
	if s.notify == nil {
		s.notify = func() {}
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.now == nil {
		s.now = time.Now
	}
	if s.webURL == "" {
		s.webURL = s.baseURL
	}
	return s
}

// Set returns the project's compiled rules as of the tenant's policies
// version: from memory while the version has not moved (no database read),
// else read once and kept. A stored rule that no longer compiles (it
// cannot be written so) is logged and left out.
func (s *Service) Set(ctx context.Context, t tenant.Tenant) (*Set, error) {
	if c, ok := s.sets.Get(t.ProjectID); ok && c.version >= t.PoliciesVersion {
		return c.set, nil
	}
	pr, err := s.store.LoadPolicies(ctx, t.ProjectID)
	if err != nil {
		return nil, err
	}
	rules := make([]*Rule, 0, len(pr.Rules))
	for _, p := range pr.Rules {
		r, err := compileStored(p)
		if err != nil {
			s.log.ErrorContext(ctx, "a stored policy rule does not compile; it is left out", "policy_id", p.ID, "error", err.Error())
			continue
		}
		rules = append(rules, r)
	}
	set := NewSet(Decision(pr.Default), rules)
	if c, ok := s.sets.Get(t.ProjectID); !ok || c.version < pr.Version {
		s.sets.Put(t.ProjectID, cachedSet{version: pr.Version, set: set})
	}
	return set, nil
}

func compileStored(p store.PolicyRule) (*Rule, error) {
	var sp Spec
	d := json.NewDecoder(strings.NewReader(string(p.Spec)))
	d.UseNumber()
	if err := d.Decode(&sp); err != nil {
		return nil, err
	}
	return Compile(p.ID, p.Endpoint, sp)
}

// Call is what Check decides about.
type Call struct {
	Subject Subject
	UserID  string
	// Endpoint is the slug of the MCP endpoint the call came through.
	Endpoint string
	// SessionID is the session (or "endpoint:<slug>") the call runs in.
	SessionID string
	// SessionRules are the session's own rules.
	SessionRules []*Rule
	APIKeyID     string
	// Logged says the call's execution log record will be written: an
	// approval.requested delivery then names it, by the LogID the decision
	// returns.
	Logged bool
}

// Record is a decision as the execution log shows it.
type Record struct {
	Decision Decision `json:"decision"`
	RuleID   string   `json:"ruleId,omitempty"`
	Level    string   `json:"level,omitempty"`
	// ApprovalID, Approver and Latency are set when an approved call ran:
	// who approved it and how long after it was asked.
	ApprovalID string        `json:"approvalId,omitempty"`
	Approver   string        `json:"approver,omitempty"`
	Latency    time.Duration `json:"latency,omitempty"`
	// LogID is the id the deliveries of an approval this decision created
	// gave the call's log record (Call.Logged); the record must be written
	// under it.
	LogID string `json:"-"`
}

// ApprovalRequiredError is the answer to a call an ask rule holds: the
// pending approval. Direct execute answers it with 202, a session with the
// refusal approval_required.
type ApprovalRequiredError struct {
	Approval View
	// ClientApproval is true when the person at an MCP client of the
	// call's session may approve in place.
	ClientApproval bool
}

func (e *ApprovalRequiredError) Error() string {
	return fmt.Sprintf("policy: call held for approval %s", e.Approval.ID)
}

// Check decides a call. Allow is (record, nil); deny is POLICY_DENIED;
// ask spends a matching approved approval (the call then runs, once), or
// answers an *ApprovalRequiredError with the pending approval (created
// here, with its approval.requested event), or APPROVAL_DENIED while a
// denial of the same call stands.
func (s *Service) Check(ctx context.Context, t tenant.Tenant, c Call) (Record, error) {
	set, err := s.Set(ctx, t)
	if err != nil {
		return Record{}, err
	}
	if set.Empty() && len(c.SessionRules) == 0 {
		return Record{Decision: Allow}, nil
	}
	v := set.Evaluate(c.Subject, c.Endpoint, c.SessionRules)
	rec := Record{Decision: v.Decision, Level: v.Level}
	if v.Rule != nil {
		rec.RuleID = v.Rule.ID
	}
	what := callName(c.Subject)
	switch v.Decision {
	case Allow:
		return rec, nil
	case Deny:
		if v.Rule == nil {
			return rec, apierr.New(apierr.PolicyDenied, "%s is denied: this project denies what no policy rule allows", what)
		}
		return rec, apierr.New(apierr.PolicyDenied, "%s is denied by policy rule %s (%s level)", what, v.Rule.ID, v.Level)
	}
	return s.ask(ctx, t, c, v, rec)
}

// callName names a call in messages.
func callName(sub Subject) string {
	if sub.ToolID == "" {
		return "a proxy call to " + sub.ConnectorID
	}
	return sub.ToolID
}

// ToolKey is what an approval names the call by: the tool id, or
// proxy:<connector> for a raw proxy call.
func ToolKey(sub Subject) string {
	if sub.ToolID == "" {
		return "proxy:" + sub.ConnectorID
	}
	return sub.ToolID
}

func (s *Service) ask(ctx context.Context, t tenant.Tenant, c Call, v Verdict, rec Record) (Record, error) {
	input, hash, err := Canonical(c.Subject.Input)
	if err != nil {
		return rec, err
	}
	key := ToolKey(c.Subject)
	now := s.now()
	a, err := s.store.LatestApproval(ctx, t.ProjectID, c.UserID, key, hash)
	switch {
	case errors.Is(err, store.ErrNotFound):
	case err != nil:
		return rec, err
	default:
		switch a.StatusAt(now) {
		case store.ApprovalApproved:
			ok, err := s.store.UseApproval(ctx, t.ProjectID, a.ID)
			if err != nil {
				return rec, err
			}
			if ok {
				rec.ApprovalID, rec.Approver = a.ID, a.DecidedBy
				if a.DecidedAt != nil {
					rec.Latency = a.DecidedAt.Sub(a.CreatedAt)
				}
				return rec, nil
			}
			// Another call spent it first: this one needs its own.
		case store.ApprovalPending:
			return rec, &ApprovalRequiredError{Approval: s.View(a), ClientApproval: a.ClientOK}
		case store.ApprovalDenied:
			if now.Before(a.ExpiresAt) {
				return rec, apierr.New(apierr.ApprovalDenied, "%s with this input was denied by %s (approval %s); do not retry it", callName(c.Subject), a.DecidedBy, a.ID)
			}
		}
	}
	a, rec.LogID, err = s.create(ctx, t, c, v, key, input, hash)
	if err != nil {
		return rec, err
	}
	return rec, &ApprovalRequiredError{Approval: s.View(a), ClientApproval: a.ClientOK}
}

// Canonical returns the canonical JSON of an input (members sorted, no
// spaces, numbers as written) and its SHA-256 in hex.
func Canonical(input map[string]any) ([]byte, string, error) {
	if input == nil {
		input = map[string]any{}
	}
	b, err := json.Marshal(input)
	if err != nil {
		return nil, "", fmt.Errorf("policy: canonical input: %w", err)
	}
	return b, sha256Hex(b), nil
}
