package connect

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/execute"
	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// Link states reported by GET /api/connect/:token (docs/connect.md).
const (
	StateActive  = "active"
	StateUsed    = "used"
	StateExpired = "expired"
)

// PageOptions configure the hosted Connect page backend.
type PageOptions struct {
	Links *Service
	Store *store.Store
	// Projects gives a link's project its tenant: its catalog with the
	// project's own connectors, and its versions.
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
	// ToolsFunc lists the tools of a project's MCP server that declares
	// OAuth with the access token a user just connected
	// (upstream.ToolFetcher.Fetch); nil lists nothing.
	ToolsFunc func(ctx context.Context, projectID, connectorID, accessToken string) error
}

// ProjectCatalogs loads a project's tenant from the database
// (upstream.Catalogs does): a connect link carries no API key whose lookup
// would have read the project's versions.
type ProjectCatalogs interface {
	Load(ctx context.Context, projectID string) (tenant.Tenant, error)
}

// tenant returns the tenant of a link's project, for the connectors the
// page offers, the account service and the executor.
func (p *Page) tenant(ctx context.Context, l store.ConnectLink) (tenant.Tenant, error) {
	return p.Projects.Load(ctx, l.ProjectID)
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
