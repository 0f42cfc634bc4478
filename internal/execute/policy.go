package execute

import (
	"bytes"
	"context"
	"encoding/json"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/execlog"
	"github.com/switchboard-gw/switchboard/internal/policy"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// PolicyContext is what the policy decision of a call needs beyond the
// call itself: where it came from, and where to report the decision.
type PolicyContext struct {
	// Endpoint is the slug of the MCP endpoint the call came through.
	Endpoint string
	// SessionID is the session ("endpoint:<slug>" for an endpoint).
	SessionID string
	// SessionRules are the session's own rules (they can only narrow).
	SessionRules []*policy.Rule
	// APIKeyID is the key the call was made with, for the approval record.
	APIKeyID string
	// Decision, when set, receives the decision (rule, approval, approver,
	// latency) for the execution log.
	Decision *policy.Record
}

// enforce decides a call by the project's policy rules, once its account
// is known, before anything reaches the provider: this one point covers
// direct execute, session calls (REST and MCP) and the proxy. Without a
// policy service, or with a project that has no rules, it costs one cache
// lookup. A decision a rule or the project's default made (or one that
// spent an approval) is copied into the call's log entry rec, when there is
// one.
func (e *Executor) enforce(ctx context.Context, t tenant.Tenant, pc PolicyContext, userID string, sub policy.Subject, rec *execlog.Entry) error {
	if e.policies == nil {
		return nil
	}
	d, err := e.policies.Check(ctx, t, policy.Call{Subject: sub, UserID: userID, Endpoint: pc.Endpoint,
		SessionID: pc.SessionID, SessionRules: pc.SessionRules, APIKeyID: pc.APIKeyID, Logged: rec.Logged()})
	// The deliveries of an approval this call asked for name its record.
	if d.LogID != "" {
		rec.SetID(d.LogID)
	}
	if pc.Decision != nil {
		*pc.Decision = d
	}
	if rec != nil && d.Decision != "" && (d.RuleID != "" || d.ApprovalID != "" || d.Decision != policy.Allow) {
		rec.Policy = &execlog.Decision{Decision: string(d.Decision), RuleID: d.RuleID, Level: d.Level,
			ApprovalID: d.ApprovalID, Approver: d.Approver, ApprovalLatency: d.Latency}
	}
	return err
}

// toolSubject is the policy subject of a tool call with an account.
func toolSubject(tool *catalog.Tool, conn store.Connection, input map[string]any) policy.Subject {
	return policy.Subject{ToolID: tool.ID, ConnectorID: tool.Connector().ID, Effect: tool.Effect, Irreversible: tool.Irreversible,
		DataClass: tool.Classification(), Global: conn.Global, HasAccount: conn.ID != "", Input: input}
}

// proxySubject is the policy subject of a raw proxy call: a GET reads, a
// DELETE destroys, anything else writes; its input is the request.
func proxySubject(c ProxyCall, conn store.Connection) policy.Subject {
	effect := catalog.EffectWrite
	switch c.Method {
	case "GET":
		effect = catalog.EffectRead
	case "DELETE":
		effect = catalog.EffectDestructive
	}
	input := map[string]any{"method": c.Method, "endpoint": c.Endpoint}
	if len(c.Query) > 0 {
		input["query"] = c.Query
	}
	if len(c.Body) > 0 && string(c.Body) != "null" {
		if v, err := policyValue(c.Body); err == nil {
			input["body"] = v
		}
	}
	return policy.Subject{ConnectorID: c.ConnectorID, Effect: effect, Global: conn.Global, HasAccount: conn.ID != "", Input: input}
}

func policyValue(raw json.RawMessage) (any, error) {
	var v any
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	err := d.Decode(&v)
	return v, err
}
