// Package policy decides, before a tool call runs, whether it may run
// (allow), must wait for a person's approval (ask), or may not run (deny).
// Rules are data: each matches on the tool's connector, id (or an id
// prefix ending in *), effect, irreversibility, data class, the kind of
// account, and conditions on the call's input. Rules are set on the
// project, on an MCP endpoint and on a session; within a level the first
// matching rule decides, and across levels the strictest decision wins, so
// an endpoint or a session can only narrow what the project allows
// (docs/policies.md). The package also holds the approvals that ask rules
// create.
package policy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// Decision is what a rule decides for a call.
type Decision string

// The decisions, least strict first.
const (
	Allow Decision = "allow"
	Ask   Decision = "ask"
	Deny  Decision = "deny"
)

// rank orders decisions by strictness.
func (d Decision) rank() int {
	switch d {
	case Ask:
		return 1
	case Deny:
		return 2
	}
	return 0
}

// Stricter reports whether d is stricter than o.
func (d Decision) Stricter(o Decision) bool { return d.rank() > o.rank() }

// Valid reports whether d is one of the decisions.
func (d Decision) Valid() bool { return d == Allow || d == Ask || d == Deny }

// Account kinds a rule may match.
const (
	AccountGlobal = "global"
	AccountUser   = "user"
)

// Limits of a rule.
const (
	MaxConditions   = 20
	maxRegexpLen    = 512
	maxPathLen      = 256
	maxInValues     = 100
	maxDescription  = 500
	maxPatternChars = 128
	// MaxPriority bounds a rule's priority.
	MaxPriority = 1_000_000
	// DefaultPriority is the priority of a rule that gives none.
	DefaultPriority = 1000
)

// Spec is a rule as written: the JSON of POST /v1/policies, of a session's
// policy.rules and of the stored rule.
type Spec struct {
	Decision    Decision `json:"decision"`
	Description string   `json:"description,omitempty"`
	// Priority orders the rules of a level: lower first, then oldest first.
	Priority *int  `json:"priority,omitempty"`
	Match    Match `json:"match"`
	// ClientApproval, for ask rules, lets the person at an MCP client that
	// supports elicitation approve the call in place; false leaves the
	// decision to approvers (API and approval links). Default true.
	ClientApproval *bool `json:"clientApproval,omitempty"`
}

// Match is what a rule matches; every field given must match.
type Match struct {
	Connector    string      `json:"connector,omitempty"`
	Tool         string      `json:"tool,omitempty"`
	Effect       string      `json:"effect,omitempty"`
	Irreversible *bool       `json:"irreversible,omitempty"`
	DataClass    string      `json:"dataClass,omitempty"`
	Account      string      `json:"account,omitempty"`
	Arguments    []Condition `json:"arguments,omitempty"`
}

// Condition tests one value of the input, found at Path (dotted member
// names, array indexes as numbers, an optional leading "$."). Exactly one
// test is given: equals, in, regexp, greaterThan or lessThan. Not inverts
// the test. When the path leads into an array without an index, the test
// holds when it holds for any element; a missing value never holds.
type Condition struct {
	Path        string            `json:"path"`
	Equals      json.RawMessage   `json:"equals,omitempty"`
	In          []json.RawMessage `json:"in,omitempty"`
	Regexp      string            `json:"regexp,omitempty"`
	GreaterThan *json.Number      `json:"greaterThan,omitempty"`
	LessThan    *json.Number      `json:"lessThan,omitempty"`
	Not         bool              `json:"not,omitempty"`
}

// Rule is a compiled, valid rule.
type Rule struct {
	ID       string
	Endpoint string
	Spec     Spec
	priority int
	conds    []condition
}

// Decision returns what the rule decides.
func (r *Rule) Decision() Decision { return r.Spec.Decision }

// ClientApproval reports whether an MCP client may approve the rule's
// calls in place.
func (r *Rule) ClientApproval() bool { return r.Spec.ClientApproval == nil || *r.Spec.ClientApproval }

// Priority returns the rule's priority.
func (r *Rule) Priority() int { return r.priority }

