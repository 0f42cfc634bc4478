package connect

import (
	"context"
	"slices"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/store"
)

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
	return p.accounts(ctx, l)
}

// Rename renames one of the user's accounts (self-management).
func (p *Page) Rename(ctx context.Context, token, id, name string) (account.PublicView, error) {
	l, err := p.selfManage(ctx, token)
	if err != nil {
		return account.PublicView{}, err
	}
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
	conn, err := p.ownAccount(ctx, l, id, "")
	if err != nil {
		return err
	}
	return p.Accounts.Delete(ctx, l.ProjectID, conn.ID)
}
