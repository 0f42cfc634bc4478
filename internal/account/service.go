package account

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// Purposes bind sealed values to what they are (the AAD's first half).
const (
	PurposeCredential   = "connection.credential"
	PurposeClientSecret = "auth_config.client_secret"
)

// Service runs the account rules over the store. The connectors an
// account may be of come from the caller's tenant (a project's catalog),
// passed to each method that needs them.
type Service struct {
	store    *store.Store
	keyring  *secret.Keyring
	verifier Verifier
}

// NewService returns a Service.
func NewService(st *store.Store, ring *secret.Keyring) *Service {
	return &Service{store: st, keyring: ring}
}

// Seal seals a credential for the connection id.
func (s *Service) Seal(id string, c Credential) ([]byte, error) {
	plain, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("account: encode credential: %w", err)
	}
	return s.keyring.Seal(plain, secret.AAD(PurposeCredential, id))
}

// Open opens a connection's credential. A credential that cannot be
// opened (unknown key, tampering) is 503 CREDENTIAL_UNAVAILABLE.
func (s *Service) Open(c store.Connection) (Credential, error) {
	plain, err := s.keyring.Open(c.Credential, secret.AAD(PurposeCredential, c.ID))
	if err != nil {
		return Credential{}, credentialUnavailable(c.ID, err)
	}
	var cred Credential
	if err := json.Unmarshal(plain, &cred); err != nil {
		return Credential{}, credentialUnavailable(c.ID, err)
	}
	return cred, nil
}

func credentialUnavailable(id string, cause error) error {
	var uk *secret.UnknownKeyError
	reason := "it cannot be decrypted"
	if errors.As(cause, &uk) {
		reason = "it was sealed with key " + uk.KeyID + ", which is not in the server's key ring"
	}
	return apierr.New(apierr.CredentialUnavailable, "the credential of connection %s cannot be read: %s; reconnect the account or restore the key", id, reason)
}

// ClientSecret opens an auth config's client secret.
func (s *Service) ClientSecret(ac store.AuthConfig) (string, error) {
	if len(ac.ClientSecret) == 0 {
		return "", nil
	}
	plain, err := s.keyring.Open(ac.ClientSecret, secret.AAD(PurposeClientSecret, ac.ID))
	if err != nil {
		return "", apierr.New(apierr.CredentialUnavailable, "the client secret of auth config %s cannot be read; set it again", ac.Key)
	}
	return string(plain), nil
}

// SealClientSecret seals a client secret for the auth config id.
func (s *Service) SealClientSecret(id, clientSecret string) ([]byte, error) {
	return s.keyring.Seal([]byte(clientSecret), secret.AAD(PurposeClientSecret, id))
}

// CreateRequest is the body of POST /v1/connections, decoded.
type CreateRequest struct {
	ConnectorID   string
	UserID        string
	Global        bool
	Credential    json.RawMessage
	AuthConfigKey string
	Name          string
	Label         *string
	// LinkID is the connect link the account is stored through, if any: it
	// is used up in the same transaction, or the request is 410 LINK_USED
	// and nothing is stored.
	LinkID string
}

// Create stores a credential the caller already holds as a new account.
func (s *Service) Create(ctx context.Context, t tenant.Tenant, req CreateRequest) (store.Connection, error) {
	if err := t.Check(); err != nil {
		return store.Connection{}, err
	}
	projectID := t.ProjectID
	var issues apierr.Issues
	con, ok := t.Catalog.Connector(req.ConnectorID)
	switch {
	case req.ConnectorID == "":
		issues.Add(apierr.IssueRequired, []any{"connectorId"}, "is required")
	case !ok:
		issues.Add(apierr.IssueInvalidValue, []any{"connectorId"}, "%q is not a connector; GET /v1/connectors lists them", req.ConnectorID)
	}
	switch {
	case req.Global && req.UserID != "":
		issues.Add(apierr.IssueInvalidValue, []any{"userId"}, "give either userId or global: true, not both")
	case !req.Global && req.UserID == "":
		issues.Add(apierr.IssueRequired, []any{"userId"}, "is required unless global is true")
	default:
		CheckUserID(req.UserID, "userId", false, &issues)
	}
	CheckName(req.Name, false, &issues)
	if len(req.Credential) == 0 || string(req.Credential) == "null" {
		issues.Add(apierr.IssueRequired, []any{"credential"}, "is required: an object with a type")
	}
	if err := issues.Err(); err != nil {
		return store.Connection{}, err
	}
	credType := peekType(req.Credential)
	ac, method, err := s.authConfigFor(ctx, projectID, con, req.AuthConfigKey, credType)
	if err != nil {
		return store.Connection{}, err
	}
	cred, scopes, err := ParseCredential(req.Credential, con, method, "credential")
	if err != nil {
		return store.Connection{}, err
	}
	if scopes == nil {
		scopes = ac.Scopes
	}
	label, err := s.verify(ctx, t, con, cred, "credential")
	if err != nil {
		return store.Connection{}, err
	}
	if req.Label == nil && label != "" {
		req.Label = &label
	}
	id := store.NewID()
	sealed, err := s.Seal(id, cred)
	if err != nil {
		return store.Connection{}, err
	}
	c, err := s.store.CreateConnection(ctx, store.NewConnection{
		ID: id, ProjectID: projectID, ConnectorID: con.ID, AuthConfigID: ac.ID, UserID: req.UserID,
		Global: req.Global, Name: req.Name, Label: req.Label, Scopes: scopes, Credential: sealed, UseLinkID: req.LinkID,
	})
	switch {
	case errors.Is(err, store.ErrConflict):
		return store.Connection{}, apierr.New(apierr.Conflict, "the user already has a %s account named %q; choose another name", con.ID, req.Name)
	case errors.Is(err, store.ErrLinkUsed):
		return store.Connection{}, linkUsed()
	}
	return c, err
}

