package connect

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/execute"
	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// Link states reported by GET /api/connect/:token (docs/connect.md).
const (
	StateActive  = "active"
	StateUsed    = "used"
	StateExpired = "expired"
)

// PageOptions configure the hosted Connect page backend.
type PageOptions struct {
	Links   *Service
	Store   *store.Store
	Catalog *catalog.Catalog
	// Projects, when set, gives a link's project its catalog with the
	// project's own connectors; without it the page offers built-ins only.
	Projects ProjectCatalogs
	Accounts *account.Service
	Executor *execute.Executor
	Keyring  *secret.Keyring
	// Guard gives the token exchange of each connector the client of its
	// outbound scope.
	Guard  *netguard.Guard
	Logger *slog.Logger
	// BaseURL is {base_url} (the OAuth callback) and AssetsURL {assets_url}.
	BaseURL   string
	AssetsURL string
	Now       func() time.Time
}

// ProjectCatalogs returns a project's catalog (upstream.Catalogs does).
type ProjectCatalogs interface {
	For(ctx context.Context, projectID string) (*catalog.Catalog, error)
}

// catalog returns the catalog of a link's project, the built-ins when the
// project's own connectors cannot be read.
func (p *Page) catalog(ctx context.Context, projectID string) *catalog.Catalog {
	if cat := catalog.FromContext(ctx, nil); cat != nil {
		return cat // projectContext put it there
	}
	if p.Projects == nil {
		return p.Catalog
	}
	cat, err := p.Projects.For(ctx, projectID)
	if err != nil {
		p.Logger.WarnContext(ctx, "cannot read a project's own connectors; the connect page offers built-ins only",
			"project_id", projectID, "error", err.Error())
		return p.Catalog
	}
	return cat
}

// projectContext carries a link's project catalog, for the account
// service and the executor.
func (p *Page) projectContext(ctx context.Context, projectID string) context.Context {
	return catalog.NewContext(ctx, p.catalog(ctx, projectID))
}

// Page serves the hosted Connect page's backend: the link's view, storing
// key or field credentials, and OAuth authorization with its callback.
type Page struct{ PageOptions }

// NewPage returns a Page.
func NewPage(o PageOptions) *Page {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	return &Page{PageOptions: o}
}

// CallbackPath is the OAuth redirect URI's path on {base_url}.
const CallbackPath = "/api/oauth/callback"

// link resolves a token to its link and state; an unknown token is 404 NOT_FOUND.
func (p *Page) link(ctx context.Context, token string) (store.ConnectLink, string, error) {
	l, err := p.Store.ConnectLinkByToken(ctx, apikey.Hash(token))
	if errors.Is(err, store.ErrNotFound) {
		return l, "", apierr.New(apierr.NotFound, "this connect link is not valid; ask for a new one")
	}
	if err != nil {
		return l, "", err
	}
	switch {
	case l.UsedAt != nil:
		return l, StateUsed, nil
	case !p.Now().Before(l.ExpiresAt):
		return l, StateExpired, nil
	}
	return l, StateActive, nil
}

// active resolves a token to a link that can still be used.
func (p *Page) active(ctx context.Context, token string) (store.ConnectLink, error) {
	l, state, err := p.link(ctx, token)
	if err != nil {
		return l, err
	}
	switch state {
	case StateUsed:
		return l, apierr.New(apierr.LinkUsed, "this connect link was already used; ask for a new one")
	case StateExpired:
		return l, apierr.New(apierr.LinkExpired, "this connect link has expired; ask for a new one")
	}
	return l, nil
}

// Field is one input the page shows for a credential.
type Field struct {
	Name        string `json:"name"`
	Label       string `json:"label"`
	Secret      bool   `json:"secret"`
	Placeholder string `json:"placeholder,omitempty"`
	Group       string `json:"group,omitempty"`
	// Default is the value used when the user leaves the field empty.
	Default string `json:"default,omitempty"`
}

// OfferedConfig is an auth config the link offers.
type OfferedConfig struct {
	ID     string  `json:"id"`
	Key    string  `json:"key"`
	Type   string  `json:"type"`
	Name   string  `json:"name"`
	Fields []Field `json:"fields"`
}

