// Package session runs sessions for models: a scoped, policy-limited view
// of a project's tools for one user, with meta tools (search, execute,
// connect, ...) a model uses in a loop, served over REST and MCP.
package session

import (
	"encoding/json"
	"slices"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/policy"
	"github.com/switchboard-gw/switchboard/internal/redact"
)

// Limits (docs/README.md, "Limits").
const (
	MaxConnectors  = 200
	MaxActions     = 500
	MaxPinned      = 20
	DefaultTTL     = 1440
	MinTTL         = 5
	MaxTTL         = 43200
	maxPatternSize = 128
	// MaxSessionRules bounds a session's own policy rules.
	MaxSessionRules = 50
)

// Policy limits what a session's model may do.
type Policy struct {
	ReadOnly        bool   `json:"readOnly"`
	MaxDataClass    string `json:"maxDataClass"`
	AllowDisconnect bool   `json:"allowDisconnect"`
	AllowProxy      bool   `json:"allowProxy"`
	// Rules are the session's own policy rules (docs/policies.md): they
	// can only make the project's and endpoint's decisions stricter.
	Rules []policy.Spec `json:"rules,omitempty"`
	// Redact names built-in detectors this session's results are redacted
	// with, on top of the project's rules (docs/redaction.md).
	Redact []string `json:"redact,omitempty"`
}

// Spec is what a session was created with; it is stored as JSON.
type Spec struct {
	UserID              string            `json:"userId"`
	Connectors          []string          `json:"connectors,omitempty"`
	Actions             []string          `json:"actions,omitempty"`
	Pinned              []string          `json:"pinned"`
	Accounts            map[string]string `json:"accounts"`
	AllowGlobalAccounts bool              `json:"allowGlobalAccounts"`
	Policy              Policy            `json:"policy"`
	// Mode is "tools" for an endpoint that lists every tool in scope; a
	// session (and a "meta" endpoint) serves the meta tools and pinned ones.
	Mode string `json:"mode,omitempty"`
}

// Endpoint modes.
const (
	ModeMeta  = "meta"
	ModeTools = "tools"
)

// CreateRequest is the decoded body of POST /v1/sessions. Nil slices were
// left out; pointer fields distinguish "absent" from zero.
type CreateRequest struct {
	UserID              string
	Connectors          []string
	Actions             []string
	Pinned              []string
	Accounts            map[string]string
	AllowGlobalAccounts bool
	Policy              json.RawMessage
	TTLMinutes          *int
	// forEndpoint drops the userId rule: an endpoint's user comes with each call.
	forEndpoint bool
}

