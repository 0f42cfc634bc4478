package httpapi

import (
	"errors"
	"io"
	"net/http"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/policy"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// readRuleBody reads a policy rule body, size-limited, and decodes it
// strictly (unknown members are issues, unlike other bodies: a misspelt
// condition must not widen a rule).
func (s *Server) readRuleBody(w http.ResponseWriter, r *http.Request) (policy.RuleRequest, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.maxBody))
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return policy.RuleRequest{}, apierr.Validation(apierr.Issue{Code: apierr.IssueTooBig, Message: "request body is too large"})
	}
	if err != nil {
		return policy.RuleRequest{}, apierr.Validation(apierr.Issue{Code: apierr.IssueInvalidJSON, Message: "the request body did not arrive completely"})
	}
	if bodyMayHoldBadText(body) {
		if p, inKey, bad := findBadText(body); bad {
			var issues apierr.Issues
			badTextIssue(&issues, p, inKey)
			return policy.RuleRequest{}, issues.Err()
		}
	}
	return policy.ParseRuleRequest(body)
}

// handlePolicyList is GET /v1/policies: every rule, in the order tried,
// and the project's default decision.
func (s *Server) handlePolicyList(w http.ResponseWriter, r *http.Request) error {
	rules, def, err := s.policies.ListRules(r.Context(), tenantOf(r).ProjectID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, struct {
		Data            []policy.RuleView `json:"data"`
		DefaultDecision policy.Decision   `json:"defaultDecision"`
	}{rules, def})
	return nil
}

// handlePolicyCreate is POST /v1/policies.
func (s *Server) handlePolicyCreate(w http.ResponseWriter, r *http.Request) error {
	req, err := s.readRuleBody(w, r)
	if err != nil {
		return err
	}
	v, err := s.policies.CreateRule(r.Context(), tenantOf(r), req)
	if err != nil {
		return err
	}
	respond(w, http.StatusCreated, v)
	return nil
}

// handlePolicyGet is GET /v1/policies/:id.
func (s *Server) handlePolicyGet(w http.ResponseWriter, r *http.Request) error {
	v, err := s.policies.GetRule(r.Context(), tenantOf(r).ProjectID, r.PathValue("id"))
	if err != nil {
		return err
	}
	respond(w, http.StatusOK, v)
	return nil
}

// handlePolicyUpdate is PUT /v1/policies/:id: the rule is replaced.
func (s *Server) handlePolicyUpdate(w http.ResponseWriter, r *http.Request) error {
	req, err := s.readRuleBody(w, r)
	if err != nil {
		return err
	}
	v, err := s.policies.UpdateRule(r.Context(), tenantOf(r), r.PathValue("id"), req)
	if err != nil {
		return err
	}
	respond(w, http.StatusOK, v)
	return nil
}

// handlePolicyDelete is DELETE /v1/policies/:id.
func (s *Server) handlePolicyDelete(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if err := s.policies.DeleteRule(r.Context(), tenantOf(r).ProjectID, id); err != nil {
		return err
	}
	respond(w, http.StatusOK, map[string]string{"id": id})
	return nil
}

// handlePolicyDefault is PUT /v1/policies/default: {decision}.
func (s *Server) handlePolicyDefault(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Decision string `json:"decision"`
	}
	issues := s.decodeBody(w, r, &body)
	if body.Decision == "" && len(issues) == 0 {
		issues.Add(apierr.IssueRequired, []any{"decision"}, "is required: allow, ask or deny")
	}
	if err := issues.Err(); err != nil {
		return err
	}
	d := policy.Decision(body.Decision)
	if !d.Valid() {
		return apierr.Validation(apierr.Issue{Code: apierr.IssueInvalidValue, Path: []any{"decision"}, Message: "must be allow, ask or deny"})
	}
	if err := s.policies.SetDefault(r.Context(), tenantOf(r).ProjectID, d); err != nil {
		return err
	}
	respond(w, http.StatusOK, map[string]string{"defaultDecision": string(d)})
	return nil
}

// approvalStatuses are the status filter's values.
var approvalStatuses = []string{store.ApprovalPending, store.ApprovalApproved, store.ApprovalDenied, store.ApprovalUsed, store.ApprovalExpired}

// handleApprovalList is GET /v1/approvals: newest first, in cursor pages,
// filtered by status, userId and toolId.
func (s *Server) handleApprovalList(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	var issues apierr.Issues
	pid := tenantOf(r).ProjectID
	f := store.ApprovalFilter{
		Status: queryEnum(q, "status", approvalStatuses, &issues),
		UserID: queryText(q, "userId", 1, 256, &issues),
		ToolID: queryText(q, "toolId", 1, 200, &issues),
	}
	page := parsePage(q, "approvals", pid, &issues)
	if err := issues.Err(); err != nil {
		return err
	}
	f.After, f.Limit = page.After, page.Limit+1
	list, err := s.policies.List(r.Context(), pid, f)
	if err != nil {
		return err
	}
	next := ""
	if len(list) > page.Limit {
		list = list[:page.Limit]
		next = encodeCursor("approvals", pid, list[len(list)-1].ID)
	}
	respondPage(w, list, next, nil)
	return nil
}

// handleApprovalGet is GET /v1/approvals/:id.
func (s *Server) handleApprovalGet(w http.ResponseWriter, r *http.Request) error {
	v, err := s.policies.Get(r.Context(), tenantOf(r).ProjectID, r.PathValue("id"))
	if err != nil {
		return err
	}
	respond(w, http.StatusOK, v)
	return nil
}

// handleApprovalApprove is POST /v1/approvals/:id/approve.
func (s *Server) handleApprovalApprove(w http.ResponseWriter, r *http.Request) error {
	return s.decideApproval(w, r, true)
}

// handleApprovalDeny is POST /v1/approvals/:id/deny.
func (s *Server) handleApprovalDeny(w http.ResponseWriter, r *http.Request) error {
	return s.decideApproval(w, r, false)
}

// decideApproval records a decision made with the API key; the body may
// name the approver ({approver}), recorded as "api: <name>".
func (s *Server) decideApproval(w http.ResponseWriter, r *http.Request, approve bool) error {
	var body struct {
		Approver string `json:"approver"`
	}
	issues := s.decodeBody(w, r, &body)
	if len(body.Approver) > 256 {
		issues.Add(apierr.IssueTooBig, []any{"approver"}, "must be at most 256 characters")
	}
	if err := issues.Err(); err != nil {
		return err
	}
	by := "api"
	if body.Approver != "" {
		by = "api: " + body.Approver
	}
	v, err := s.policies.Decide(r.Context(), tenantOf(r).ProjectID, r.PathValue("id"), approve, by)
	if err != nil {
		return err
	}
	respond(w, http.StatusOK, v)
	return nil
}
