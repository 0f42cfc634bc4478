package connect

import (
	"context"
	"errors"
	"log/slog"
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
