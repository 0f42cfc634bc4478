package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"time"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// slugPattern: lowercase letters, digits and hyphens, 3 to 64 characters.
var slugPattern = regexp.MustCompile(`^[a-z0-9-]{3,64}$`)

// ValidSlug reports whether s is an endpoint slug: 3 to 64 lowercase
// letters, digits and hyphens. Endpoint records and the MCP host's path
// matching both use it.
func ValidSlug(s string) bool { return slugPattern.MatchString(s) }

// EndpointRequest describes an MCP endpoint (admin endpoint create/update).
type EndpointRequest struct {
	ProjectID           string
	Slug                string
	Connectors          []string
	Actions             []string
	Mode                string
	ReadOnly            bool
	MaxDataClass        string
	RequireUser         bool
	AllowGlobalAccounts bool
}

// EndpointRecord checks a request against the catalog of tn, the tenant of
// the request's project, and returns the record to store.
func (s *Service) EndpointRecord(ctx context.Context, tn tenant.Tenant, r EndpointRequest) (store.Endpoint, error) {
	if err := tn.Check(); err != nil {
		return store.Endpoint{}, err
	}
	if r.ProjectID != tn.ProjectID {
		return store.Endpoint{}, fmt.Errorf("session: endpoint of project %s checked with the tenant of project %s", r.ProjectID, tn.ProjectID)
	}
	var issues apierr.Issues
	if !ValidSlug(r.Slug) {
		issues.Add(apierr.IssueInvalidValue, []any{"slug"}, "must be 3 to 64 lowercase letters, digits and hyphens")
	}
	if r.Mode == "" {
		r.Mode = ModeTools
	}
	if r.Mode != ModeTools && r.Mode != ModeMeta {
		issues.Add(apierr.IssueInvalidValue, []any{"mode"}, "must be tools or meta")
	}
	policy := map[string]any{"readOnly": r.ReadOnly}
	if r.MaxDataClass != "" {
		policy["maxDataClass"] = r.MaxDataClass
	}
	rawPolicy, _ := json.Marshal(policy)
	spec, _ := CreateRequest{Connectors: r.Connectors, Actions: r.Actions, AllowGlobalAccounts: r.AllowGlobalAccounts,
		Policy: rawPolicy, forEndpoint: true}.validate(tn.Catalog, &issues)
	if err := issues.Err(); err != nil {
		return store.Endpoint{}, err
	}
	spec.Mode = r.Mode
	raw, err := json.Marshal(spec)
	if err != nil {
		return store.Endpoint{}, err
	}
	return store.Endpoint{ProjectID: r.ProjectID, Slug: r.Slug, Mode: r.Mode, RequireUser: r.RequireUser, Spec: raw}, nil
}

// ForEndpoint returns the session an endpoint call runs as: the endpoint's
// scope and policy for the user of the call. An unknown slug, or one of
// another project than the caller's key, is apierr.NotFound.
func (s *Service) ForEndpoint(ctx context.Context, projectID, slug, userID string) (*Session, error) {
	e, err := s.store.EndpointBySlug(ctx, slug)
	if errors.Is(err, store.ErrNotFound) || (err == nil && e.ProjectID != projectID) {
		// Another project's endpoint is unknown to this key (docs/mcp.md
		// rule 4), and saying otherwise would tell that the slug exists.
		return nil, apierr.New(apierr.NotFound, "no MCP endpoint %q", slug)
	}
	if err != nil {
		return nil, err
	}
	if userID == "" {
		if e.RequireUser {
			return nil, apierr.Validation(apierr.Issue{Code: apierr.IssueRequired, Path: []any{"userId"},
				Message: fmt.Sprintf("endpoint %q requires a user: call /%s/<userId>", slug, slug)})
		}
		userID = "default"
	}
	var issues apierr.Issues
	if account.CheckUserID(userID, "userId", false, &issues); issues.Err() != nil {
		return nil, issues.Err()
	}
	var spec Spec
	if err := json.Unmarshal(e.Spec, &spec); err != nil {
		return nil, fmt.Errorf("session: decode endpoint %s: %w", slug, err)
	}
	spec.UserID = userID
	spec.Mode = e.Mode
	if spec.Pinned == nil {
		spec.Pinned = []string{}
	}
	if spec.Accounts == nil {
		spec.Accounts = map[string]string{}
	}
	return &Session{ID: "endpoint:" + e.Slug, EndpointID: e.ID, ProjectID: e.ProjectID, Spec: spec, ExpiresAt: time.Time{}}, nil
}
