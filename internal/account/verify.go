package account

import (
	"context"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// A typed credential (a key, a password, custom fields) is checked with the
// connector's identity call before it is stored (docs/connections.md,
// "Checking a key"): a provider that refuses it (401 or 403) refuses the
// account, so a wrong key is not stored as active. A provider that cannot
// be asked (unreachable, 5xx) does not block storing.

// Verdict is what a credential check found.
type Verdict int

const (
	// NotChecked: the connector has no identity call, or the provider
	// could not be asked.
	NotChecked Verdict = iota
	// Accepted: the provider answered the identity call.
	Accepted
	// Refused: the provider answered 401 or 403.
	Refused
)

// Verifier asks a connector's provider whether a credential works
// (execute.Executor is one). label is the provider-side identity when the
// answer names one.
type Verifier interface {
	VerifyCredential(ctx context.Context, t tenant.Tenant, con *catalog.Connector, cred Credential) (v Verdict, label string)
}

// SetVerifier makes Create and rotations check typed credentials with v.
// Call it once while wiring, before serving.
func (s *Service) SetVerifier(v Verifier) { s.verifier = v }

// verifiable reports whether credentials of this type are checked: those a
// person types, whose only test is a call.
func verifiable(credType string) bool {
	switch credType {
	case catalog.AuthAPIKey, catalog.AuthBasic, catalog.AuthCustom:
		return true
	}
	return false
}

// verify checks cred and answers a VALIDATION_ERROR at path when the
// provider refuses it, else the label the provider named (or "").
func (s *Service) verify(ctx context.Context, t tenant.Tenant, con *catalog.Connector, cred Credential, path string) (string, error) {
	if s.verifier == nil || con.IdentityFor(cred.Method, cred.Type) == nil || !verifiable(cred.Type) {
		return "", nil
	}
	v, label := s.verifier.VerifyCredential(ctx, t, con, cred)
	if v == Refused {
		return "", apierr.Validation(apierr.Issue{Code: apierr.IssueInvalidValue, Path: []any{path},
			Message: con.Name + " refused this credential: check that it is complete and still valid, then try again"})
	}
	return label, nil
}