// OfferedConnector is a connector the link offers.
type OfferedConnector struct {
	ID          string          `json:"id"`
	Name        string          `json:"name"`
	Logo        string          `json:"logo,omitempty"`
	AuthConfigs []OfferedConfig `json:"authConfigs"`
}

// Branding is how the page presents the project.
type Branding struct {
	Name   string `json:"name"`
	Accent string `json:"accent"`
	Logo   string `json:"logo,omitempty"`
}

// View is GET /api/connect/:token.
type View struct {
	Status      string               `json:"status"`
	ExpiresAt   time.Time            `json:"expiresAt"`
	Branding    Branding             `json:"branding"`
	Connectors  []OfferedConnector   `json:"connectors"`
	Accounts    []account.PublicView `json:"accounts"`
	SelfManage  bool                 `json:"selfManage"`
	RedirectURL string               `json:"redirectUrl,omitempty"`
}

// offered lists what a link offers: its connectors (or every connector the
// project can connect), each with the auth configs the link allows. OAuth
// methods need a configured client; the others get implicit configs.
func (p *Page) offered(ctx context.Context, l store.ConnectLink) ([]OfferedConnector, map[string]store.AuthConfig, error) {
	configs, err := p.Store.ListAuthConfigs(ctx, l.ProjectID, "")
	if err != nil {
		return nil, nil, err
	}
	cat := p.catalog(ctx, l.ProjectID)
	var connectors []*catalog.Connector
	if len(l.Connectors) > 0 {
		for _, id := range l.Connectors {
			if c, ok := cat.Connector(id); ok {
				connectors = append(connectors, c)
			}
		}
	} else if len(l.AuthConfigs) > 0 {
		seen := map[string]bool{}
		for _, ac := range configs {
			if slices.Contains(l.AuthConfigs, ac.Key) && !seen[ac.ConnectorID] {
				if c, ok := cat.Connector(ac.ConnectorID); ok {
					connectors = append(connectors, c)
					seen[c.ID] = true
				}
			}
		}
	} else {
		connectors = cat.Connectors()
	}
	byID := map[string]store.AuthConfig{}
	var out []OfferedConnector
	for _, c := range connectors {
		oc := OfferedConnector{ID: c.ID, Name: c.Name}
		if c.Builtin() { // a project's own connectors have no logo file
			oc.Logo = p.AssetsURL + "/logos/" + c.ID
		}
		for i := range c.AuthMethods {
			m := &c.AuthMethods[i]
			var cands []store.AuthConfig
			for _, ac := range configs {
				if ac.ConnectorID == c.ID && ac.AuthMethodID == m.ID {
					cands = append(cands, ac)
				}
			}
			if len(cands) == 0 && m.Type != catalog.AuthOAuth2 {
				if len(l.AuthConfigs) > 0 && !slices.Contains(l.AuthConfigs, c.ID+"_"+m.ID) {
					continue
				}
				ac, err := p.Store.EnsureImplicitAuthConfig(ctx, l.ProjectID, c.ID, c.ID+"_"+m.ID, m.ID, m.Type)
				if err != nil {
					return nil, nil, err
				}
				cands = append(cands, ac)
			}
			for _, ac := range cands {
				if len(l.AuthConfigs) > 0 && !slices.Contains(l.AuthConfigs, ac.Key) {
					continue
				}
				if m.Type == catalog.AuthOAuth2 && ac.ClientID == "" {
					continue // no client configured: not offerable
				}
				byID[ac.ID] = ac
				oc.AuthConfigs = append(oc.AuthConfigs, OfferedConfig{ID: ac.ID, Key: ac.Key, Type: m.Type, Name: m.Name, Fields: fieldsOf(c, m)})
			}
		}
		if len(oc.AuthConfigs) > 0 {
			out = append(out, oc)
		}
	}
	if out == nil {
		out = []OfferedConnector{}
	}
	return out, byID, nil
}

