package execute

import (
	"fmt"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// MissingScopesError is the answer to a call whose connection was not
// granted every scope the tool needs. It is a 403 ACTION_DISABLED for REST
// callers (the action is unavailable to this connection until it is
// reconnected); sessions turn it into a refusal with a connect link.
type MissingScopesError struct {
	ToolID       string
	ConnectorID  string
	ConnectionID string
	// Missing are the tool's required scopes no granted scope covers.
	Missing []string
	err     *apierr.Error
}

// Error implements error.
func (e *MissingScopesError) Error() string { return e.err.Error() }

// Unwrap gives the caller-facing apierr.Error.
func (e *MissingScopesError) Unwrap() error { return e.err }

// checkScopes refuses a call before any provider request when the
// connection's granted scopes are known (an OAuth credential with scopes
// stored) and do not cover the tool's required scopes. Other credentials
// (API keys, basic, AWS) carry no scopes, so nothing is checked for them.
func checkScopes(tool *catalog.Tool, conn store.Connection, cred account.Credential) error {
	if len(tool.RequiredScopes) == 0 || len(conn.Scopes) == 0 || !scoped(cred.Type) {
		return nil
	}
	missing := MissingScopes(tool.RequiredScopes, conn.Scopes)
	if len(missing) == 0 {
		return nil
	}
	return &MissingScopesError{ToolID: tool.ID, ConnectorID: conn.ConnectorID, ConnectionID: conn.ID, Missing: missing,
		err: apierr.New(apierr.ActionDisabled,
			"%s needs the scope(s) %s, which connection %s (%q) was not granted (it has %s); reconnect the account with a connect link whose auth config asks for them, or use a connection that has them",
			tool.ID, strings.Join(missing, ", "), conn.ID, conn.Name, strings.Join(conn.Scopes, ", "))}
}

// scoped reports whether a credential type's tokens carry the scopes the
// account asked for (a GitHub App installation's permissions are set on
// the app instead).
func scoped(typ string) bool {
	switch typ {
	case catalog.AuthOAuth2, catalog.AuthOAuth2ClientCredentials, catalog.AuthServiceAccount, catalog.AuthJWTBearer:
		return true
	}
	return false
}

// MissingScopes returns the required scopes that no granted scope covers,
// in the order required lists them.
func MissingScopes(required, granted []string) []string {
	var out []string
	for _, r := range required {
		covered := false
		for _, g := range granted {
			if ScopeCovers(g, r) {
				covered = true
				break
			}
		}
		if !covered {
			out = append(out, r)
		}
	}
	return out
}

// widerScopes are ways providers name a scope that includes a narrower
// one: the narrower part (left) replaced by a wider one (right) gives the
// wider scope: gmail.readonly < gmail.modify, deals:read < deals:full,
// Mail.Read < Mail.ReadWrite, event:write < event:admin, read_api < api,
// read_customers < write_customers, root_readonly < root_readwrite.
var widerScopes = [][2]string{
	{"readonly", "readwrite"}, {"readonly", "modify"}, {"readonly", "manage"},
	{"read", "write"}, {"read", "full"}, {"read", "manage"}, {"read", "admin"},
	{"write", "admin"}, {"write", "full"}, {"Read", "ReadWrite"}, {"read_api", "api"},
	{"send", "modify"},
}

// ScopeCovers reports whether a granted scope includes a required one. The
// check errs toward yes: a wrong yes only lets the provider refuse the call
// as it would have anyway, a wrong no would block a call that works.
func ScopeCovers(granted, required string) bool {
	if granted == required {
		return true
	}
	// Microsoft's …/.default asks for every permission an admin granted
	// the app; which those are is not known here.
	if strings.HasSuffix(granted, "/.default") {
		return true
	}
	// A Google scope covers its narrower forms (…/auth/drive covers
	// …/auth/drive.readonly and …/auth/drive.file), and the full-mail
	// scope covers every Gmail scope.
	if strings.HasPrefix(required, granted+".") {
		return true
	}
	if granted == "https://mail.google.com/" && strings.HasPrefix(required, "https://www.googleapis.com/auth/gmail.") {
		return true
	}
	for _, w := range widerScopes {
		if i := strings.LastIndex(required, w[0]); i >= 0 && required[:i]+w[1]+required[i+len(w[0]):] == granted {
			return true
		}
	}
	return false
}

// RefusalMessage is what a session tells a model about the missing scopes.
func (e *MissingScopesError) RefusalMessage() string {
	return fmt.Sprintf("the user's %s account was not granted %s, which %s needs; show them the link to reconnect it with that permission, then try again",
		e.ConnectorID, strings.Join(e.Missing, ", "), e.ToolID)
}
