package policy

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/logging"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// EventApprovalRequested is the webhook event of a new approval.
const EventApprovalRequested = "approval.requested"

// View is an approval as the API shows it.
type View struct {
	ID          string          `json:"id"`
	Status      string          `json:"status"`
	URL         string          `json:"url"`
	ToolID      string          `json:"toolId,omitempty"`
	ConnectorID string          `json:"connectorId"`
	Proxy       bool            `json:"proxy,omitempty"`
	UserID      string          `json:"userId"`
	Input       json.RawMessage `json:"input"`
	RuleID      string          `json:"ruleId,omitempty"`
	SessionID   string          `json:"sessionId,omitempty"`
	Endpoint    string          `json:"endpoint,omitempty"`
	APIKeyID    string          `json:"apiKeyId,omitempty"`
	DecidedBy   string          `json:"decidedBy,omitempty"`
	DecidedAt   *time.Time      `json:"decidedAt"`
	UsedAt      *time.Time      `json:"usedAt"`
	CreatedAt   time.Time       `json:"createdAt"`
	ExpiresAt   time.Time       `json:"expiresAt"`
}

// View returns the API view of an approval, its status as of now.
func (s *Service) View(a store.Approval) View {
	v := View{ID: a.ID, Status: a.StatusAt(s.now()), URL: s.baseURL + "/v1/approvals/" + a.ID, ConnectorID: a.ConnectorID,
		UserID: a.UserID, Input: json.RawMessage(a.Input), RuleID: a.RuleID, SessionID: a.SessionID, Endpoint: a.Endpoint, APIKeyID: a.APIKeyID,
		DecidedBy: a.DecidedBy, DecidedAt: a.DecidedAt, UsedAt: a.UsedAt, CreatedAt: a.CreatedAt, ExpiresAt: a.ExpiresAt}
	if len(a.ToolKey) > 6 && a.ToolKey[:6] == "proxy:" {
		v.Proxy = true
	} else {
		v.ToolID = a.ToolKey
	}
	return v
}

// Event is the body of an approval.requested delivery: the approval and
// the single-use link that opens its approve/deny page.
type Event struct {
	Type      string    `json:"type"`
	ID        string    `json:"id"`
	Timestamp time.Time `json:"timestamp"`
	Data      EventData `json:"data"`
}

// EventData is what an approval.requested event carries.
type EventData struct {
	Approval View `json:"approval"`
	// DecisionURL opens a page with approve and deny buttons; it works once
	// and until the approval expires.
	DecisionURL string `json:"decisionUrl"`
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

// newToken returns a random link token and its SHA-256.
func newToken() (string, string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", err
	}
	tok := base64.RawURLEncoding.EncodeToString(b[:])
	return tok, sha256Hex([]byte(tok)), nil
}

// create stores a pending approval of c and enqueues its approval.requested
// deliveries; logID is the id they gave the call's log record (c.Logged).
func (s *Service) create(ctx context.Context, t tenant.Tenant, c Call, v Verdict, key string, input []byte, hash string) (a store.Approval, logID string, err error) {
	tok, tokHash, err := newToken()
	if err != nil {
		return store.Approval{}, "", err
	}
	now := time.UnixMilli(s.now().UnixMilli()).UTC()
	a = store.Approval{ID: store.NewID(), ProjectID: t.ProjectID, ToolKey: key, ConnectorID: c.Subject.ConnectorID,
		UserID: c.UserID, Input: input, InputHash: hash, SessionID: c.SessionID, Endpoint: c.Endpoint, APIKeyID: c.APIKeyID,
		Status: store.ApprovalPending, LinkHash: tokHash, CreatedAt: now, ExpiresAt: now.Add(s.ttl)}
	if v.Rule != nil {
		a.RuleID = v.Rule.ID
		// Only a call made in a session or endpoint has a client to ask.
		a.ClientOK = v.Rule.ClientApproval() && c.SessionID != ""
	}
	// The deliveries name the held call: its log record and its request.
	cause := store.EventCause{RequestID: logging.RequestID(ctx)}
	if c.Logged {
		cause.LogID = store.NewID()
	}
	ids, err := s.store.CreateApproval(ctx, a, EventApprovalRequested, cause, func() ([]byte, error) {
		return json.Marshal(Event{Type: EventApprovalRequested, ID: "evt_" + store.NewID(), Timestamp: now,
			Data: EventData{Approval: s.View(a), DecisionURL: s.webURL + "/approvals/" + tok}})
	})
	if err != nil {
		return store.Approval{}, "", err
	}
	if len(ids) > 0 {
		s.notify()
	}
	return a, cause.LogID, nil
}

