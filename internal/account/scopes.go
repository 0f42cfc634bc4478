package account

import (
	"slices"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// RequestedScopes are the scopes a sign-in through an auth config asks
// for (docs/connections.md, "Scopes"). An operator's explicit scopes on the
// auth config win. Otherwise they are the union of the scopes the tools
// the project has switched on need (disabled holds the tools turned off),
// plus the method's base scopes: those it lists that no tool of the
// connector needs (offline_access, openid, a scope only the identity call
// or trigger setup uses). The method's own order comes first, then any
// scope a tool needs that the method does not list.
func RequestedScopes(con *catalog.Connector, m *catalog.AuthMethod, ac store.AuthConfig, disabled map[string]bool) []string {
	if len(ac.Scopes) > 0 {
		return ac.Scopes
	}
	if m == nil || m.OAuth2 == nil {
		return nil
	}
	needed := map[string]bool{} // by some tool, switched on or not
	on := map[string]bool{}     // by a switched-on tool
	var extra []string
	for _, t := range con.Tools {
		for _, s := range t.RequiredScopes {
			needed[s] = true
			if disabled[t.ID] {
				continue
			}
			if !on[s] && !slices.Contains(m.OAuth2.Scopes, s) {
				extra = append(extra, s)
			}
			on[s] = true
		}
	}
	out := make([]string, 0, len(m.OAuth2.Scopes)+len(extra))
	for _, s := range m.OAuth2.Scopes {
		if on[s] || !needed[s] {
			out = append(out, s)
		}
	}
	return append(out, extra...)
}

// UnionScopes returns the scopes of every list once, in first-seen order.
func UnionScopes(lists ...[]string) []string {
	var out []string
	for _, l := range lists {
		for _, s := range l {
			if s != "" && !slices.Contains(out, s) {
				out = append(out, s)
			}
		}
	}
	return out
}

// GrantedScopes reads the scope field of a token response (RFC 6749,
// section 5.1), as x/oauth2's Token.Extra("scope") gives it, and reports
// whether there was one. Providers separate scopes with spaces (the RFC),
// commas (GitHub, Slack) or both, so either splits; a JSON array is read
// too. A response without the field grants what was asked for, which the
// caller keeps.
func GrantedScopes(v any) ([]string, bool) {
	var out []string
	switch s := v.(type) {
	case string:
		if strings.TrimSpace(s) == "" {
			return nil, false
		}
		out = strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' || r == '\n' || r == '\r' })
	case []any:
		for _, e := range s {
			if str, ok := e.(string); ok {
				out = append(out, strings.Fields(str)...)
			}
		}
	default:
		return nil, false
	}
	out = UnionScopes(out)
	return out, len(out) > 0
}
