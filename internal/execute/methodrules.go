package execute

import (
	"net/url"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// What an auth method changes about the requests of its accounts
// (catalog/README.md, "Auth method"): tools it cannot run, and path
// starts it sends elsewhere.

// checkMethodTool refuses, before any provider request, a tool that the
// account's auth method cannot run (Microsoft Graph refuses to post chat
// messages with an app-only token).
func checkMethodTool(tool *catalog.Tool, con *catalog.Connector, conn store.Connection, cred account.Credential) error {
	m := method(con, cred)
	if m == nil || !m.Excludes(tool.ID) {
		return nil
	}
	return apierr.New(apierr.ActionDisabled,
		"%s cannot run with connection %s (%q): %s does not allow it for accounts of auth method %s (%s); use an account connected another way",
		tool.ID, conn.ID, conn.Name, con.Name, m.ID, m.Name)
}

// rewritePath sends a request whose path (after the base path) begins with
// one of the method's PathPrefixes to the replacement: /me/messages on
// Microsoft Graph becomes /users/{userId}/messages for an app-only account,
// which has no signed-in user.
func rewritePath(u *url.URL, con *catalog.Connector, m *catalog.AuthMethod, cred account.Credential) error {
	base, err := baseURL(con.ID, con.BaseURLFor(m.ID), urlFields(m, cred))
	if err != nil {
		return err
	}
	basePath := strings.TrimSuffix(base.Path, "/")
	rest, ok := strings.CutPrefix(u.Path, basePath)
	if !ok {
		return nil
	}
	for from, to := range m.PathPrefixes {
		tail, ok := strings.CutPrefix(rest, from)
		if !ok || (tail != "" && tail[0] != '/') {
			continue
		}
		plain, missing := fillPlaceholders(to, cred.Connection)
		if missing != "" {
			return missingField(con.ID, missing)
		}
		escaped := make(map[string]string, len(cred.Connection))
		for k, v := range cred.Connection {
			escaped[k] = url.PathEscape(v)
		}
		esc, _ := fillPlaceholders(to, escaped)
		if u.RawPath != "" {
			if rawRest, ok := strings.CutPrefix(u.RawPath, basePath); ok {
				if rawTail, ok := strings.CutPrefix(rawRest, from); ok {
					u.RawPath = basePath + esc + rawTail
				}
			}
		} else if esc != plain {
			u.RawPath = basePath + esc + escapedTail(tail)
		}
		u.Path = basePath + plain + tail
		return nil
	}
	return nil
}

// escapedTail escapes a decoded path tail segment by segment.
func escapedTail(tail string) string {
	segs := strings.Split(tail, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}