// Get returns one of a project's approvals; unknown is 404 NOT_FOUND.
func (s *Service) Get(ctx context.Context, projectID, id string) (View, error) {
	a, err := s.store.GetApproval(ctx, projectID, id)
	if errors.Is(err, store.ErrNotFound) {
		return View{}, apierr.New(apierr.NotFound, "no approval %s in this project", id)
	}
	if err != nil {
		return View{}, err
	}
	return s.View(a), nil
}

// List returns one page of a project's approvals, newest first.
func (s *Service) List(ctx context.Context, projectID string, f store.ApprovalFilter) ([]View, error) {
	list, err := s.store.ListApprovals(ctx, projectID, f)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.Validation(apierr.Issue{Code: apierr.IssueInvalidValue, Path: []any{"cursor"}, Message: "names an approval that no longer exists; start again without it"})
	}
	if err != nil {
		return nil, err
	}
	out := make([]View, len(list))
	for i, a := range list {
		out[i] = s.View(a)
	}
	return out, nil
}

// Decide approves (approve true) or denies a pending approval as by. A
// decided, used or expired approval is 409 CONFLICT: a decision is made
// once.
func (s *Service) Decide(ctx context.Context, projectID, id string, approve bool, by string) (View, error) {
	status := store.ApprovalDenied
	if approve {
		status = store.ApprovalApproved
	}
	a, err := s.store.DecideApproval(ctx, projectID, id, status, by)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return View{}, apierr.New(apierr.NotFound, "no approval %s in this project", id)
	case errors.Is(err, store.ErrConflict):
		cur, gerr := s.store.GetApproval(ctx, projectID, id)
		if gerr != nil {
			return View{}, gerr
		}
		return View{}, apierr.New(apierr.Conflict, "approval %s is %s; a decision is made once, while it is pending", id, cur.StatusAt(s.now()))
	case err != nil:
		return View{}, err
	}
	return s.View(a), nil
}

// ByLink returns the approval an approver link's token opens. An unknown
// or spent token is 404 NOT_FOUND (a spent link forgets its token); an
// expired approval is 410 LINK_EXPIRED.
func (s *Service) ByLink(ctx context.Context, token string) (store.Approval, error) {
	if token == "" || len(token) > 100 {
		return store.Approval{}, apierr.New(apierr.NotFound, "this approval link is not valid, or was used already")
	}
	a, err := s.store.ApprovalByLink(ctx, sha256Hex([]byte(token)))
	if errors.Is(err, store.ErrNotFound) {
		return store.Approval{}, apierr.New(apierr.NotFound, "this approval link is not valid, or was used already")
	}
	if err != nil {
		return store.Approval{}, err
	}
	if a.StatusAt(s.now()) == store.ApprovalExpired {
		return store.Approval{}, apierr.New(apierr.LinkExpired, "this approval expired at %s", a.ExpiresAt.Format(time.RFC3339))
	}
	return a, nil
}

// DecideByLink approves or denies the approval of a link token; the link
// is spent by the decision.
func (s *Service) DecideByLink(ctx context.Context, token string, approve bool) (View, error) {
	a, err := s.ByLink(ctx, token)
	if err != nil {
		return View{}, err
	}
	return s.Decide(ctx, a.ProjectID, a.ID, approve, "approval link")
}

// ClientDecision is an in-place decision from the MCP client of the
// session the approval was created in.
type ClientDecision struct {
	ApprovalID string
	SessionID  string
	UserID     string
	Approve    bool
	// Client names the client, for the record.
	Client string
}

// DecideInClient records a decision made by the person at the MCP client
// of the approval's own session, for the same user, where the approval's
// rule allows it. The approval must still be pending.
func (s *Service) DecideInClient(ctx context.Context, projectID string, d ClientDecision) error {
	a, err := s.store.GetApproval(ctx, projectID, d.ApprovalID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && (a.SessionID != d.SessionID || a.UserID != d.UserID)) {
		return apierr.New(apierr.NotFound, "no approval %s for this session", d.ApprovalID)
	}
	if err != nil {
		return err
	}
	if !a.ClientOK {
		return apierr.New(apierr.Forbidden, "approval %s must be decided by an approver, not in the client", a.ID)
	}
	by := "mcp client"
	if d.Client != "" {
		by += " " + d.Client
	}
	by += " (user " + d.UserID + ")"
	_, err = s.Decide(ctx, projectID, a.ID, d.Approve, by)
	return err
}

// ElicitMessage is the question an MCP client shows its user.
func ElicitMessage(v View) string {
	what := v.ToolID
	if v.Proxy {
		what = "a raw API call to " + v.ConnectorID
	}
	return fmt.Sprintf("Approve %s with this input?\n%s", what, string(v.Input))
}
