package switchboard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// ApprovalRequiredError is what ExecuteTool and Proxy return when a
// policy's ask rule held the call (HTTP 202, docs/policies.md): nothing
// ran. Once a person approves Approval, the same call made again (same
// tool, user and input) runs once. WaitForApproval waits for the
// decision; ExecuteToolWithApproval and ProxyWithApproval do all of it.
type ApprovalRequiredError struct {
	Approval Approval
}

// Error implements error.
func (e *ApprovalRequiredError) Error() string {
	return fmt.Sprintf("switchboard: the call waits for approval %s (until %s); wait with WaitForApproval, then make the same call again",
		e.Approval.ID, e.Approval.ExpiresAt)
}

// ApprovalWaitError is what WaitForApproval returns when its timeout
// passed while the approval was still pending (Reason "timeout"), and what
// ExecuteToolWithApproval and ProxyWithApproval return when the approval
// expired undecided or was spent by another call (Reason "expired" or
// "used"). Approval is its last state seen.
type ApprovalWaitError struct {
	Approval Approval
	Reason   string
}

// Error implements error.
func (e *ApprovalWaitError) Error() string {
	if e.Reason == "timeout" {
		return fmt.Sprintf("switchboard: approval %s is still pending after the wait's timeout", e.Approval.ID)
	}
	return fmt.Sprintf("switchboard: approval %s is %s; the call did not run", e.Approval.ID, e.Approval.Status)
}

// WaitOptions bound WaitForApproval's polling.
type WaitOptions struct {
	// Timeout is the longest wait (default: until the approval expires,
	// and a few seconds more).
	Timeout time.Duration
	// Interval is the first wait between polls (default 1s); each next
	// wait is half as long again, up to MaxInterval (default 15s).
	Interval    time.Duration
	MaxInterval time.Duration
}

// ListApprovals returns one page of the project's approvals, newest first.
func (c *Client) ListApprovals(ctx context.Context, p ApprovalListParams) (Page[Approval], error) {
	q := url.Values{}
	for k, v := range map[string]string{"status": p.Status, "userId": p.UserID, "toolId": p.ToolID, "cursor": p.Cursor} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	var page Page[Approval]
	err := c.do(ctx, http.MethodGet, "/v1/approvals", q, nil, &page)
	return page, err
}

// GetApproval reads one approval; its Status tells whether it was decided.
func (c *Client) GetApproval(ctx context.Context, id string) (Approval, error) {
	return get[Approval](ctx, c, "/v1/approvals/"+seg(id), nil)
}

// ApproveApproval approves a pending approval; approver (may be empty) is
// recorded as who decided. A decided or expired approval is CONFLICT.
func (c *Client) ApproveApproval(ctx context.Context, id, approver string) (Approval, error) {
	return post[Approval](ctx, c, "/v1/approvals/"+seg(id)+"/approve", approverBody(approver))
}

// DenyApproval denies a pending approval.
func (c *Client) DenyApproval(ctx context.Context, id, approver string) (Approval, error) {
	return post[Approval](ctx, c, "/v1/approvals/"+seg(id)+"/deny", approverBody(approver))
}

func approverBody(approver string) any {
	if approver == "" {
		return nil
	}
	return map[string]string{"approver": approver}
}

// WaitForApproval polls an approval, backing off between polls, until it
// is no longer pending, and returns it: Status approved, denied, expired
// or used. Past o.Timeout it returns an *ApprovalWaitError with Reason
// "timeout"; a cancelled ctx returns ctx's error.
func (c *Client) WaitForApproval(ctx context.Context, id string, o WaitOptions) (Approval, error) {
	interval, maxInterval := o.Interval, o.MaxInterval
	if interval <= 0 {
		interval = time.Second
	}
	if maxInterval <= 0 {
		maxInterval = 15 * time.Second
	}
	start := time.Now()
	var deadline time.Time
	if o.Timeout > 0 {
		deadline = start.Add(o.Timeout)
	}
	for {
		a, err := c.GetApproval(ctx, id)
		if err != nil {
			return a, err
		}
		if a.Status != ApprovalPending {
			return a, nil
		}
		if deadline.IsZero() {
			// Until the approval expires, and a little more for clocks.
			deadline = start.Add(15*time.Minute + 5*time.Second)
			if exp, err := time.Parse(time.RFC3339Nano, a.ExpiresAt); err == nil {
				deadline = exp.Add(5 * time.Second)
			}
		}
		left := time.Until(deadline)
		if left <= 0 {
			return a, &ApprovalWaitError{Approval: a, Reason: "timeout"}
		}
		if err := c.sleepFunc(ctx, min(interval, left)); err != nil {
			return a, err
		}
		interval = min(interval+interval/2, maxInterval)
	}
}

// ExecuteToolWithApproval is ExecuteTool that, when a policy holds the
// call for approval, waits for the decision (WaitForApproval with o) and
// then runs the approved call. A denial is an *Error with code
// APPROVAL_DENIED and status 403, as the server answers a denied call; an
// approval that expired or was spent elsewhere is an *ApprovalWaitError.
func (c *Client) ExecuteToolWithApproval(ctx context.Context, r ExecuteRequest, o WaitOptions) (json.RawMessage, error) {
	return c.withApproval(ctx, o, func() (json.RawMessage, error) { return c.ExecuteTool(ctx, r) })
}

