package policy

import (
	"sort"
	"strconv"
	"strings"
)

// Subject is the call a decision is about.
type Subject struct {
	// ToolID is the tool; empty for a raw proxy call, which only rules
	// without a tool match.
	ToolID       string
	ConnectorID  string
	Effect       string
	Irreversible bool
	DataClass    string
	// Global is true when the call runs with a global account; Account
	// rules match only when HasAccount (the account is known).
	Global     bool
	HasAccount bool
	// Input is the decoded input, numbers as json.Number.
	Input map[string]any
}

// Matches reports whether the rule matches a call.
func (r *Rule) Matches(s Subject) bool {
	m := &r.Spec.Match
	if m.Connector != "" && m.Connector != s.ConnectorID {
		return false
	}
	if m.Tool != "" {
		if s.ToolID == "" {
			return false
		}
		if p, ok := strings.CutSuffix(m.Tool, "*"); ok {
			if !strings.HasPrefix(s.ToolID, p) {
				return false
			}
		} else if m.Tool != s.ToolID {
			return false
		}
	}
	if m.Effect != "" && m.Effect != s.Effect {
		return false
	}
	if m.Irreversible != nil && *m.Irreversible != s.Irreversible {
		return false
	}
	if m.DataClass != "" && m.DataClass != s.DataClass {
		return false
	}
	if m.Account != "" && (!s.HasAccount || (m.Account == AccountGlobal) != s.Global) {
		return false
	}
	for _, c := range r.conds {
		if !c.holds(s.Input) {
			return false
		}
	}
	return true
}

// holds reports whether a condition holds for an input.
func (c condition) holds(input map[string]any) bool {
	found := false
	var walk func(v any, path []string) bool
	walk = func(v any, path []string) bool {
		if len(path) == 0 {
			if arr, ok := v.([]any); ok {
				for _, e := range arr {
					if walk(e, nil) {
						return true
					}
				}
				// An array is also a value of its own (equals [...]),
				// but a negated test looks at its elements only: "not
				// matching" must name an element that does not match.
				if c.not {
					return false
				}
			}
			found = true
			return c.test(v) != c.not
		}
		switch x := v.(type) {
		case map[string]any:
			next, ok := x[path[0]]
			if !ok {
				return false
			}
			return walk(next, path[1:])
		case []any:
			if i, err := strconv.Atoi(path[0]); err == nil {
				if i < 0 || i >= len(x) {
					return false
				}
				return walk(x[i], path[1:])
			}
			for _, e := range x {
				if walk(e, path) {
					return true
				}
			}
		}
		return false
	}
	ok := walk(map[string]any(input), c.path)
	return found && ok
}

// Level names where a rule is set.
const (
	LevelProject  = "project"
	LevelEndpoint = "endpoint"
	LevelSession  = "session"
	// LevelDefault is the project's default decision, when no project
	// rule matched.
	LevelDefault = "default"
)

// Verdict is the decision for one call, with the rule that made it.
type Verdict struct {
	Decision Decision
	// Rule is the deciding rule; nil for the default decision.
	Rule  *Rule
	Level string
}

// Set is a project's rules, compiled, as of one policies version.
type Set struct {
	// Default is what a call matching no project rule gets.
	Default  Decision
	project  []*Rule
	endpoint map[string][]*Rule
}

// NewSet sorts rules into their levels, each by priority then by the
// order given (oldest first).
func NewSet(def Decision, rules []*Rule) *Set {
	s := &Set{Default: def, endpoint: map[string][]*Rule{}}
	if !def.Valid() {
		s.Default = Allow
	}
	sorted := append([]*Rule{}, rules...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].priority < sorted[j].priority })
	for _, r := range sorted {
		if r.Endpoint == "" {
			s.project = append(s.project, r)
		} else {
			s.endpoint[r.Endpoint] = append(s.endpoint[r.Endpoint], r)
		}
	}
	return s
}

// Empty reports whether the set can only allow: no rule, default allow.
func (s *Set) Empty() bool {
	return s == nil || (s.Default == Allow && len(s.project) == 0 && len(s.endpoint) == 0)
}

// Rules returns the project rules then the endpoint rules.
func (s *Set) Rules() []*Rule {
	out := append([]*Rule{}, s.project...)
	keys := make([]string, 0, len(s.endpoint))
	for k := range s.endpoint {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, s.endpoint[k]...)
	}
	return out
}

// Evaluate decides a call made through endpoint ("" for none) under the
// session's rules (nil for none): the first matching rule of each level
// decides that level (the project level falls back to the default), and
// the strictest level wins; on a tie, the outer level's verdict is kept.
func (s *Set) Evaluate(sub Subject, endpoint string, session []*Rule) Verdict {
	v := Verdict{Decision: Allow, Level: LevelDefault}
	if s != nil {
		v.Decision = s.Default
		if r := first(s.project, sub); r != nil {
			v = Verdict{Decision: r.Decision(), Rule: r, Level: LevelProject}
		}
		if endpoint != "" {
			if r := first(s.endpoint[endpoint], sub); r != nil && r.Decision().Stricter(v.Decision) {
				v = Verdict{Decision: r.Decision(), Rule: r, Level: LevelEndpoint}
			}
		}
	}
	if r := first(session, sub); r != nil && r.Decision().Stricter(v.Decision) {
		v = Verdict{Decision: r.Decision(), Rule: r, Level: LevelSession}
	}
	return v
}

func first(rules []*Rule, sub Subject) *Rule {
	for _, r := range rules {
		if r.Matches(sub) {
			return r
		}
	}
	return nil
}

// CompileSession compiles a session's rules (validated when the session
// was created), sorted by priority.
func CompileSession(specs []Spec) ([]*Rule, error) {
	if len(specs) == 0 {
		return nil, nil
	}
	out := make([]*Rule, 0, len(specs))
	for i, sp := range specs {
		r, err := Compile("session:"+strconv.Itoa(i), "", sp, "policy", "rules", i)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].priority < out[j].priority })
	return out, nil
}