// fieldsOf lists the inputs of a method's credential, then the connector's
// connection fields (except those an OAuth token supplies).
func fieldsOf(c *catalog.Connector, m *catalog.AuthMethod) []Field {
	var out []Field
	switch m.Type {
	case catalog.AuthAPIKey:
		out = append(out, Field{Name: "apiKey", Label: m.Name, Secret: true})
	case catalog.AuthBasic:
		u, pw := "Username", "Password"
		if m.Basic != nil {
			u, pw = m.Basic.UsernameLabel, m.Basic.PasswordLabel
		}
		out = append(out, Field{Name: "username", Label: u}, Field{Name: "password", Label: pw, Secret: true})
	case catalog.AuthCustom:
		for _, f := range m.Fields {
			out = append(out, Field{Name: f.Name, Label: f.Label, Secret: f.Secret, Group: "fields"})
		}
	case catalog.AuthAWSIAM:
		out = append(out, Field{Name: "accessKeyId", Label: "Access key ID"}, Field{Name: "secretAccessKey", Label: "Secret access key", Secret: true})
	}
	for _, f := range c.ConnectionFields {
		if f.FromToken != "" && m.Type == catalog.AuthOAuth2 {
			continue
		}
		out = append(out, Field{Name: f.Name, Label: f.Label, Placeholder: f.Example, Default: f.Default})
	}
	if out == nil {
		out = []Field{}
	}
	return out
}

// Get answers GET /api/connect/:token: the link's state, branding, offers
// and the user's accounts (never a credential).
func (p *Page) Get(ctx context.Context, token string) (View, error) {
	l, state, err := p.link(ctx, token)
	if err != nil {
		return View{}, err
	}
	ctx = p.projectContext(ctx, l.ProjectID)
	settings, err := p.Store.GetConnectSettings(ctx, l.ProjectID)
	if err != nil {
		return View{}, err
	}
	proj, err := p.Store.GetProject(ctx, l.ProjectID)
	if err != nil {
		return View{}, err
	}
	v := View{Status: state, ExpiresAt: l.ExpiresAt, SelfManage: settings.SelfManage, RedirectURL: l.RedirectURL,
		Branding: Branding{Name: proj.Name, Accent: "#4f46e5"}, Connectors: []OfferedConnector{}, Accounts: []account.PublicView{}}
	if settings.Name != "" {
		v.Branding.Name = settings.Name
	}
	if settings.Accent != "" {
		v.Branding.Accent = settings.Accent
	}
	if settings.LogoKey != "" {
		v.Branding.Logo = p.AssetsURL + "/" + settings.LogoKey
	}
	if state != StateActive {
		return v, nil
	}
	if v.Connectors, _, err = p.offered(ctx, l); err != nil {
		return View{}, err
	}
	if v.Accounts, err = p.accounts(ctx, l); err != nil {
		return View{}, err
	}
	return v, nil
}

// accounts lists the user's own accounts of the link's connectors.
func (p *Page) accounts(ctx context.Context, l store.ConnectLink) ([]account.PublicView, error) {
	inScope, err := p.scope(ctx, l)
	if err != nil {
		return nil, err
	}
	conns, err := p.Store.ListConnections(ctx, l.ProjectID, l.UserID)
	if err != nil {
		return nil, err
	}
	out := []account.PublicView{}
	for _, c := range conns {
		if c.Global || !inScope(c.ConnectorID) {
			continue
		}
		out = append(out, account.Public(c))
	}
	return out, nil
}

// scope reports which connectors' accounts a link may show and manage:
// the link's connectors, or the connectors of its auth configs, or every
// connector when the link names neither.
func (p *Page) scope(ctx context.Context, l store.ConnectLink) (func(connectorID string) bool, error) {
	switch {
	case len(l.Connectors) > 0:
		return func(id string) bool { return slices.Contains(l.Connectors, id) }, nil
	case len(l.AuthConfigs) > 0:
		configs, err := p.Store.ListAuthConfigs(ctx, l.ProjectID, "")
		if err != nil {
			return nil, err
		}
		var ids []string
		for _, ac := range configs {
			if slices.Contains(l.AuthConfigs, ac.Key) {
				ids = append(ids, ac.ConnectorID)
			}
		}
		return func(id string) bool { return slices.Contains(ids, id) }, nil
	}
	return func(string) bool { return true }, nil
}

