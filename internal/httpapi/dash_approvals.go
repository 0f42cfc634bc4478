package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/policy"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// The approvals screen: the approvals waiting for a decision (approve or
// deny them here, as POST /v1/approvals/:id/approve does, through
// policy.Service.Decide), the latest decided ones, and the project's
// policy rules (list, add one as JSON, delete, the default decision), all
// through policy.Service as /v1/policies. Members and owners alike.

type approvalRow struct {
	policy.View
	// InputText is the input as sent, laid out for reading.
	InputText string
}

// ruleRow is a rule with what it matches as compact JSON.
type ruleRow struct {
	policy.RuleView
	MatchText string
}

type approvalsData struct {
	Pending, Recent []approvalRow
	Rules           []ruleRow
	Default         policy.Decision
	// RuleJSON is a rule the operator submitted, shown again with a problem.
	RuleJSON string
}

func (s *Server) renderApprovals(w http.ResponseWriter, r *http.Request, d *dashReq, status int, ruleJSON, problem string) error {
	pid := d.project.ProjectID
	pending, err := s.policies.List(r.Context(), pid, store.ApprovalFilter{Status: store.ApprovalPending, Limit: 100})
	if err != nil {
		return err
	}
	recent, err := s.policies.List(r.Context(), pid, store.ApprovalFilter{Limit: 20})
	if err != nil {
		return err
	}
	rules, def, err := s.policies.ListRules(r.Context(), pid)
	if err != nil {
		return err
	}
	data := approvalsData{Default: def, RuleJSON: ruleJSON}
	for _, rule := range rules {
		m, _ := json.Marshal(rule.Match)
		data.Rules = append(data.Rules, ruleRow{RuleView: rule, MatchText: string(m)})
	}
	for _, a := range pending {
		data.Pending = append(data.Pending, approvalRow{View: a, InputText: indentJSON(a.Input)})
	}
	for _, a := range recent {
		if a.Status != store.ApprovalPending {
			data.Recent = append(data.Recent, approvalRow{View: a})
		}
	}
	v := d.view("approvals", "Approvals and policies", data)
	v.Flash, v.Error = s.takeFlash(w, r), problem
	return s.render(w, status, "approvals", v)
}

func (s *Server) handleDashApprovals(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	return s.renderApprovals(w, r, d, 0, "", "")
}

func (s *Server) handleDashApprovalApprove(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	return s.dashDecide(w, r, d, true)
}

func (s *Server) handleDashApprovalDeny(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	return s.dashDecide(w, r, d, false)
}

// dashDecide approves or denies a pending approval, recorded as decided by
// "dashboard: <email>". A decision already made shows the page again with
// the reason.
func (s *Server) dashDecide(w http.ResponseWriter, r *http.Request, d *dashReq, approve bool) error {
	v, err := s.policies.Decide(r.Context(), d.project.ProjectID, r.PathValue("id"), approve, "dashboard: "+d.sess.Email)
	if e, ok := apierr.As(err); ok && e.Code == apierr.Conflict {
		return s.renderApprovals(w, r, d, http.StatusConflict, "", e.Message)
	}
	if err != nil {
		return err
	}
	what := "denied"
	if approve {
		what = "approved: the caller may repeat the call once"
	}
	return s.redirectFlash(w, r, "/dashboard/p/"+d.project.ProjectID+"/approvals", "The call to "+approvalSubject(v)+" by "+v.UserID+" is "+what+".")
}

func approvalSubject(v policy.View) string {
	if v.ToolID != "" {
		return v.ToolID
	}
	return v.ConnectorID + " (proxy)"
}

// handleDashPolicyCreate adds a rule given as the JSON body of POST
// /v1/policies (read by the same policy.ParseRuleRequest and CreateRule).
func (s *Server) handleDashPolicyCreate(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	raw := r.PostFormValue("rule")
	req, err := policy.ParseRuleRequest([]byte(raw))
	if err == nil {
		var t tenant.Tenant
		if t, err = s.catalogs.Load(r.Context(), d.project.ProjectID); err != nil {
			return err
		}
		_, err = s.policies.CreateRule(r.Context(), t, req)
	}
	if msg, ok := formProblem(err); ok {
		return s.renderApprovals(w, r, d, http.StatusUnprocessableEntity, raw, msg)
	}
	if err != nil {
		return err
	}
	return s.redirectFlash(w, r, "/dashboard/p/"+d.project.ProjectID+"/approvals", "Rule added: it applies to the next call.")
}

func (s *Server) handleDashPolicyDelete(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	if err := s.policies.DeleteRule(r.Context(), d.project.ProjectID, r.PathValue("id")); err != nil {
		return err
	}
	return s.redirectFlash(w, r, "/dashboard/p/"+d.project.ProjectID+"/approvals", "Rule deleted.")
}

// handleDashPolicyDefault sets the decision for calls no rule matches.
func (s *Server) handleDashPolicyDefault(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	dec := policy.Decision(r.PostFormValue("decision"))
	if !dec.Valid() {
		return s.renderApprovals(w, r, d, http.StatusUnprocessableEntity, "", "choose allow, ask or deny as the default decision")
	}
	if err := s.policies.SetDefault(r.Context(), d.project.ProjectID, dec); err != nil {
		return err
	}
	return s.redirectFlash(w, r, "/dashboard/p/"+d.project.ProjectID+"/approvals", "Calls no rule matches are now: "+string(dec)+".")
}
