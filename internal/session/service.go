package session

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/connect"
	"github.com/switchboard-gw/switchboard/internal/execlog"
	"github.com/switchboard-gw/switchboard/internal/execute"
	"github.com/switchboard-gw/switchboard/internal/policy"
	"github.com/switchboard-gw/switchboard/internal/redact"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// Options configure a Service.
type Options struct {
	Store    *store.Store
	Accounts *account.Service
	Executor *execute.Executor
	Links    *connect.Service
	// Policies records in-place approvals from MCP clients; nil refuses them.
	Policies *policy.Service
	// BaseURL is {base_url}, for mcpUrl.
	BaseURL string
	Now     func() time.Time
	// Log records the calls that act (execlog); nil records nothing.
	Log *execlog.Log
	// Redact holds projects' redaction rules, applied to what a call hands
	// the model; nil redacts nothing.
	Redact *redact.Service
}

// Service creates, reads and runs sessions.
type Service struct {
	store    *store.Store
	accounts *account.Service
	exec     *execute.Executor
	links    *connect.Service
	log      *execlog.Log
	policies *policy.Service
	redact   *redact.Service
	baseURL  string
	now      func() time.Time
	cache    caches
}

// NewService returns a Service.
func NewService(o Options) *Service {
	s := &Service{store: o.Store, accounts: o.Accounts, exec: o.Executor, links: o.Links, log: o.Log, policies: o.Policies, redact: o.Redact, baseURL: o.BaseURL, now: o.Now,
		cache: newCaches()}
	if s.now == nil {
		s.now = time.Now
	}
	return s
}

// Session is a live session with its spec.
type Session struct {
	ID string
	// EndpointID is set on the session a project endpoint's call runs as.
	EndpointID string
	ProjectID  string
	Spec       Spec
	ExpiresAt  time.Time
}

// Scope is the resolved set of tools a session may use.
type Scope struct {
	Tools []*catalog.Tool
	byID  map[string]*catalog.Tool
	// Connectors are the session's connectors: the ones it names, or every
	// connector with a tool in scope.
	Connectors []*catalog.Connector
	Hash       string
}

// Has reports whether a tool is in scope.
func (sc *Scope) Has(id string) bool { _, ok := sc.byID[id]; return ok }

// HasConnector reports whether a connector belongs to the session.
func (sc *Scope) HasConnector(id string) bool {
	return slices.ContainsFunc(sc.Connectors, func(c *catalog.Connector) bool { return c.ID == id })
}

// Create validates a request against tn's catalog and stores a new session
// in tn's project.
func (s *Service) Create(ctx context.Context, tn tenant.Tenant, r CreateRequest) (*Session, *Scope, error) {
	if err := tn.Check(); err != nil {
		return nil, nil, err
	}
	projectID := tn.ProjectID
	var issues apierr.Issues
	spec, ttl := r.validate(tn.Catalog, &issues)
	if err := issues.Err(); err != nil {
		return nil, nil, err
	}
	sc, err := s.Scope(ctx, tn, spec)
	if err != nil {
		return nil, nil, err
	}
	for i, p := range spec.Pinned {
		if !sc.Has(p) {
			issues.Add(apierr.IssueInvalidValue, []any{"pinned", i}, "%q is not a tool in the session's scope", p)
		}
	}
	if len(spec.Accounts) > 0 {
		conns, err := s.store.ListConnections(ctx, projectID, spec.UserID)
		if err != nil {
			return nil, nil, err
		}
		for connector, ref := range spec.Accounts {
			if !slices.ContainsFunc(conns, func(c store.Connection) bool {
				return c.ConnectorID == connector && (!c.Global || spec.AllowGlobalAccounts) && account.MatchesRef(c, ref)
			}) {
				issues.Add(apierr.IssueInvalidValue, []any{"accounts", connector}, "user %q has no %s account %q", spec.UserID, connector, ref)
			}
		}
	}
	if err := issues.Err(); err != nil {
		return nil, nil, err
	}
	raw, err := json.Marshal(spec)
	if err != nil {
		return nil, nil, err
	}
	st, err := s.store.CreateSession(ctx, store.Session{ProjectID: projectID, UserID: spec.UserID, Spec: raw,
		ExpiresAt: s.now().Add(time.Duration(ttl) * time.Minute)})
	if err != nil {
		return nil, nil, err
	}
	return &Session{ID: st.ID, ProjectID: projectID, Spec: spec, ExpiresAt: st.ExpiresAt}, sc, nil
}

// sessionTenant checks that tn is the tenant of the session's project.
func sessionTenant(tn tenant.Tenant, ss *Session) error {
	if err := tn.Check(); err != nil {
		return err
	}
	if ss.ProjectID != tn.ProjectID {
		return fmt.Errorf("session: session %s of project %s used with the tenant of project %s", ss.ID, ss.ProjectID, tn.ProjectID)
	}
	return nil
}

