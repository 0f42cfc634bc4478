package connect

import (
	"context"
	"slices"

	"golang.org/x/oauth2"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// signInScopes decides what an OAuth sign-in asks for (docs/connect.md,
// "Scopes"): the auth config's requested scopes (the operator's, or what
// the project's switched-on tools need), or, for an incremental sign-in,
// the account's granted scopes, the scopes the link was made for and the
// method's base scopes. It also returns the extra authorize parameters an
// incremental sign-in sends.
func (p *Page) signInScopes(ctx context.Context, t tenant.Tenant, l store.ConnectLink, c *catalog.Connector, m *catalog.AuthMethod,
	ac store.AuthConfig, connectionID string) ([]string, []oauth2.AuthCodeOption, error) {
	disabled, err := p.Store.DisabledTools(ctx, t.ProjectID, t.ToolsVersion)
	if err != nil {
		return nil, nil, err
	}
	requested := account.RequestedScopes(c, m, ac, disabled)
	if connectionID == "" || connectionID != l.ConnectionID || len(l.Scopes) == 0 {
		return requested, nil, nil
	}
	old, err := p.Store.GetConnection(ctx, l.ProjectID, connectionID)
	if err != nil {
		return nil, nil, err
	}
	// Base scopes (offline_access, an identity scope) are asked again: a
	// provider that answers with only what the tools use would otherwise
	// lose the refresh token or the label on the reconnect.
	var base []string
	for _, s := range requested {
		if !slices.ContainsFunc(c.Tools, func(t *catalog.Tool) bool { return slices.Contains(t.RequiredScopes, s) }) {
			base = append(base, s)
		}
	}
	scopes := account.UnionScopes(old.Scopes, l.Scopes, base)
	// A provider that adds a sign-in's scopes to those the user granted
	// the client before says how in the catalog (Google:
	// include_granted_scopes); elsewhere the union above is asked for.
	var opts []oauth2.AuthCodeOption
	for k, v := range m.OAuth2.IncrementalParams {
		opts = append(opts, oauth2.SetAuthURLParam(k, v))
	}
	return scopes, opts, nil
}

// reconnectTarget is the account an OAuth sign-in reconnects when the
// request names neither an account nor a name: the account the link was
// made for, when the sign-in uses that account's auth config.
func (p *Page) reconnectTarget(ctx context.Context, l store.ConnectLink, ac store.AuthConfig, r AuthorizeRequest) string {
	if r.ConnectionID != "" || r.Name != "" || l.ConnectionID == "" {
		return r.ConnectionID
	}
	conn, err := p.Store.GetConnection(ctx, l.ProjectID, l.ConnectionID)
	if err != nil || conn.AuthConfigID != ac.ID || conn.Global || conn.UserID != l.UserID {
		return ""
	}
	return conn.ID
}

// grantedScopes are the scopes a token response grants: its scope field,
// or, without one, what the sign-in asked for (RFC 6749, section 5.1).
func grantedScopes(tok *oauth2.Token, requested []string) []string {
	if granted, ok := account.GrantedScopes(tok.Extra("scope")); ok {
		return granted
	}
	return requested
}