// config returns an offered auth config of the link, or 403 FORBIDDEN.
func (p *Page) config(ctx context.Context, l store.ConnectLink, id string) (store.AuthConfig, *catalog.Connector, *catalog.AuthMethod, error) {
	_, byID, err := p.offered(ctx, l)
	if err != nil {
		return store.AuthConfig{}, nil, nil, err
	}
	ac, ok := byID[id]
	if !ok {
		return ac, nil, nil, apierr.New(apierr.Forbidden, "this link does not offer auth config %q", id)
	}
	c, ok := p.catalog(ctx, l.ProjectID).Connector(ac.ConnectorID)
	if !ok {
		return ac, nil, nil, apierr.New(apierr.NotFound, "connector %q of auth config %q is no longer available", ac.ConnectorID, id)
	}
	if m := c.AuthMethod(ac.AuthMethodID); m != nil {
		return ac, c, m, nil
	}
	return ac, nil, nil, apierr.New(apierr.NotFound, "the auth method of %q is no longer available", id)
}

// AccountRequest is the body of POST /api/connect/:token/accounts.
type AccountRequest struct {
	AuthConfigID string
	Fields       map[string]any
	Name         string
	ConnectionID string
}

// SaveAccount stores a key or field credential through a link: a new
// account (created true) or a reconnected one. The link is then used.
func (p *Page) SaveAccount(ctx context.Context, token string, r AccountRequest) (account.PublicView, bool, error) {
	l, err := p.active(ctx, token)
	if err != nil {
		return account.PublicView{}, false, err
	}
	ctx = p.projectContext(ctx, l.ProjectID)
	if r.AuthConfigID == "" {
		return account.PublicView{}, false, apierr.Validation(apierr.Issue{Code: apierr.IssueRequired, Path: []any{"authConfigId"}, Message: "is required"})
	}
	ac, c, m, err := p.config(ctx, l, r.AuthConfigID)
	if err != nil {
		return account.PublicView{}, false, err
	}
	if m.Type == catalog.AuthOAuth2 {
		return account.PublicView{}, false, apierr.Validation(apierr.Issue{Code: apierr.IssueInvalidValue, Path: []any{"authConfigId"},
			Message: "this is an OAuth auth config: start it with POST …/authorize"})
	}
	cred := map[string]any{"type": m.Type}
	custom := map[string]any{}
	for k, v := range r.Fields {
		if m.Type == catalog.AuthCustom && slices.ContainsFunc(m.Fields, func(f catalog.CustomField) bool { return f.Name == k }) {
			custom[k] = v
			continue
		}
		cred[k] = v
	}
	if m.Type == catalog.AuthCustom {
		cred["fields"] = custom
	}
	raw, _ := json.Marshal(cred)
	if r.ConnectionID != "" {
		conn, err := p.ownAccount(ctx, l, r.ConnectionID, c.ID)
		if err != nil {
			return account.PublicView{}, false, err
		}
		// The link is used up in the rotation's own transaction, so racing
		// requests rotate once and the others are 410 LINK_USED.
		if _, err := p.Accounts.RotateThroughLink(ctx, l.ID, l.ProjectID, conn.ID, raw, conn.Revision); err != nil {
			return account.PublicView{}, false, fieldsError(err)
		}
		conn, _ = p.Store.GetConnection(ctx, l.ProjectID, conn.ID)
		return account.Public(conn), false, nil
	}
	conn, err := p.Accounts.Create(ctx, l.ProjectID, account.CreateRequest{ConnectorID: c.ID, UserID: l.UserID, Credential: raw,
		AuthConfigKey: ac.Key, Name: r.Name, LinkID: l.ID})
	if err != nil {
		if e, ok := apierr.As(err); ok && e.Code == apierr.Conflict {
			return account.PublicView{}, false, apierr.New(apierr.NameTaken, "you already have a %s account named %q", c.Name, r.Name)
		}
		return account.PublicView{}, false, fieldsError(err)
	}
	p.label(ctx, conn)
	conn, _ = p.Store.GetConnection(ctx, l.ProjectID, conn.ID)
	return account.Public(conn), true, nil
}

