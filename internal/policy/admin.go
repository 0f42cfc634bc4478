package policy

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// MaxRules bounds a project's rules (all levels together), so matching
// stays a short in-memory walk.
const MaxRules = 500

// RuleView is a stored rule as the API shows it.
type RuleView struct {
	ID string `json:"id"`
	// Endpoint is the slug of the MCP endpoint the rule is set on; absent
	// for a project rule.
	Endpoint  string    `json:"endpoint,omitempty"`
	Level     string    `json:"level"`
	Priority  int       `json:"priority"`
	CreatedAt time.Time `json:"createdAt"`
	Spec
}

func ruleView(p store.PolicyRule, sp Spec) RuleView {
	level := LevelProject
	if p.Endpoint != "" {
		level = LevelEndpoint
	}
	sp.Priority = nil
	return RuleView{ID: p.ID, Endpoint: p.Endpoint, Level: level, Priority: p.Priority, CreatedAt: p.CreatedAt, Spec: sp}
}

// RuleRequest is the body of POST /v1/policies and PUT /v1/policies/:id: a
// rule, and optionally the endpoint it is set on.
type RuleRequest struct {
	Endpoint string
	Spec     Spec
}

// ParseRuleRequest decodes a rule body strictly: the rule's members plus
// endpoint; unknown members, bad regexps and bad values are issues.
func ParseRuleRequest(raw []byte) (RuleRequest, error) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(raw, &obj) != nil {
		return RuleRequest{}, apierr.Validation(apierr.Issue{Code: apierr.IssueInvalidType, Path: []any{}, Message: "the body must be a JSON object"})
	}
	var r RuleRequest
	if e, ok := obj["endpoint"]; ok {
		if json.Unmarshal(e, &r.Endpoint) != nil {
			return RuleRequest{}, apierr.Validation(apierr.Issue{Code: apierr.IssueInvalidType, Path: []any{"endpoint"}, Message: "must be an endpoint slug"})
		}
		delete(obj, "endpoint")
	}
	rest, _ := json.Marshal(obj)
	sp, err := ParseSpec(rest)
	if err != nil {
		return RuleRequest{}, err
	}
	r.Spec = sp
	return r, nil
}

// checkNames reports rules naming a connector or an exact tool the
// project's catalog lacks, or an endpoint the project does not have.
func (s *Service) checkNames(ctx context.Context, t tenant.Tenant, r RuleRequest) error {
	var issues apierr.Issues
	m := r.Spec.Match
	if m.Connector != "" {
		if _, ok := t.Catalog.Connector(m.Connector); !ok {
			issues.Add(apierr.IssueInvalidValue, []any{"match", "connector"}, "%q is not a connector of this project", m.Connector)
		}
	}
	if m.Tool != "" && !strings.HasSuffix(m.Tool, "*") {
		if _, ok := t.Catalog.Tool(m.Tool); !ok {
			issues.Add(apierr.IssueInvalidValue, []any{"match", "tool"}, "%q is not a tool of this project; use a prefix ending in * for a family", m.Tool)
		}
	}
	if r.Endpoint != "" {
		e, err := s.store.EndpointBySlug(ctx, r.Endpoint)
		if errors.Is(err, store.ErrNotFound) || (err == nil && e.ProjectID != t.ProjectID) {
			issues.Add(apierr.IssueInvalidValue, []any{"endpoint"}, "%q is not an MCP endpoint of this project", r.Endpoint)
		} else if err != nil {
			return err
		}
	}
	return issues.Err()
}

