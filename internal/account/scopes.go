package account

import (
	"slices"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// RequestedScopes are the scopes a sign-in through an auth config asks
// for (docs/connections.md, "Scopes"). An operator's explicit scopes on the
// auth config win. Otherwise they are the method's scopes that a tool the
// project has switched on needs (disabled holds the tools turned off),
// plus its base scopes: those it lists that no tool of the connector needs
// (offline_access, openid, a scope only the identity call or trigger setup
// uses). Only scopes the method lists are asked for, in its order: a tool
// needing one it does not list (Zoom's account-wide admin tools, for a
// user sign-in) is meant for another auth method and adds nothing.
func RequestedScopes(con *catalog.Connector, m *catalog.AuthMethod, ac store.AuthConfig, disabled map[string]bool) []string {
	if len(ac.Scopes) > 0 {
		return ac.Scopes
	}
	if m == nil || m.OAuth2 == nil {
		return nil
	}
	out := make([]string, 0, len(m.OAuth2.Scopes))
	for _, s := range m.OAuth2.Scopes {
		needed, on := false, false
		for _, t := range con.Tools {
			if slices.Contains(t.RequiredScopes, s) {
				needed = true
				if on = !disabled[t.ID]; on {
					break
				}
			}
		}
		if on || !needed {
			out = append(out, s)
		}
	}
	return out
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