func peekType(raw json.RawMessage) string {
	var t struct {
		Type string `json:"type"`
	}
	_ = json.Unmarshal(raw, &t)
	return t.Type
}

// authConfigFor returns the auth config a new account uses: the one keyed
// key, or else the project's oldest config of the connector for the
// credential's type, or else the implicit config of the connector's first
// auth method of that type.
func (s *Service) authConfigFor(ctx context.Context, projectID string, con *catalog.Connector, key, credType string) (store.AuthConfig, *catalog.AuthMethod, error) {
	if key != "" {
		ac, err := s.store.AuthConfigByKey(ctx, projectID, key)
		if errors.Is(err, store.ErrNotFound) || (err == nil && ac.ConnectorID != con.ID) {
			return store.AuthConfig{}, nil, apierr.Validation(apierr.Issue{Code: apierr.IssueInvalidValue, Path: []any{"authConfig"},
				Message: fmt.Sprintf("no auth config %q for connector %s in this project", key, con.ID)})
		}
		if err != nil {
			return store.AuthConfig{}, nil, err
		}
		return ac, con.AuthMethod(ac.AuthMethodID), nil
	}
	configs, err := s.store.ListAuthConfigs(ctx, projectID, con.ID)
	if err != nil {
		return store.AuthConfig{}, nil, err
	}
	for _, ac := range configs {
		if ac.AuthType == credType {
			if m := con.AuthMethod(ac.AuthMethodID); m != nil {
				return ac, m, nil
			}
		}
	}
	for i := range con.AuthMethods {
		m := &con.AuthMethods[i]
		if m.Type == credType || credType == "" {
			ac, err := s.store.EnsureImplicitAuthConfig(ctx, projectID, con.ID, con.ID+"_"+m.ID, m.ID, m.Type)
			return ac, m, err
		}
	}
	var types []string
	for _, m := range con.AuthMethods {
		types = append(types, m.Type)
	}
	return store.AuthConfig{}, nil, apierr.Validation(apierr.Issue{Code: apierr.IssueInvalidValue, Path: []any{"credential", "type"},
		Message: fmt.Sprintf("%s accepts credentials of type %v", con.ID, types)})
}

// Get returns one of a project's accounts; an unknown id is 404 CONNECTION_NOT_FOUND.
func (s *Service) Get(ctx context.Context, projectID, id string) (store.Connection, error) {
	c, err := s.store.GetConnection(ctx, projectID, id)
	if errors.Is(err, store.ErrNotFound) {
		return store.Connection{}, notFound(id)
	}
	return c, err
}

func notFound(id string) error {
	return apierr.New(apierr.ConnectionNotFound, "no connection %s in this project", id)
}

// List returns a user's accounts and the project's global accounts.
func (s *Service) List(ctx context.Context, projectID, userID string) ([]store.Connection, error) {
	return s.store.ListConnections(ctx, projectID, userID)
}

// Rename renames an account; a name the user already has is 409 NAME_TAKEN.
func (s *Service) Rename(ctx context.Context, projectID, id, name string) error {
	var issues apierr.Issues
	if CheckName(name, true, &issues); issues.Err() != nil {
		return issues.Err()
	}
	err := s.store.RenameConnection(ctx, projectID, id, name)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return notFound(id)
	case errors.Is(err, store.ErrConflict):
		return apierr.New(apierr.NameTaken, "the user already has an account of this connector named %q", name)
	}
	return err
}

// linkUsed is the answer to a second use of a single-use connect link.
func linkUsed() error {
	return apierr.New(apierr.LinkUsed, "this connect link was already used; ask for a new one")
}

// Rotate replaces an account's credential when expectedRevision is current,
// setting a reauth_required account back to active.
func (s *Service) Rotate(ctx context.Context, t tenant.Tenant, id string, raw json.RawMessage, expected int64) (int64, error) {
	return s.rotate(ctx, "", t, id, raw, &expected)
}