// Get returns a live session; unknown or expired is 404 SESSION_NOT_FOUND.
func (s *Service) Get(ctx context.Context, projectID, id string) (*Session, error) {
	st, err := s.store.GetSession(ctx, projectID, id)
	if errors.Is(err, store.ErrNotFound) {
		return nil, apierr.New(apierr.SessionNotFound, "no session %s: it is unknown or expired", id)
	}
	if err != nil {
		return nil, err
	}
	var spec Spec
	if err := json.Unmarshal(st.Spec, &spec); err != nil {
		return nil, fmt.Errorf("session: decode spec of %s: %w", id, err)
	}
	return &Session{ID: st.ID, ProjectID: st.ProjectID, Spec: spec, ExpiresAt: st.ExpiresAt}, nil
}

// Scope resolves the tools of a spec: its connectors ∩ its actions ∩ the
// enabled tools of tn's project, filtered by the policy.
func (s *Service) Scope(ctx context.Context, tn tenant.Tenant, spec Spec) (*Scope, error) {
	if err := tn.Check(); err != nil {
		return nil, err
	}
	// At an unchanged catalog and tool-switch version, a scope resolved
	// before is still right.
	b, _ := json.Marshal(spec)
	key := scopeKey{cat: tn.Catalog, project: tn.ProjectID, version: tn.ToolsVersion, spec: string(b)}
	if sc := s.cache.scope(key); sc != nil {
		return sc, nil
	}
	sc, err := s.resolveScope(ctx, tn, spec)
	if err == nil {
		s.cache.putScope(key, sc)
	}
	return sc, err
}

func (s *Service) resolveScope(ctx context.Context, tn tenant.Tenant, spec Spec) (*Scope, error) {
	cat := tn.Catalog
	disabled, err := s.store.DisabledTools(ctx, tn.ProjectID, tn.ToolsVersion)
	if err != nil {
		return nil, err
	}
	sc := &Scope{byID: map[string]*catalog.Tool{}}
	h := sha256.New()
	pol, _ := json.Marshal(spec.Policy)
	fmt.Fprintf(h, "%s\n%v\n", pol, spec.AllowGlobalAccounts)
	seen := map[string]bool{}
	for _, t := range cat.Tools() {
		if disabled[t.ID] || excluded(spec, t) != "" {
			continue
		}
		sc.Tools = append(sc.Tools, t)
		sc.byID[t.ID] = t
		h.Write([]byte(t.ID + "\n"))
		seen[t.Connector().ID] = true
	}
	if spec.Connectors != nil {
		for _, id := range spec.Connectors {
			if c, ok := cat.Connector(id); ok {
				sc.Connectors = append(sc.Connectors, c)
			}
		}
	} else {
		for _, c := range cat.Connectors() {
			if seen[c.ID] {
				sc.Connectors = append(sc.Connectors, c)
			}
		}
	}
	sc.Hash = hex.EncodeToString(h.Sum(nil))[:32]
	return sc, nil
}

// excluded says why a tool is outside a spec's scope: not_in_scope,
// read_only or data_class_not_allowed; "" when it is inside.
func excluded(spec Spec, t *catalog.Tool) string {
	if spec.Connectors != nil && !slices.Contains(spec.Connectors, t.Connector().ID) {
		return "not_in_scope"
	}
	if spec.Actions != nil && !slices.ContainsFunc(spec.Actions, func(p string) bool { return matchAction(p, t.ID) }) {
		return "not_in_scope"
	}
	if spec.Policy.ReadOnly && t.Effect != catalog.EffectRead {
		return "read_only"
	}
	if catalog.ClassRank(t.Classification()) > catalog.ClassRank(spec.Policy.MaxDataClass) {
		return "data_class_not_allowed"
	}
	return ""
}

// View is a session as the API shows it (openapi.json, schema Session).
type View struct {
	ID                  string          `json:"id"`
	UserID              string          `json:"userId"`
	ExpiresAt           time.Time       `json:"expiresAt"`
	ScopeHash           string          `json:"scopeHash"`
	ActionCount         int             `json:"actionCount"`
	Pinned              []string        `json:"pinned"`
	Policy              Policy          `json:"policy"`
	AllowGlobalAccounts bool            `json:"allowGlobalAccounts"`
	Connectors          []ConnectorView `json:"connectors"`
	MCPURL              string          `json:"mcpUrl"`
}

// ConnectorView is one connector of a session with the user's connection status.
type ConnectorView struct {
	ID         string        `json:"id"`
	Name       string        `json:"name"`
	Actions    int           `json:"actions"`
	Connection StatusView    `json:"connection"`
	Accounts   []AccountView `json:"accounts,omitempty"`
}

// StatusView is connected, missing or reauth_required.
type StatusView struct {
	Status string `json:"status"`
}

