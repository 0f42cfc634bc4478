package redact

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/lru"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// Rules are a project's redaction rules as the API and the database hold
// them (PUT /v1/redaction).
type Rules struct {
	// Detectors names the built-in detectors that run (Detectors).
	Detectors []string `json:"detectors"`
	// Patterns are the project's own regular expressions (RE2 syntax).
	Patterns []Pattern `json:"patterns"`
	// RESTExecute redacts the answers of POST /v1/tools/execute and
	// /v1/tools/proxy too; by default only what reaches a model (session
	// and MCP tool results) is redacted.
	RESTExecute bool `json:"restExecute"`
}

// Pattern is one of a project's own patterns: matches are replaced by
// "[redacted:<name>]" (only the first group's text, when the pattern has a
// capturing group).
type Pattern struct {
	Name    string `json:"name"`
	Pattern string `json:"pattern"`
}

// Bounds of Rules.
const (
	MaxPatterns   = 20
	maxPatternLen = 500
)

var patternName = regexp.MustCompile(`^[a-z][a-z0-9_]{0,39}$`)

// Validate checks rules and returns every problem, with paths.
func (r Rules) Validate() error {
	var issues apierr.Issues
	if len(r.Detectors) == 0 && len(r.Patterns) == 0 {
		issues.Add(apierr.IssueRequired, []any{"detectors"}, "name at least one detector or pattern; DELETE /v1/redaction turns redaction off")
	}
	for i, d := range r.Detectors {
		switch {
		case !slices.Contains(Detectors, d):
			issues.Add(apierr.IssueInvalidValue, []any{"detectors", i}, "must be one of email, phone, card, iban, secret")
		case slices.Index(r.Detectors, d) < i:
			issues.Add(apierr.IssueInvalidValue, []any{"detectors", i}, "%s is named twice", d)
		}
	}
	if len(r.Patterns) > MaxPatterns {
		issues.Add(apierr.IssueTooBig, []any{"patterns"}, "at most %d patterns", MaxPatterns)
	}
	for i, p := range r.Patterns {
		switch {
		case !patternName.MatchString(p.Name):
			issues.Add(apierr.IssueInvalidValue, []any{"patterns", i, "name"}, "must be 1 to 40 lowercase letters, digits and _, starting with a letter")
		case slices.Contains(Detectors, p.Name) || slices.IndexFunc(r.Patterns, func(o Pattern) bool { return o.Name == p.Name }) < i:
			issues.Add(apierr.IssueInvalidValue, []any{"patterns", i, "name"}, "%s is already a detector's or another pattern's name", p.Name)
		}
		if p.Pattern == "" || len(p.Pattern) > maxPatternLen {
			issues.Add(apierr.IssueInvalidValue, []any{"patterns", i, "pattern"}, "must be 1 to %d characters", maxPatternLen)
			continue
		}
		re, err := regexp.Compile(p.Pattern)
		if err != nil {
			issues.Add(apierr.IssueInvalidValue, []any{"patterns", i, "pattern"}, "is not a regular expression (RE2 syntax): %s", err.Error())
			continue
		}
		if re.MatchString("") {
			issues.Add(apierr.IssueInvalidValue, []any{"patterns", i, "pattern"}, "matches the empty string, so it would match everywhere")
		}
	}
	return issues.Err()
}

// Compile validates rules and compiles them into a Set.
func Compile(r Rules) (*Set, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	return compile(r)
}

// maxCachedProjects bounds the cache of projects' compiled rules.
const maxCachedProjects = 4096

// Service keeps projects' rules: it stores them and hands out their
// compiled Sets.
type Service struct {
	store *store.Store
	cache *lru.Cache[string, cachedSet]
}

type cachedSet struct {
	version int64
	set     *Set
}

// New returns a Service.
func New(st *store.Store) *Service {
	return &Service{store: st, cache: lru.New[string, cachedSet](maxCachedProjects)}
}

// For returns the compiled rules of t's project as of its tools_version,
// or nil when it has none. A nil Service has none.
func (s *Service) For(ctx context.Context, t tenant.Tenant) (*Set, error) {
	if s == nil {
		return nil, nil
	}
	if c, ok := s.cache.Get(t.ProjectID); ok && c.version == t.ToolsVersion {
		return c.set, nil
	}
	set, err := s.load(ctx, t.ProjectID)
	if err != nil {
		return nil, err
	}
	if c, ok := s.cache.Get(t.ProjectID); !ok || c.version <= t.ToolsVersion {
		s.cache.Put(t.ProjectID, cachedSet{version: t.ToolsVersion, set: set})
	}
	return set, nil
}

// ForProject is For for a caller that knows only the project (the
// execution log's writer): it reads the project's version first.
func (s *Service) ForProject(ctx context.Context, projectID string) (*Set, error) {
	if s == nil {
		return nil, nil
	}
	kp, err := s.store.ProjectVersions(ctx, projectID)
	if err != nil {
		return nil, err
	}
	return s.For(ctx, tenant.Tenant{ProjectID: projectID, ToolsVersion: kp.ToolsVersion})
}

func (s *Service) load(ctx context.Context, projectID string) (*Set, error) {
	raw, err := s.store.RedactionRules(ctx, projectID)
	if err != nil || raw == nil {
		return nil, err
	}
	var r Rules
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("redact: rules of project %s: %w", projectID, err)
	}
	set, err := compile(r)
	if err != nil {
		return nil, fmt.Errorf("redact: rules of project %s: %w", projectID, err)
	}
	return set, nil
}

// Get returns the rules of t's project; ok is false when it has none.
func (s *Service) Get(ctx context.Context, t tenant.Tenant) (r Rules, ok bool, err error) {
	if err := t.Check(); err != nil {
		return Rules{}, false, err
	}
	raw, err := s.store.RedactionRules(ctx, t.ProjectID)
	if err != nil || raw == nil {
		return Rules{}, false, err
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return Rules{}, false, fmt.Errorf("redact: rules of project %s: %w", t.ProjectID, err)
	}
	return r.normal(), true, nil
}

// Put validates and stores the rules of t's project, replacing any.
func (s *Service) Put(ctx context.Context, t tenant.Tenant, r Rules) (Rules, error) {
	if err := t.Check(); err != nil {
		return Rules{}, err
	}
	if err := r.Validate(); err != nil {
		return Rules{}, err
	}
	r = r.normal()
	raw, err := json.Marshal(r)
	if err != nil {
		return Rules{}, err
	}
	return r, s.store.SetRedactionRules(ctx, t.ProjectID, raw)
}

// Delete removes the rules of t's project: nothing is redacted any more.
func (s *Service) Delete(ctx context.Context, t tenant.Tenant) error {
	if err := t.Check(); err != nil {
		return err
	}
	return s.store.SetRedactionRules(ctx, t.ProjectID, nil)
}

// normal gives empty lists as [] rather than null.
func (r Rules) normal() Rules {
	if r.Detectors == nil {
		r.Detectors = []string{}
	}
	if r.Patterns == nil {
		r.Patterns = []Pattern{}
	}
	return r
}