// RotateThroughLink is Rotate for a reconnect through a connect link: the
// link (when linkID is set) is used up in the same transaction, or the
// request is 410 LINK_USED and the credential is unchanged.
func (s *Service) RotateThroughLink(ctx context.Context, t tenant.Tenant, linkID, id string, raw json.RawMessage, expected int64) (int64, error) {
	return s.rotate(ctx, linkID, t, id, raw, &expected)
}

// rotateAttempts bounds the retries of a rotation without an expected
// revision that keeps meeting concurrent rotations.
const rotateAttempts = 3

// rotate replaces the credential at the expected revision, or, with none,
// at the current one (read again when another rotation got in between):
// a caller without a revision asks for the new credential to win, not for
// a check against a revision it has never been shown.
func (s *Service) rotate(ctx context.Context, linkID string, t tenant.Tenant, id string, raw json.RawMessage, expected *int64) (int64, error) {
	if err := t.Check(); err != nil {
		return 0, err
	}
	projectID := t.ProjectID
	c, err := s.Get(ctx, projectID, id)
	if err != nil {
		return 0, err
	}
	con, ok := t.Catalog.Connector(c.ConnectorID)
	if !ok {
		return 0, apierr.New(apierr.ConnectorUnavailable, "connector %s is no longer available", c.ConnectorID)
	}
	ac, err := s.store.GetAuthConfig(ctx, projectID, c.AuthConfigID)
	if err != nil {
		return 0, err
	}
	method := con.AuthMethod(ac.AuthMethodID)
	if method == nil {
		return 0, apierr.New(apierr.ConnectorUnavailable, "auth method %s of %s is no longer available", ac.AuthMethodID, con.ID)
	}
	cred, scopes, err := ParseCredential(raw, con, method, "credential")
	if err != nil {
		return 0, err
	}
	if _, err := s.verify(ctx, t, con, cred, "credential"); err != nil {
		return 0, err
	}
	if scopes == nil {
		scopes = c.Scopes
	}
	sealed, err := s.Seal(id, cred)
	if err != nil {
		return 0, apierr.New(apierr.ExecutionError, "the new credential could not be stored").WithStatus(http.StatusInternalServerError)
	}
	at := c.Revision
	if expected != nil {
		at = *expected
	}
	rev, err := s.store.RotateCredentialThroughLink(ctx, linkID, projectID, id, at, sealed, scopes)
	for n := 1; expected == nil && errors.Is(err, store.ErrStaleRevision) && n < rotateAttempts; n++ {
		if c, err = s.Get(ctx, projectID, id); err != nil {
			return 0, err
		}
		at = c.Revision
		rev, err = s.store.RotateCredentialThroughLink(ctx, linkID, projectID, id, at, sealed, scopes)
	}
	switch {
	case errors.Is(err, store.ErrLinkUsed):
		return 0, linkUsed()
	case errors.Is(err, store.ErrNotFound):
		return 0, notFound(id)
	case errors.Is(err, store.ErrStaleRevision):
		if expected == nil {
			return 0, apierr.New(apierr.Conflict, "the credential is being rotated by another request; try again")
		}
		return 0, apierr.New(apierr.Conflict, "expectedRevision %d is stale: the credential was rotated since; read the connection again", *expected)
	case err != nil:
		return 0, apierr.New(apierr.ExecutionError, "the credential rotation failed; the old credential is unchanged").WithStatus(http.StatusInternalServerError)
	}
	return rev, nil
}

// SetDefault makes an account its user's default; a global account cannot be one.
func (s *Service) SetDefault(ctx context.Context, projectID, id string) (store.Connection, error) {
	c, err := s.Get(ctx, projectID, id)
	if err != nil {
		return store.Connection{}, err
	}
	if c.Global {
		return store.Connection{}, apierr.Validation(apierr.Issue{Code: apierr.IssueInvalidValue, Path: []any{"id"},
			Message: "a global account belongs to no user and cannot be a default"})
	}
	if err := s.store.SetDefaultConnection(ctx, projectID, id); err != nil {
		return store.Connection{}, err
	}
	c.IsDefault = true
	return c, nil
}

// Delete removes an account with its credential (and, once triggers exist,
// its triggers).
func (s *Service) Delete(ctx context.Context, projectID, id string) error {
	err := s.store.DeleteConnection(ctx, projectID, id)
	if errors.Is(err, store.ErrNotFound) {
		return notFound(id)
	}
	return err
}

// PublicView is an account as the hosted Connect page shows it to its user.
type PublicView struct {
	ID          string `json:"id"`
	ConnectorID string `json:"connectorId"`
	// AuthConfigID lets the page reconnect the account with its own auth config.
	AuthConfigID string  `json:"authConfigId,omitempty"`
	Name         string  `json:"name"`
	Label        *string `json:"label"`
	Status       string  `json:"status"`
	IsDefault    bool    `json:"isDefault"`
}

// Public returns the page's view of an account: never its credential.
func Public(c store.Connection) PublicView {
	return PublicView{ID: c.ID, ConnectorID: c.ConnectorID, AuthConfigID: c.AuthConfigID, Name: c.Name, Label: c.Label, Status: c.Status, IsDefault: c.IsDefault}
}