// AccountView is an account of the session's user, as a model sees it.
type AccountView struct {
	ID          string `json:"id"`
	Connector   string `json:"connector,omitempty"`
	Name        string `json:"name"`
	Label       string `json:"label,omitempty"`
	DisplayName string `json:"displayName"`
	Status      string `json:"status"`
	IsDefault   bool   `json:"isDefault"`
	Global      bool   `json:"global,omitempty"`
}

// Connection statuses in a session view (docs/sessions.md).
const (
	Connected      = "connected"
	Missing        = "missing"
	ReauthRequired = "reauth_required"
)

// accountsOf returns the session user's usable-looking accounts per connector.
func (s *Service) accountsOf(ctx context.Context, tn tenant.Tenant, ss *Session) (map[string][]AccountView, error) {
	conns, err := s.store.ResolutionAccounts(ctx, ss.ProjectID, tn.ConnectionsVersion, ss.Spec.UserID)
	if err != nil {
		return nil, err
	}
	out := map[string][]AccountView{}
	for _, c := range conns {
		if c.Global && !ss.Spec.AllowGlobalAccounts {
			continue
		}
		label := ""
		if c.Label != nil {
			label = *c.Label
		}
		out[c.ConnectorID] = append(out[c.ConnectorID], AccountView{ID: c.ID, Connector: c.ConnectorID, Name: c.Name, Label: label,
			DisplayName: account.DisplayName(c), Status: c.Status, IsDefault: c.IsDefault, Global: c.Global})
	}
	return out, nil
}

// statusOf is the status of the account a call of the session would run
// with, as account.Resolve picks it (docs/connections.md): the session's
// accounts entry for the connector, else the user's default, else the single
// global account when the session allows them. So a broken default is
// reauth_required even when another of the user's accounts works, as
// execute would refuse it.
func (ss *Session) statusOf(connector string, accts []AccountView) string {
	status := func(a AccountView) string {
		if a.Status == store.StatusActive {
			return Connected
		}
		return ReauthRequired
	}
	if ref := ss.Spec.Accounts[connector]; ref != "" {
		for _, a := range accts {
			if a.ID == ref || a.Name == ref || (a.Label != "" && strings.EqualFold(a.Label, ref)) {
				return status(a)
			}
		}
		return Missing
	}
	var globals []AccountView
	for _, a := range accts {
		if a.Global {
			globals = append(globals, a)
		} else if a.IsDefault {
			return status(a)
		}
	}
	switch len(globals) {
	case 0:
		return Missing
	case 1:
		return status(globals[0])
	}
	// Several global accounts: a call must name one, so the connector is
	// connected when any of them works.
	for _, a := range globals {
		if a.Status == store.StatusActive {
			return Connected
		}
	}
	return ReauthRequired
}

// View returns the session with connection states derived now.
func (s *Service) View(ctx context.Context, tn tenant.Tenant, ss *Session, sc *Scope) (View, error) {
	if err := sessionTenant(tn, ss); err != nil {
		return View{}, err
	}
	accts, err := s.accountsOf(ctx, tn, ss)
	if err != nil {
		return View{}, err
	}
	counts := map[string]int{}
	for _, t := range sc.Tools {
		counts[t.Connector().ID]++
	}
	v := View{
		ID: ss.ID, UserID: ss.Spec.UserID, ExpiresAt: ss.ExpiresAt, ScopeHash: sc.Hash, ActionCount: len(sc.Tools),
		Pinned: ss.Spec.Pinned, Policy: ss.Spec.Policy, AllowGlobalAccounts: ss.Spec.AllowGlobalAccounts,
		MCPURL: s.baseURL + "/v1/sessions/" + ss.ID + "/mcp", Connectors: []ConnectorView{},
	}
	for _, c := range sc.Connectors {
		cv := ConnectorView{ID: c.ID, Name: c.Name, Actions: counts[c.ID], Connection: StatusView{Status: ss.statusOf(c.ID, accts[c.ID])}}
		if len(accts[c.ID]) > 1 {
			cv.Accounts = accts[c.ID]
		}
		v.Connectors = append(v.Connectors, cv)
	}
	return v, nil
}

// DecideInClient records the decision the person at an MCP client of the
// session made on an approval of this session's user, asked in place
// (elicitation). client names the client for the record.
func (s *Service) DecideInClient(ctx context.Context, tn tenant.Tenant, ss *Session, approvalID string, approve bool, client string) error {
	if err := sessionTenant(tn, ss); err != nil {
		return err
	}
	if s.policies == nil {
		return apierr.New(apierr.Forbidden, "approvals cannot be decided in the client here")
	}
	return s.policies.DecideInClient(ctx, tn.ProjectID, policy.ClientDecision{ApprovalID: approvalID, SessionID: ss.ID,
		UserID: ss.Spec.UserID, Approve: approve, Client: client})
}
