package quota

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// Bounds of a quota (docs/quotas.md).
const (
	MaxLimit       = 1_000_000_000
	MaxPerProject  = 100
	maxUserIDLen   = 256
	maxToolIDLen   = 200
	maxConnectorID = 200
)

// Request creates a quota (POST /v1/quotas, admin quota create) or, with
// only Window and Limit, changes one (PATCH /v1/quotas/:id).
type Request struct {
	Window      string `json:"window"`
	Limit       *int64 `json:"limit"`
	UserID      string `json:"userId,omitempty"`
	PerUser     bool   `json:"perUser,omitempty"`
	ConnectorID string `json:"connectorId,omitempty"`
	ToolID      string `json:"toolId,omitempty"`
}

// View is a quota as the API shows it.
type View struct {
	ID          string    `json:"id"`
	Window      string    `json:"window"`
	Limit       int64     `json:"limit"`
	UserID      *string   `json:"userId"`
	PerUser     bool      `json:"perUser"`
	ConnectorID *string   `json:"connectorId"`
	ToolID      *string   `json:"toolId"`
	CreatedAt   time.Time `json:"createdAt"`
}

// ViewOf returns the API view of q.
func ViewOf(q store.Quota) View {
	opt := func(s string) *string {
		if s == "" {
			return nil
		}
		return &s
	}
	return View{ID: q.ID, Window: WindowName(q.Period), Limit: q.Limit, UserID: opt(q.UserID), PerUser: q.PerUser,
		ConnectorID: opt(q.ConnectorID), ToolID: opt(q.ToolID), CreatedAt: q.CreatedAt}
}

// checkWindow adds the issues of a window and limit.
func checkWindow(r Request, issues *apierr.Issues) int {
	period, ok := windows[r.Window]
	switch {
	case r.Window == "":
		issues.Add(apierr.IssueRequired, []any{"window"}, "is required: minute, hour or day")
	case !ok:
		issues.Add(apierr.IssueInvalidValue, []any{"window"}, "must be minute, hour or day")
	}
	switch {
	case r.Limit == nil:
		issues.Add(apierr.IssueRequired, []any{"limit"}, "is required: the most calls allowed in one window")
	case *r.Limit < 1:
		issues.Add(apierr.IssueTooSmall, []any{"limit"}, "must be at least 1")
	case *r.Limit > MaxLimit:
		issues.Add(apierr.IssueTooBig, []any{"limit"}, "must be at most %d", MaxLimit)
	}
	return period
}

// Create validates r against t's catalog and stores it as a new quota.
func (s *Service) Create(ctx context.Context, t tenant.Tenant, r Request) (store.Quota, error) {
	if err := t.Check(); err != nil {
		return store.Quota{}, err
	}
	var issues apierr.Issues
	period := checkWindow(r, &issues)
	if utf8.RuneCountInString(r.UserID) > maxUserIDLen {
		issues.Add(apierr.IssueTooBig, []any{"userId"}, "must be at most %d characters", maxUserIDLen)
	}
	if r.ConnectorID != "" {
		if len(r.ConnectorID) > maxConnectorID {
			issues.Add(apierr.IssueTooBig, []any{"connectorId"}, "must be at most %d characters", maxConnectorID)
		} else if _, ok := t.Catalog.Connector(r.ConnectorID); !ok {
			issues.Add(apierr.IssueInvalidValue, []any{"connectorId"}, "is not a connector of this project; GET /v1/connectors lists them")
		}
	}
	if r.ToolID != "" {
		checkTool(t, r, &issues)
	}
	if err := issues.Err(); err != nil {
		return store.Quota{}, err
	}
	existing, err := s.store.ListQuotas(ctx, t.ProjectID)
	if err != nil {
		return store.Quota{}, err
	}
	if len(existing) >= MaxPerProject {
		return store.Quota{}, apierr.New(apierr.Conflict, "a project has at most %d quotas; delete one first", MaxPerProject)
	}
	return s.store.CreateQuota(ctx, store.Quota{ProjectID: t.ProjectID, Period: period, Limit: *r.Limit,
		UserID: r.UserID, PerUser: r.PerUser, ConnectorID: r.ConnectorID, ToolID: r.ToolID})
}

