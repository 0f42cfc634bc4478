package execute

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// verifyTimeout bounds a credential check, which a person waits for.
const verifyTimeout = 10 * time.Second

// VerifyCredential makes the connector's identity call with a credential
// that is not stored yet (account.Verifier). Only typed credentials are
// checked (a key, a password, custom fields): nothing is refreshed or
// written. A 401 or 403 is Refused; a 2xx Accepted, with the identity's
// label; anything else (unreachable, 5xx, a path the credential cannot
// fill) is NotChecked.
func (e *Executor) VerifyCredential(ctx context.Context, t tenant.Tenant, con *catalog.Connector, cred account.Credential) (account.Verdict, string) {
	id := con.IdentityFor(cred.Method, cred.Type)
	if id == nil || id.Path == "" {
		return account.NotChecked, ""
	}
	m := method(con, cred)
	if m == nil {
		return account.NotChecked, ""
	}
	base, err := baseURL(con.ID, con.BaseURLFor(m.ID), urlFields(m, cred))
	if err != nil {
		return account.NotChecked, ""
	}
	path := id.Path
	if catalog.Templated(path) {
		escaped := make(map[string]string, len(cred.Connection))
		for k, v := range cred.Connection {
			escaped[k] = url.PathEscape(v)
		}
		filled, complete := catalog.FillTemplate(path, escaped)
		if !complete {
			return account.NotChecked, ""
		}
		path = filled
	}
	target, err := ProxyURL(base, path)
	if err != nil {
		return account.NotChecked, ""
	}
	verb := id.Method
	if verb == "" {
		verb = http.MethodGet
	}
	out := newOutgoing(con, verb, target)
	out.Header.Set("Accept", "application/json")
	ctx, cancel := context.WithTimeout(ctx, verifyTimeout)
	defer cancel()
	// No stored connection yet: the zero Connection names none, and the
	// typed credentials checked here never refresh or cache a token.
	resp, _, err := e.sendOnce(ctx, out, store.Connection{ProjectID: t.ProjectID, ConnectorID: con.ID}, cred, con)
	if err != nil {
		return account.NotChecked, ""
	}
	switch {
	case resp.Status == http.StatusUnauthorized || resp.Status == http.StatusForbidden:
		e.log.InfoContext(ctx, "a provider refused a credential before it was stored", "connector_id", con.ID, "status", resp.Status)
		return account.Refused, ""
	case resp.Status/100 != 2:
		return account.NotChecked, ""
	}
	if v := catalog.SelectPath(decodeBody(resp), id.Label); v != nil {
		return account.Accepted, fmt.Sprint(v)
	}
	return account.Accepted, ""
}