// validate checks every body rule and returns the spec and ttl.
func (r CreateRequest) validate(cat *catalog.Catalog, issues *apierr.Issues) (Spec, int) {
	s := Spec{UserID: r.UserID, Accounts: r.Accounts, AllowGlobalAccounts: r.AllowGlobalAccounts, Pinned: r.Pinned}
	account.CheckUserID(r.UserID, "userId", !r.forEndpoint, issues)
	if r.Connectors != nil {
		if len(r.Connectors) == 0 || len(r.Connectors) > MaxConnectors {
			issues.Add(apierr.IssueInvalidValue, []any{"connectors"}, "must have 1 to %d entries, or be left out for all", MaxConnectors)
		}
		for i, c := range r.Connectors {
			if _, ok := cat.Connector(c); !ok {
				issues.Add(apierr.IssueInvalidValue, []any{"connectors", i}, "%q is not a connector", c)
			}
		}
		s.Connectors = r.Connectors
	}
	if r.Actions != nil {
		if len(r.Actions) == 0 || len(r.Actions) > MaxActions {
			issues.Add(apierr.IssueInvalidValue, []any{"actions"}, "must have 1 to %d entries, or be left out for all", MaxActions)
		}
		for i, a := range r.Actions {
			if !validPattern(a) {
				issues.Add(apierr.IssueInvalidValue, []any{"actions", i}, "%q must be a tool id or a prefix ending in *", a)
				continue
			}
			if !strings.HasSuffix(a, "*") {
				if _, ok := cat.Tool(a); !ok {
					issues.Add(apierr.IssueInvalidValue, []any{"actions", i}, "%q is not a tool", a)
				}
			}
		}
		s.Actions = r.Actions
	}
	if len(r.Pinned) > MaxPinned {
		issues.Add(apierr.IssueTooBig, []any{"pinned"}, "must have at most %d entries", MaxPinned)
	}
	if s.Pinned == nil {
		s.Pinned = []string{}
	}
	if s.Accounts == nil {
		s.Accounts = map[string]string{}
	}
	for c, ref := range s.Accounts {
		if _, ok := cat.Connector(c); !ok {
			issues.Add(apierr.IssueInvalidValue, []any{"accounts", c}, "%q is not a connector", c)
		} else if ref == "" {
			issues.Add(apierr.IssueInvalidValue, []any{"accounts", c}, "must name an account by id, name or label")
		}
	}
	s.Policy = Policy{MaxDataClass: catalog.ClassPHI}
	if len(r.Policy) > 0 && string(r.Policy) != "null" {
		var p struct {
			ReadOnly        *bool   `json:"readOnly"`
			MaxDataClass    *string `json:"maxDataClass"`
			AllowDisconnect *bool   `json:"allowDisconnect"`
			AllowProxy      *bool   `json:"allowProxy"`
			Redact          []string
		}
		var obj map[string]json.RawMessage
		if json.Unmarshal(r.Policy, &obj) != nil {
			issues.Add(apierr.IssueInvalidType, []any{"policy"}, "must be an object")
		} else {
			for k, v := range obj {
				var err error
				switch k {
				case "readOnly":
					err = json.Unmarshal(v, &p.ReadOnly)
				case "allowDisconnect":
					err = json.Unmarshal(v, &p.AllowDisconnect)
				case "allowProxy":
					err = json.Unmarshal(v, &p.AllowProxy)
				case "rules":
					s.Policy.Rules = parseSessionRules(v, issues)
					continue
				case "maxDataClass":
					err = json.Unmarshal(v, &p.MaxDataClass)
					if err == nil && p.MaxDataClass != nil && catalog.ClassRank(*p.MaxDataClass) < 0 {
						issues.Add(apierr.IssueInvalidValue, []any{"policy", k}, "must be standard, pii or phi")
					}
				case "redact":
					if err = json.Unmarshal(v, &p.Redact); err == nil {
						checkDetectors(p.Redact, issues)
					}
				default:
					issues.Add(apierr.IssueUnknownField, []any{"policy", k}, "is not a policy field (readOnly, maxDataClass, allowDisconnect, allowProxy, rules, redact)")
					continue
				}
				if err != nil {
					issues.Add(apierr.IssueInvalidType, []any{"policy", k}, "has the wrong type")
				}
			}
			if p.ReadOnly != nil {
				s.Policy.ReadOnly = *p.ReadOnly
			}
			if p.MaxDataClass != nil && catalog.ClassRank(*p.MaxDataClass) >= 0 {
				s.Policy.MaxDataClass = *p.MaxDataClass
			}
			if p.AllowDisconnect != nil {
				s.Policy.AllowDisconnect = *p.AllowDisconnect
			}
			if p.AllowProxy != nil {
				s.Policy.AllowProxy = *p.AllowProxy
			}
			if len(p.Redact) > 0 {
				s.Policy.Redact = p.Redact
			}
		}
	}
	ttl := DefaultTTL
	if r.TTLMinutes != nil {
		ttl = *r.TTLMinutes
		if ttl < MinTTL || ttl > MaxTTL {
			issues.Add(apierr.IssueInvalidValue, []any{"ttlMinutes"}, "must be from %d to %d", MinTTL, MaxTTL)
		}
	}
	return s, ttl
}

// checkDetectors adds the issues of a policy's redact list: built-in
// detector names, each once.
func checkDetectors(names []string, issues *apierr.Issues) {
	for i, n := range names {
		switch {
		case !slices.Contains(redact.Detectors, n):
			issues.Add(apierr.IssueInvalidValue, []any{"policy", "redact", i}, "must be one of email, phone, card, iban, secret")
		case slices.Index(names, n) < i:
			issues.Add(apierr.IssueInvalidValue, []any{"policy", "redact", i}, "%s is named twice", n)
		}
	}
}

func validPattern(p string) bool {
	if p == "" || len(p) > maxPatternSize {
		return false
	}
	body := strings.TrimSuffix(p, "*")
	if strings.Contains(body, "*") {
		return false
	}
	for _, r := range body {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// matchAction reports whether a tool id matches an actions entry.
func matchAction(pattern, id string) bool {
	if strings.HasSuffix(pattern, "*") {
		return strings.HasPrefix(id, strings.TrimSuffix(pattern, "*"))
	}
	return pattern == id
}

// parseSessionRules reads policy.rules: each rule strictly, as
// POST /v1/policies reads one.
func parseSessionRules(raw json.RawMessage, issues *apierr.Issues) []policy.Spec {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		issues.Add(apierr.IssueInvalidType, []any{"policy", "rules"}, "must be an array of rules")
		return nil
	}
	if len(list) > MaxSessionRules {
		issues.Add(apierr.IssueTooBig, []any{"policy", "rules"}, "must have at most %d rules", MaxSessionRules)
		return nil
	}
	out := make([]policy.Spec, 0, len(list))
	for i, r := range list {
		sp, err := policy.ParseSpec(r, "policy", "rules", i)
		if e, ok := apierr.As(err); ok {
			*issues = append(*issues, e.Issues...)
			continue
		}
		out = append(out, sp)
	}
	return out
}