// fieldsError reports credential problems under "fields", as the page sent them.
func fieldsError(err error) error {
	e, ok := apierr.As(err)
	if !ok || e.Code != apierr.ValidationError {
		return err
	}
	for i, is := range e.Issues {
		if len(is.Path) > 0 && is.Path[0] == "credential" {
			e.Issues[i].Path = append([]any{"fields"}, is.Path[1:]...)
		}
	}
	return e
}

// ownAccount returns one of the link user's accounts of connector, or, when
// connector is "", of any connector within the link's scope. Any other
// account is 404 NOT_FOUND, whether or not it exists.
func (p *Page) ownAccount(ctx context.Context, l store.ConnectLink, id, connector string) (store.Connection, error) {
	notYours := apierr.New(apierr.NotFound, "no such account of yours through this link")
	conn, err := p.Store.GetConnection(ctx, l.ProjectID, id)
	if err != nil || conn.Global || conn.UserID != l.UserID || (connector != "" && conn.ConnectorID != connector) {
		return store.Connection{}, notYours
	}
	if connector == "" {
		inScope, err := p.scope(ctx, l)
		if err != nil {
			return store.Connection{}, err
		}
		if !inScope(conn.ConnectorID) {
			return store.Connection{}, notYours
		}
	}
	return conn, nil
}

// label names an account with its provider identity, best effort.
func (p *Page) label(ctx context.Context, conn store.Connection) {
	cat := p.catalog(ctx, conn.ProjectID)
	c, ok := cat.Connector(conn.ConnectorID)
	if !ok || c.Identity == nil || c.Identity.Path == "" || p.Executor == nil {
		return
	}
	ctx = catalog.NewContext(ctx, cat)
	method := c.Identity.Method
	if method == "" {
		method = "GET"
	}
	res, err := p.Executor.CallAPI(ctx, conn.ProjectID, conn.ID, method, c.Identity.Path, nil, false)
	if err != nil {
		p.Logger.InfoContext(ctx, "could not read the provider identity of a new account", "connection_id", conn.ID)
		return
	}
	if v := catalog.SelectPath(res, c.Identity.Label); v != nil {
		_ = p.Store.SetConnectionLabel(ctx, conn.ID, fmt.Sprint(v))
	}
}

// SelfManage returns the link if its project lets users manage accounts.
func (p *Page) selfManage(ctx context.Context, token string) (store.ConnectLink, error) {
	l, err := p.active(ctx, token)
	if err != nil {
		return l, err
	}
	s, err := p.Store.GetConnectSettings(ctx, l.ProjectID)
	if err != nil {
		return l, err
	}
	if !s.SelfManage {
		return l, apierr.New(apierr.Forbidden, "this project does not let you manage your accounts here")
	}
	return l, nil
}

// Connections lists the user's accounts (self-management).
func (p *Page) Connections(ctx context.Context, token string) ([]account.PublicView, error) {
	l, err := p.selfManage(ctx, token)
	if err != nil {
		return nil, err
	}
	ctx = p.projectContext(ctx, l.ProjectID)
	return p.accounts(ctx, l)
}

// Rename renames one of the user's accounts (self-management).
func (p *Page) Rename(ctx context.Context, token, id, name string) (account.PublicView, error) {
	l, err := p.selfManage(ctx, token)
	if err != nil {
		return account.PublicView{}, err
	}
	ctx = p.projectContext(ctx, l.ProjectID)
	var issues apierr.Issues
	if account.CheckName(name, true, &issues); issues.Err() != nil {
		return account.PublicView{}, issues.Err()
	}
	conn, err := p.ownAccount(ctx, l, id, "")
	if err != nil {
		return account.PublicView{}, err
	}
	if err := p.Accounts.Rename(ctx, l.ProjectID, conn.ID, name); err != nil {
		return account.PublicView{}, err
	}
	conn.Name = name
	return account.Public(conn), nil
}

// Remove deletes one of the user's accounts (self-management).
func (p *Page) Remove(ctx context.Context, token, id string) error {
	l, err := p.selfManage(ctx, token)
	if err != nil {
		return err
	}
	ctx = p.projectContext(ctx, l.ProjectID)
	conn, err := p.ownAccount(ctx, l, id, "")
	if err != nil {
		return err
	}
	return p.Accounts.Delete(ctx, l.ProjectID, conn.ID)
}
