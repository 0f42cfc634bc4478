package account

import (
	"context"
	"encoding/json"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// UpdateRequest is PATCH /v1/connections/:id: a rename, a credential
// rotation, or both.
type UpdateRequest struct {
	// Name, when set, renames the account.
	Name *string
	// Credential, when set, replaces the credential.
	Credential json.RawMessage
	// ExpectedRevision, when set, is the revision being replaced; a stale
	// one is 409 CONFLICT. Without it the current credential is replaced.
	ExpectedRevision *int64
}

// Updated is what an update changed.
type Updated struct {
	ID string
	// Name is the new name, after a rename.
	Name *string
	// Revision is the new credential revision, after a rotation.
	Revision *int64
}

// Update renames an account, rotates its credential, or both; every rule
// is checked before anything changes.
func (s *Service) Update(ctx context.Context, t tenant.Tenant, id string, r UpdateRequest) (Updated, error) {
	if err := t.Check(); err != nil {
		return Updated{}, err
	}
	projectID := t.ProjectID
	var issues apierr.Issues
	rotate := len(r.Credential) > 0 && string(r.Credential) != "null"
	if r.Name == nil && !rotate {
		issues.Add(apierr.IssueRequired, []any{}, "give name to rename, or credential (and optionally expectedRevision) to rotate")
	}
	if r.Name != nil {
		CheckName(*r.Name, true, &issues)
	}
	if err := issues.Err(); err != nil {
		return Updated{}, err
	}
	if _, err := s.Get(ctx, projectID, id); err != nil {
		return Updated{}, err
	}
	out := Updated{ID: id}
	if rotate {
		// expectedRevision is optional (the API lists it without
		// requiring it, and the create response shows no revision).
		rev, err := s.rotate(ctx, "", t, id, r.Credential, r.ExpectedRevision)
		if err != nil {
			return Updated{}, err
		}
		out.Revision = &rev
	}
	if r.Name != nil {
		if err := s.Rename(ctx, projectID, id, *r.Name); err != nil {
			return Updated{}, err
		}
		out.Name = r.Name
	}
	return out, nil
}