// CreateRule validates and stores a rule of t's project.
func (s *Service) CreateRule(ctx context.Context, t tenant.Tenant, r RuleRequest) (RuleView, error) {
	if err := t.Check(); err != nil {
		return RuleView{}, err
	}
	if err := s.checkNames(ctx, t, r); err != nil {
		return RuleView{}, err
	}
	set, err := s.Set(ctx, t)
	if err != nil {
		return RuleView{}, err
	}
	if len(set.Rules()) >= MaxRules {
		return RuleView{}, apierr.New(apierr.Conflict, "this project has %d policy rules, the most it may have", MaxRules)
	}
	rule, err := Compile("", r.Endpoint, r.Spec)
	if err != nil {
		return RuleView{}, err
	}
	spec, _ := json.Marshal(r.Spec)
	p, err := s.store.CreatePolicy(ctx, store.PolicyRule{ProjectID: t.ProjectID, Endpoint: r.Endpoint, Priority: rule.priority, Spec: spec})
	if err != nil {
		return RuleView{}, err
	}
	return ruleView(p, r.Spec), nil
}

// UpdateRule replaces a rule of t's project.
func (s *Service) UpdateRule(ctx context.Context, t tenant.Tenant, id string, r RuleRequest) (RuleView, error) {
	if err := s.checkNames(ctx, t, r); err != nil {
		return RuleView{}, err
	}
	rule, err := Compile(id, r.Endpoint, r.Spec)
	if err != nil {
		return RuleView{}, err
	}
	spec, _ := json.Marshal(r.Spec)
	p := store.PolicyRule{ID: id, ProjectID: t.ProjectID, Endpoint: r.Endpoint, Priority: rule.priority, Spec: spec}
	if err := s.store.UpdatePolicy(ctx, p); errors.Is(err, store.ErrNotFound) {
		return RuleView{}, apierr.New(apierr.NotFound, "no policy rule %s in this project", id)
	} else if err != nil {
		return RuleView{}, err
	}
	return s.GetRule(ctx, t.ProjectID, id)
}

// GetRule returns one stored rule.
func (s *Service) GetRule(ctx context.Context, projectID, id string) (RuleView, error) {
	p, err := s.store.GetPolicy(ctx, projectID, id)
	if errors.Is(err, store.ErrNotFound) {
		return RuleView{}, apierr.New(apierr.NotFound, "no policy rule %s in this project", id)
	}
	if err != nil {
		return RuleView{}, err
	}
	r, err := compileStored(p)
	if err != nil {
		return RuleView{}, err
	}
	return ruleView(p, r.Spec), nil
}

// DeleteRule removes a rule.
func (s *Service) DeleteRule(ctx context.Context, projectID, id string) error {
	err := s.store.DeletePolicy(ctx, projectID, id)
	if errors.Is(err, store.ErrNotFound) {
		return apierr.New(apierr.NotFound, "no policy rule %s in this project", id)
	}
	return err
}

// ListRules returns the project's rules in the order they are tried
// (project rules, then each endpoint's), with its default decision.
func (s *Service) ListRules(ctx context.Context, projectID string) ([]RuleView, Decision, error) {
	pr, err := s.store.LoadPolicies(ctx, projectID)
	if err != nil {
		return nil, "", err
	}
	out := []RuleView{}
	var endpoints []RuleView
	for _, p := range pr.Rules {
		r, err := compileStored(p)
		if err != nil {
			continue
		}
		if p.Endpoint == "" {
			out = append(out, ruleView(p, r.Spec))
		} else {
			endpoints = append(endpoints, ruleView(p, r.Spec))
		}
	}
	return append(out, endpoints...), Decision(pr.Default), nil
}

// SetDefault sets what a call matching no project rule gets: allow (the
// default) or deny ("deny by default"); ask holds every such call.
func (s *Service) SetDefault(ctx context.Context, projectID string, d Decision) error {
	if !d.Valid() {
		return apierr.Validation(apierr.Issue{Code: apierr.IssueInvalidValue, Path: []any{"defaultDecision"}, Message: "must be allow, ask or deny"})
	}
	err := s.store.SetPolicyDefault(ctx, projectID, string(d))
	if errors.Is(err, store.ErrNotFound) {
		return apierr.New(apierr.NotFound, "no project %s", projectID)
	}
	return err
}