// ProxyWithApproval is Proxy with ExecuteToolWithApproval's waiting.
func (c *Client) ProxyWithApproval(ctx context.Context, r ProxyRequest, o WaitOptions) (json.RawMessage, error) {
	return c.withApproval(ctx, o, func() (json.RawMessage, error) { return c.Proxy(ctx, r) })
}

func (c *Client) withApproval(ctx context.Context, o WaitOptions, call func() (json.RawMessage, error)) (json.RawMessage, error) {
	res, err := call()
	var held *ApprovalRequiredError
	if !errors.As(err, &held) {
		return res, err
	}
	a, err := c.WaitForApproval(ctx, held.Approval.ID, o)
	if err != nil {
		return nil, err
	}
	switch a.Status {
	case ApprovalApproved:
		// The approved call runs once, with exactly the input it was held with.
		return call()
	case ApprovalDenied:
		by := ""
		if a.DecidedBy != "" {
			by = " by " + a.DecidedBy
		}
		return nil, &Error{Status: http.StatusForbidden, Code: CodeApprovalDenied,
			Message: fmt.Sprintf("approval %s was denied%s", a.ID, by)}
	default:
		return nil, &ApprovalWaitError{Approval: a, Reason: a.Status}
	}
}

// ListPolicies returns the project's rules in the order they are tried,
// with the project's default decision.
func (c *Client) ListPolicies(ctx context.Context) (Policies, error) {
	var p Policies
	err := c.do(ctx, http.MethodGet, "/v1/policies", nil, nil, &p)
	return p, err
}

// CreatePolicy adds a rule; a bad one is VALIDATION_ERROR with issues.
func (c *Client) CreatePolicy(ctx context.Context, r PolicyRuleRequest) (PolicyRule, error) {
	return post[PolicyRule](ctx, c, "/v1/policies", r)
}

// GetPolicy reads one rule.
func (c *Client) GetPolicy(ctx context.Context, id string) (PolicyRule, error) {
	return get[PolicyRule](ctx, c, "/v1/policies/"+seg(id), nil)
}

// ReplacePolicy replaces a rule.
func (c *Client) ReplacePolicy(ctx context.Context, id string, r PolicyRuleRequest) (PolicyRule, error) {
	var d data[PolicyRule]
	err := c.do(ctx, http.MethodPut, "/v1/policies/"+seg(id), nil, r, &d)
	return d.Data, err
}

// DeletePolicy removes a rule.
func (c *Client) DeletePolicy(ctx context.Context, id string) (Deleted, error) {
	return del[Deleted](ctx, c, "/v1/policies/"+seg(id))
}

// SetPolicyDefault sets the decision for calls no project rule matches
// (DecisionAllow, DecisionAsk or DecisionDeny) and returns it.
func (c *Client) SetPolicyDefault(ctx context.Context, decision string) (string, error) {
	var d data[struct {
		DefaultDecision string `json:"defaultDecision"`
	}]
	err := c.do(ctx, http.MethodPut, "/v1/policies/default", nil, map[string]string{"decision": decision}, &d)
	return d.Data.DefaultDecision, err
}

// ListQuotas returns the project's quotas, oldest first.
func (c *Client) ListQuotas(ctx context.Context) ([]Quota, error) {
	return get[[]Quota](ctx, c, "/v1/quotas", nil)
}

// CreateQuota adds a quota.
func (c *Client) CreateQuota(ctx context.Context, r QuotaRequest) (Quota, error) {
	return post[Quota](ctx, c, "/v1/quotas", r)
}

// GetQuota reads one quota.
func (c *Client) GetQuota(ctx context.Context, id string) (Quota, error) {
	return get[Quota](ctx, c, "/v1/quotas/"+seg(id), nil)
}

// UpdateQuota sets a quota's window and limit; its filters stay.
func (c *Client) UpdateQuota(ctx context.Context, id, window string, limit int) (Quota, error) {
	return patch[Quota](ctx, c, "/v1/quotas/"+seg(id), map[string]any{"window": window, "limit": limit})
}

// DeleteQuota removes a quota and its counts.
func (c *Client) DeleteQuota(ctx context.Context, id string) (Deleted, error) {
	return del[Deleted](ctx, c, "/v1/quotas/"+seg(id))
}

// GetRedaction returns the project's redaction rules.
func (c *Client) GetRedaction(ctx context.Context) (RedactionRules, error) {
	return get[RedactionRules](ctx, c, "/v1/redaction", nil)
}

// SetRedaction replaces the project's redaction rules (Enabled is ignored).
func (c *Client) SetRedaction(ctx context.Context, r RedactionRules) (RedactionRules, error) {
	body := map[string]any{"detectors": r.Detectors, "patterns": r.Patterns, "restExecute": r.RestExecute}
	if r.Detectors == nil {
		body["detectors"] = []string{}
	}
	if r.Patterns == nil {
		body["patterns"] = []RedactionPattern{}
	}
	var d data[RedactionRules]
	err := c.do(ctx, http.MethodPut, "/v1/redaction", nil, body, &d)
	return d.Data, err
}

// DeleteRedaction removes the project's redaction rules.
func (c *Client) DeleteRedaction(ctx context.Context) (RedactionRules, error) {
	return del[RedactionRules](ctx, c, "/v1/redaction")
}
