package switchboard

import "encoding/json"

// Decisions of a policy rule.
const (
	DecisionAllow = "allow"
	DecisionAsk   = "ask"
	DecisionDeny  = "deny"
)

// Statuses of an approval.
const (
	ApprovalPending  = "pending"
	ApprovalApproved = "approved"
	ApprovalDenied   = "denied"
	ApprovalUsed     = "used"
	ApprovalExpired  = "expired"
)

// PolicyCondition is one test of an input value at Path (docs/policies.md);
// give exactly one of Equals, In, Regexp, GreaterThan, LessThan.
type PolicyCondition struct {
	Path        string          `json:"path"`
	Equals      json.RawMessage `json:"equals,omitempty"`
	In          []any           `json:"in,omitempty"`
	Regexp      string          `json:"regexp,omitempty"`
	GreaterThan *float64        `json:"greaterThan,omitempty"`
	LessThan    *float64        `json:"lessThan,omitempty"`
	Not         bool            `json:"not,omitempty"`
}

// PolicyMatch is what a rule applies to; every field given must match.
type PolicyMatch struct {
	Connector    string            `json:"connector,omitempty"`
	Tool         string            `json:"tool,omitempty"`
	Effect       string            `json:"effect,omitempty"`
	Irreversible *bool             `json:"irreversible,omitempty"`
	DataClass    string            `json:"dataClass,omitempty"`
	Account      string            `json:"account,omitempty"`
	Arguments    []PolicyCondition `json:"arguments,omitempty"`
}

// PolicyRuleRequest is the body of CreatePolicy and ReplacePolicy.
// Endpoint (create only) sets the rule on an MCP endpoint.
type PolicyRuleRequest struct {
	Decision       string       `json:"decision"`
	Description    string       `json:"description,omitempty"`
	Priority       *int         `json:"priority,omitempty"`
	Match          *PolicyMatch `json:"match,omitempty"`
	ClientApproval *bool        `json:"clientApproval,omitempty"`
	Endpoint       string       `json:"endpoint,omitempty"`
}

// PolicyRule is a stored rule.
type PolicyRule struct {
	ID             string      `json:"id"`
	Level          string      `json:"level"`
	Endpoint       string      `json:"endpoint,omitempty"`
	Decision       string      `json:"decision"`
	Description    string      `json:"description,omitempty"`
	Priority       int         `json:"priority"`
	Match          PolicyMatch `json:"match"`
	ClientApproval *bool       `json:"clientApproval,omitempty"`
	CreatedAt      string      `json:"createdAt"`
}

// Policies is ListPolicies' answer: the rules in the order they are
// tried, and the project's default decision.
type Policies struct {
	Data            []PolicyRule `json:"data"`
	DefaultDecision string       `json:"defaultDecision"`
}

// Approval is a call an ask rule held. It runs once, with exactly Input,
// when the same call is made again after it is approved.
type Approval struct {
	ID          string         `json:"id"`
	Status      string         `json:"status"`
	URL         string         `json:"url"`
	ToolID      string         `json:"toolId,omitempty"`
	ConnectorID string         `json:"connectorId"`
	Proxy       bool           `json:"proxy,omitempty"`
	UserID      string         `json:"userId"`
	Input       map[string]any `json:"input"`
	RuleID      string         `json:"ruleId,omitempty"`
	SessionID   string         `json:"sessionId,omitempty"`
	Endpoint    string         `json:"endpoint,omitempty"`
	APIKeyID    string         `json:"apiKeyId,omitempty"`
	DecidedBy   string         `json:"decidedBy,omitempty"`
	DecidedAt   *string        `json:"decidedAt"`
	UsedAt      *string        `json:"usedAt"`
	CreatedAt   string         `json:"createdAt"`
	ExpiresAt   string         `json:"expiresAt"`
}

// ApprovalListParams filter and page ListApprovals; zero fields are left out.
type ApprovalListParams struct {
	Status string
	UserID string
	ToolID string
	Limit  int
	Cursor string
}

// QuotaRequest is the body of CreateQuota: at most Limit calls a Window
// (minute, hour or day) over the calls the filters match.
type QuotaRequest struct {
	Window      string `json:"window"`
	Limit       int    `json:"limit"`
	UserID      string `json:"userId,omitempty"`
	PerUser     bool   `json:"perUser,omitempty"`
	ConnectorID string `json:"connectorId,omitempty"`
	ToolID      string `json:"toolId,omitempty"`
}

// Quota is a stored quota; a filter not set is nil.
type Quota struct {
	ID          string  `json:"id"`
	Window      string  `json:"window"`
	Limit       int     `json:"limit"`
	UserID      *string `json:"userId"`
	PerUser     bool    `json:"perUser"`
	ConnectorID *string `json:"connectorId"`
	ToolID      *string `json:"toolId"`
	CreatedAt   string  `json:"createdAt"`
}

// RedactionPattern is one of a project's own redaction patterns.
type RedactionPattern struct {
	Name    string `json:"name"`
	Pattern string `json:"pattern"`
}

// RedactionRules is what is hidden in tool outputs before they reach a
// model (docs/redaction.md). Enabled is false when the project has none.
type RedactionRules struct {
	Enabled     bool               `json:"enabled"`
	Detectors   []string           `json:"detectors"`
	Patterns    []RedactionPattern `json:"patterns"`
	RestExecute bool               `json:"restExecute"`
}
