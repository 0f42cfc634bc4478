package connect

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// config returns an offered auth config of the link, or 403 FORBIDDEN.
func (p *Page) config(ctx context.Context, t tenant.Tenant, l store.ConnectLink, id string) (store.AuthConfig, *catalog.Connector, *catalog.AuthMethod, error) {
	_, byID, err := p.offered(ctx, t, l)
	if err != nil {
		return store.AuthConfig{}, nil, nil, err
	}
	ac, ok := byID[id]
	if !ok {
		return ac, nil, nil, apierr.New(apierr.Forbidden, "this link does not offer auth config %q", id)
	}
	c, ok := t.Catalog.Connector(ac.ConnectorID)
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
	t, err := p.tenant(ctx, l)
	if err != nil {
		return account.PublicView{}, false, err
	}
	if r.ConnectionID, err = linkAccount(l, r.ConnectionID); err != nil {
		return account.PublicView{}, false, err
	}
	if r.AuthConfigID == "" {
		return account.PublicView{}, false, apierr.Validation(apierr.Issue{Code: apierr.IssueRequired, Path: []any{"authConfigId"}, Message: "is required"})
	}
	ac, c, m, err := p.config(ctx, t, l, r.AuthConfigID)
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
		if _, err := p.Accounts.RotateThroughLink(ctx, t, l.ID, conn.ID, raw, conn.Revision); err != nil {
			return account.PublicView{}, false, fieldsError(err)
		}
		conn, _ = p.Store.GetConnection(ctx, l.ProjectID, conn.ID)
		return account.Public(conn), false, nil
	}
	conn, err := p.Accounts.Create(ctx, t, account.CreateRequest{ConnectorID: c.ID, UserID: l.UserID, Credential: raw,
		AuthConfigKey: ac.Key, Name: r.Name, LinkID: l.ID})
	if err != nil {
		if e, ok := apierr.As(err); ok && e.Code == apierr.Conflict {
			return account.PublicView{}, false, apierr.New(apierr.NameTaken, "you already have a %s account named %q", c.Name, r.Name)
		}
		return account.PublicView{}, false, fieldsError(err)
	}
	p.label(ctx, t, conn)
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

// label names an account with its provider identity, best effort.
func (p *Page) label(ctx context.Context, t tenant.Tenant, conn store.Connection) {
	if conn.Label != nil && *conn.Label != "" {
		return // the credential check named it (account.Service.Create)
	}
	c, ok := t.Catalog.Connector(conn.ConnectorID)
	if !ok || p.Executor == nil {
		return
	}
	cred, err := p.Accounts.Open(conn)
	if err != nil {
		return
	}
	id := c.IdentityFor(cred.Method, cred.Type)
	if id == nil || id.Path == "" {
		return
	}
	method := id.Method
	if method == "" {
		method = "GET"
	}
	path := id.Path
	if catalog.Templated(path) {
		// The identity path may name the account's fields (QuickBooks:
		// /companyinfo/{realmId}).
		escaped := make(map[string]string, len(cred.Connection))
		for k, v := range cred.Connection {
			escaped[k] = url.PathEscape(v)
		}
		filled, complete := catalog.FillTemplate(path, escaped)
		if !complete {
			return
		}
		path = filled
	}
	res, err := p.Executor.CallAPI(ctx, t, conn.ID, method, path, nil, false)
	if err != nil {
		p.Logger.InfoContext(ctx, "could not read the provider identity of a new account", "connection_id", conn.ID)
		return
	}
	if v := catalog.SelectPath(res, id.Label); v != nil {
		_ = p.Store.SetConnectionLabel(ctx, conn.ID, fmt.Sprint(v))
	}
}

// linkAccount is the account a request reconnects: a link made for one
// account reconnects only that one, whether or not the request names it.
func linkAccount(l store.ConnectLink, requested string) (string, error) {
	if l.ConnectionID == "" {
		return requested, nil
	}
	if requested != "" && requested != l.ConnectionID {
		return "", apierr.New(apierr.Forbidden, "this link reconnects another of your accounts")
	}
	return l.ConnectionID, nil
}