type condition struct {
	path []string
	test func(v any) bool
	not  bool
}

// ParseSpec decodes a rule strictly (unknown members are issues) and
// validates it, reporting every problem under prefix.
func ParseSpec(raw json.RawMessage, prefix ...any) (Spec, error) {
	var s Spec
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	d.UseNumber()
	if err := d.Decode(&s); err != nil {
		msg := "must be a rule object: " + err.Error()
		code := apierr.IssueInvalidType
		if strings.Contains(err.Error(), "unknown field") {
			code = apierr.IssueUnknownField
			msg = strings.TrimPrefix(err.Error(), "json: ") + "; a rule has decision, description, priority, match and clientApproval; match has connector, tool, effect, irreversible, dataClass, account and arguments"
		}
		return Spec{}, apierr.Validation(apierr.Issue{Code: code, Path: append([]any{}, prefix...), Message: msg})
	}
	if _, err := Compile("", "", s, prefix...); err != nil {
		return Spec{}, err
	}
	return s, nil
}

// Compile checks a rule and compiles its conditions. Every problem is an
// issue (VALIDATION_ERROR) with its path under prefix.
func Compile(id, endpoint string, s Spec, prefix ...any) (*Rule, error) {
	var issues apierr.Issues
	at := func(p ...any) []any { return append(append([]any{}, prefix...), p...) }
	if !s.Decision.Valid() {
		issues.Add(apierr.IssueInvalidValue, at("decision"), "must be allow, ask or deny")
	}
	if len(s.Description) > maxDescription {
		issues.Add(apierr.IssueTooBig, at("description"), "must be at most %d characters", maxDescription)
	}
	prio := DefaultPriority
	if s.Priority != nil {
		prio = *s.Priority
		if prio < 0 || prio > MaxPriority {
			issues.Add(apierr.IssueInvalidValue, at("priority"), "must be from 0 to %d", MaxPriority)
		}
	}
	if s.ClientApproval != nil && s.Decision != Ask {
		issues.Add(apierr.IssueInvalidValue, at("clientApproval"), "applies only to ask rules")
	}
	m := s.Match
	if m.Tool != "" && !validToolPattern(m.Tool) {
		issues.Add(apierr.IssueInvalidValue, at("match", "tool"), "must be a tool id or a prefix ending in * (lowercase letters, digits, _)")
	}
	if m.Connector != "" && !validToolPattern(m.Connector) || strings.Contains(m.Connector, "*") {
		issues.Add(apierr.IssueInvalidValue, at("match", "connector"), "must be a connector id")
	}
	if m.Effect != "" && !slices.Contains([]string{catalog.EffectRead, catalog.EffectWrite, catalog.EffectDestructive}, m.Effect) {
		issues.Add(apierr.IssueInvalidValue, at("match", "effect"), "must be read, write or destructive")
	}
	if m.DataClass != "" && catalog.ClassRank(m.DataClass) < 0 {
		issues.Add(apierr.IssueInvalidValue, at("match", "dataClass"), "must be standard, pii or phi")
	}
	if m.Account != "" && m.Account != AccountGlobal && m.Account != AccountUser {
		issues.Add(apierr.IssueInvalidValue, at("match", "account"), "must be global or user")
	}
	if len(m.Arguments) > MaxConditions {
		issues.Add(apierr.IssueTooBig, at("match", "arguments"), "must have at most %d conditions", MaxConditions)
	}
	r := &Rule{ID: id, Endpoint: endpoint, Spec: s, priority: prio}
	for i, c := range m.Arguments {
		cc, ok := compileCondition(c, &issues, at("match", "arguments", i))
		if ok {
			r.conds = append(r.conds, cc)
		}
	}
	if err := issues.Err(); err != nil {
		return nil, err
	}
	return r, nil
}