// checkTool adds the issues of a tool filter: an id of the catalog, or a
// prefix ending in '*' that some tool has, within the connector when one
// is named too.
func checkTool(t tenant.Tenant, r Request, issues *apierr.Issues) {
	if len(r.ToolID) > maxToolIDLen {
		issues.Add(apierr.IssueTooBig, []any{"toolId"}, "must be at most %d characters", maxToolIDLen)
		return
	}
	prefix, wild := strings.CutSuffix(r.ToolID, "*")
	if wild && (prefix == "" || strings.Contains(prefix, "*")) {
		issues.Add(apierr.IssueInvalidValue, []any{"toolId"}, "give a tool id, or a non-empty prefix ending in *")
		return
	}
	if !wild {
		tool, ok := t.Catalog.Tool(r.ToolID)
		switch {
		case !ok:
			issues.Add(apierr.IssueInvalidValue, []any{"toolId"}, "is not a tool of this project; GET /v1/tools lists them")
		case r.ConnectorID != "" && tool.Connector().ID != r.ConnectorID:
			issues.Add(apierr.IssueInvalidValue, []any{"toolId"}, "is a tool of %s, not of %s", tool.Connector().ID, r.ConnectorID)
		}
		return
	}
	for _, tool := range t.Catalog.Tools() {
		if strings.HasPrefix(tool.ID, prefix) && (r.ConnectorID == "" || tool.Connector().ID == r.ConnectorID) {
			return
		}
	}
	issues.Add(apierr.IssueInvalidValue, []any{"toolId"}, "no tool of this project starts with %q", prefix)
}

// Update changes a quota's window and limit; its filters stay (delete it
// and create another to change them).
func (s *Service) Update(ctx context.Context, t tenant.Tenant, id string, r Request) (store.Quota, error) {
	if err := t.Check(); err != nil {
		return store.Quota{}, err
	}
	var issues apierr.Issues
	period := checkWindow(r, &issues)
	for _, f := range []struct {
		name string
		set  bool
	}{{"userId", r.UserID != ""}, {"perUser", r.PerUser}, {"connectorId", r.ConnectorID != ""}, {"toolId", r.ToolID != ""}} {
		if f.set {
			issues.Add(apierr.IssueInvalidValue, []any{f.name}, "cannot be changed; delete the quota and create another")
		}
	}
	if err := issues.Err(); err != nil {
		return store.Quota{}, err
	}
	q, err := s.store.UpdateQuota(ctx, t.ProjectID, id, period, *r.Limit)
	if errors.Is(err, store.ErrNotFound) {
		return store.Quota{}, notFound(id)
	}
	return q, err
}

// Delete removes a quota and its counts.
func (s *Service) Delete(ctx context.Context, t tenant.Tenant, id string) error {
	if err := t.Check(); err != nil {
		return err
	}
	err := s.store.DeleteQuota(ctx, t.ProjectID, id)
	if errors.Is(err, store.ErrNotFound) {
		return notFound(id)
	}
	return err
}

// Get returns one quota of t's project.
func (s *Service) Get(ctx context.Context, t tenant.Tenant, id string) (store.Quota, error) {
	if err := t.Check(); err != nil {
		return store.Quota{}, err
	}
	q, err := s.store.GetQuota(ctx, t.ProjectID, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Quota{}, notFound(id)
	}
	return q, err
}

// List returns the quotas of t's project, oldest first.
func (s *Service) List(ctx context.Context, t tenant.Tenant) ([]store.Quota, error) {
	if err := t.Check(); err != nil {
		return nil, err
	}
	return s.store.ListQuotas(ctx, t.ProjectID)
}

func notFound(id string) error {
	return apierr.New(apierr.NotFound, "no quota %q in this project; GET /v1/quotas lists them", id)
}
