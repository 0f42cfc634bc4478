package sdk

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/clients/go/switchboard"
)

// goGovernance drives the Go client's governance surface: an ask rule's
// held call surfaced as an *ApprovalRequiredError, approved while
// ExecuteToolWithApproval waits and then run, denied (the server's 403
// APPROVAL_DENIED and the helper's), a deny rule's 403 POLICY_DENIED, a
// quota's 429 RATE_LIMITED with its Retry-After, and redaction rules.
func goGovernance(t *testing.T, s *stack, p project) {
	ctx := context.Background()
	c := switchboard.New(p.key, switchboard.WithBaseURL(s.base), switchboard.WithMaxRetryAfter(time.Second))
	create := p.tools["create"]
	_, err := c.CreateConnection(ctx, switchboard.CreateConnectionRequest{ConnectorID: "tasks", UserID: "gopher",
		Credential: switchboard.APIKeyCredential(providerKey, nil)})
	mustf(t, err == nil, "CreateConnection: %v", err)

	ask, err := c.CreatePolicy(ctx, switchboard.PolicyRuleRequest{Decision: switchboard.DecisionAsk, Description: "titles a person checks",
		Match: &switchboard.PolicyMatch{Tool: create, Arguments: []switchboard.PolicyCondition{{Path: "title", In: []any{"needs approval", "deny me", "deny me too"}}}}})
	mustf(t, err == nil && ask.ID != "" && ask.Level == "project", "CreatePolicy ask: %+v %v", ask, err)
	deny, err := c.CreatePolicy(ctx, switchboard.PolicyRuleRequest{Decision: switchboard.DecisionDeny,
		Match: &switchboard.PolicyMatch{Tool: create, Arguments: []switchboard.PolicyCondition{{Path: "title", Regexp: "^forbidden"}}}})
	mustf(t, err == nil, "CreatePolicy deny: %v", err)
	_, err = c.CreatePolicy(ctx, switchboard.PolicyRuleRequest{Decision: "maybe"})
	var apiErr *switchboard.Error
	mustf(t, errors.As(err, &apiErr) && apiErr.Code == switchboard.CodeValidationError && len(apiErr.Issues) > 0, "a bad rule: %v", err)
	rules, err := c.ListPolicies(ctx)
	mustf(t, err == nil && len(rules.Data) == 2 && rules.DefaultDecision == switchboard.DecisionAllow, "ListPolicies: %+v %v", rules, err)

	// Held, then approved while the helper waits.
	in := map[string]any{"title": "needs approval"}
	_, err = c.ExecuteTool(ctx, switchboard.ExecuteRequest{ToolID: create, UserID: "gopher", Input: in})
	var held *switchboard.ApprovalRequiredError
	mustf(t, errors.As(err, &held) && held.Approval.Status == switchboard.ApprovalPending && held.Approval.ToolID == create &&
		strings.HasSuffix(held.Approval.URL, "/v1/approvals/"+held.Approval.ID), "an ask rule's call: %v", err)
	pending, err := c.ListApprovals(ctx, switchboard.ApprovalListParams{Status: switchboard.ApprovalPending, ToolID: create})
	mustf(t, err == nil && len(pending.Data) == 1 && pending.Data[0].ID == held.Approval.ID, "ListApprovals: %+v %v", pending, err)
	go func() {
		time.Sleep(400 * time.Millisecond)
		_, _ = c.ApproveApproval(ctx, held.Approval.ID, "go scenario")
	}()
	res, err := c.ExecuteToolWithApproval(ctx, switchboard.ExecuteRequest{ToolID: create, UserID: "gopher", Input: in},
		switchboard.WaitOptions{Timeout: 30 * time.Second, Interval: 100 * time.Millisecond})
	var task struct{ Title string }
	mustf(t, err == nil && json.Unmarshal(res, &task) == nil && task.Title == "needs approval", "ExecuteToolWithApproval: %s %v", res, err)
	used, err := c.GetApproval(ctx, held.Approval.ID)
	mustf(t, err == nil && used.Status == switchboard.ApprovalUsed && used.DecidedBy != "", "the approval after its run: %+v %v", used, err)

	// Denied: the server's APPROVAL_DENIED, and the helper's.
	_, err = c.ExecuteTool(ctx, switchboard.ExecuteRequest{ToolID: create, UserID: "gopher", Input: map[string]any{"title": "deny me"}})
	mustf(t, errors.As(err, &held), "deny me: %v", err)
	_, err = c.DenyApproval(ctx, held.Approval.ID, "")
	mustf(t, err == nil, "DenyApproval: %v", err)
	_, err = c.ExecuteTool(ctx, switchboard.ExecuteRequest{ToolID: create, UserID: "gopher", Input: map[string]any{"title": "deny me"}})
	mustf(t, errors.As(err, &apiErr) && apiErr.Status == 403 && apiErr.Code == switchboard.CodeApprovalDenied, "a denied call again: %v", err)
	_, err = c.ApproveApproval(ctx, held.Approval.ID, "")
	mustf(t, switchboard.IsCode(err, switchboard.CodeConflict), "approving a denied approval: %v", err)
	_, err = c.ExecuteTool(ctx, switchboard.ExecuteRequest{ToolID: create, UserID: "gopher", Input: map[string]any{"title": "deny me too"}})
	mustf(t, errors.As(err, &held), "deny me too: %v", err)
	go func() {
		time.Sleep(300 * time.Millisecond)
		_, _ = c.DenyApproval(ctx, held.Approval.ID, "go scenario")
	}()
	_, err = c.ExecuteToolWithApproval(ctx, switchboard.ExecuteRequest{ToolID: create, UserID: "gopher", Input: map[string]any{"title": "deny me too"}},
		switchboard.WaitOptions{Interval: 100 * time.Millisecond})
	mustf(t, switchboard.IsCode(err, switchboard.CodeApprovalDenied), "the helper on a denial: %v", err)
	_, err = c.WaitForApproval(ctx, held.Approval.ID, switchboard.WaitOptions{})
	mustf(t, err == nil, "waiting on a decided approval: %v", err)

	// A pending approval the wait gives up on.
	_, err = c.ExecuteTool(ctx, switchboard.ExecuteRequest{ToolID: create, UserID: "gopher", Input: in})
	mustf(t, errors.As(err, &held), "needs approval again: %v", err)
	_, err = c.WaitForApproval(ctx, held.Approval.ID, switchboard.WaitOptions{Timeout: 300 * time.Millisecond, Interval: 100 * time.Millisecond})
	var waitErr *switchboard.ApprovalWaitError
	mustf(t, errors.As(err, &waitErr) && waitErr.Reason == "timeout" && waitErr.Approval.Status == switchboard.ApprovalPending, "a wait past its timeout: %v", err)

	_, err = c.ExecuteTool(ctx, switchboard.ExecuteRequest{ToolID: create, UserID: "gopher", Input: map[string]any{"title": "forbidden: drop it"}})
	mustf(t, errors.As(err, &apiErr) && apiErr.Status == 403 && apiErr.Code == switchboard.CodePolicyDenied, "a deny rule: %v", err)

	// A quota: two calls a day for one user, then 429 RATE_LIMITED with
	// Retry-After, raised at once (longer than the client's longest wait).
	q, err := c.CreateQuota(ctx, switchboard.QuotaRequest{Window: "day", Limit: 2, UserID: "gopher", ToolID: create})
	mustf(t, err == nil && q.Limit == 2 && q.UserID != nil && *q.UserID == "gopher", "CreateQuota: %+v %v", q, err)
	for i := range 2 {
		_, err = c.ExecuteTool(ctx, switchboard.ExecuteRequest{ToolID: create, UserID: "gopher", Input: map[string]any{"title": "counted"}})
		mustf(t, err == nil, "call %d within the quota: %v", i+1, err)
	}
	began := time.Now()
	_, err = c.ExecuteTool(ctx, switchboard.ExecuteRequest{ToolID: create, UserID: "gopher", Input: map[string]any{"title": "counted"}})
	mustf(t, errors.As(err, &apiErr) && apiErr.Status == 429 && apiErr.Code == switchboard.CodeRateLimited && apiErr.RetryAfter >= time.Second &&
		time.Since(began) < 5*time.Second, "over the quota: %#v", err)
	q, err = c.UpdateQuota(ctx, q.ID, "day", 10)
	mustf(t, err == nil && q.Limit == 10, "UpdateQuota: %+v %v", q, err)
	quotas, err := c.ListQuotas(ctx)
	mustf(t, err == nil && len(quotas) == 1, "ListQuotas: %+v %v", quotas, err)
	_, err = c.DeleteQuota(ctx, q.ID)
	mustf(t, err == nil, "DeleteQuota: %v", err)

	// Redaction of direct calls' answers.
	red, err := c.SetRedaction(ctx, switchboard.RedactionRules{Detectors: []string{"email"}, RestExecute: true})
	mustf(t, err == nil && red.Enabled && red.RestExecute, "SetRedaction: %+v %v", red, err)
	res, err = c.ExecuteTool(ctx, switchboard.ExecuteRequest{ToolID: create, UserID: "gopher", Input: map[string]any{"title": "mail jane@example.com"}})
	mustf(t, err == nil && strings.Contains(string(res), "[redacted:email]") && !strings.Contains(string(res), "jane@"), "a redacted answer: %s %v", res, err)
	red, err = c.DeleteRedaction(ctx)
	mustf(t, err == nil && !red.Enabled, "DeleteRedaction: %+v %v", red, err)
	red, err = c.GetRedaction(ctx)
	mustf(t, err == nil && !red.Enabled, "GetRedaction: %+v %v", red, err)

	for _, id := range []string{ask.ID, deny.ID} {
		_, err = c.DeletePolicy(ctx, id)
		mustf(t, err == nil, "DeletePolicy: %v", err)
	}
	def, err := c.SetPolicyDefault(ctx, switchboard.DecisionAllow)
	mustf(t, err == nil && def == switchboard.DecisionAllow, "SetPolicyDefault: %q %v", def, err)
}