func validToolPattern(p string) bool {
	if p == "" || len(p) > maxPatternChars {
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

func compileCondition(c Condition, issues *apierr.Issues, at []any) (condition, bool) {
	sub := func(p string) []any { return append(append([]any{}, at...), p) }
	ok := true
	path, err := parsePath(c.Path)
	if err != "" {
		issues.Add(apierr.IssueInvalidValue, sub("path"), "%s", err)
		ok = false
	}
	tests := 0
	var test func(any) bool
	if len(c.Equals) > 0 {
		tests++
		want, derr := decodeValue(c.Equals)
		if derr != nil {
			issues.Add(apierr.IssueInvalidValue, sub("equals"), "must be a JSON value")
			ok = false
		}
		test = func(v any) bool { return equalValues(v, want) }
	}
	if c.In != nil {
		tests++
		if len(c.In) == 0 || len(c.In) > maxInValues {
			issues.Add(apierr.IssueInvalidValue, sub("in"), "must list 1 to %d values", maxInValues)
			ok = false
		}
		var wants []any
		for _, raw := range c.In {
			w, derr := decodeValue(raw)
			if derr != nil {
				issues.Add(apierr.IssueInvalidValue, sub("in"), "must list JSON values")
				ok = false
				break
			}
			wants = append(wants, w)
		}
		test = func(v any) bool {
			return slices.ContainsFunc(wants, func(w any) bool { return equalValues(v, w) })
		}
	}
	if c.Regexp != "" {
		tests++
		if len(c.Regexp) > maxRegexpLen {
			issues.Add(apierr.IssueTooBig, sub("regexp"), "must be at most %d characters", maxRegexpLen)
			ok = false
		} else if re, rerr := regexp.Compile(c.Regexp); rerr != nil {
			issues.Add(apierr.IssueInvalidValue, sub("regexp"), "is not a valid regular expression (RE2 syntax): %s", rerr.Error())
			ok = false
		} else {
			test = func(v any) bool { s, isStr := v.(string); return isStr && re.MatchString(s) }
		}
	}
	for _, n := range []struct {
		name string
		v    *json.Number
		gt   bool
	}{{"greaterThan", c.GreaterThan, true}, {"lessThan", c.LessThan, false}} {
		if n.v == nil {
			continue
		}
		tests++
		bound, ferr := n.v.Float64()
		if ferr != nil {
			issues.Add(apierr.IssueInvalidType, sub(n.name), "must be a number")
			ok = false
			continue
		}
		gt := n.gt
		test = func(v any) bool {
			f, isNum := number(v)
			if !isNum {
				return false
			}
			if gt {
				return f > bound
			}
			return f < bound
		}
	}
	if tests != 1 {
		issues.Add(apierr.IssueInvalidValue, at, "give exactly one of equals, in, regexp, greaterThan, lessThan")
		ok = false
	}
	return condition{path: path, test: test, not: c.Not}, ok
}

// parsePath splits a condition's path into its segments.
func parsePath(p string) ([]string, string) {
	if p == "" {
		return nil, "is required: the dotted path of an input value, such as amount or to"
	}
	if len(p) > maxPathLen {
		return nil, fmt.Sprintf("must be at most %d characters", maxPathLen)
	}
	p = strings.TrimPrefix(p, "$.")
	segs := strings.Split(p, ".")
	for _, s := range segs {
		if s == "" {
			return nil, "must be member names (and array indexes) joined by dots, such as customer.email"
		}
	}
	return segs, ""
}

// decodeValue decodes one JSON value with numbers as json.Number.
func decodeValue(raw json.RawMessage) (any, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	return v, err
}

// number reads a JSON number (json.Number or float64) as a float64.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	}
	return 0, false
}

// equalValues compares two decoded JSON values; numbers compare by value.
func equalValues(a, b any) bool {
	if fa, ok := number(a); ok {
		fb, ok := number(b)
		return ok && fa == fb
	}
	switch x := a.(type) {
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalValues(x[i], y[i]) {
				return false
			}
		}
		return true
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok || len(x) != len(y) {
			return false
		}
		for k, v := range x {
			if w, ok := y[k]; !ok || !equalValues(v, w) {
				return false
			}
		}
		return true
	}
	return a == b
}
