package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Endpoint is a project's MCP endpoint. Spec is the JSON of its scope and
// policy, read by the session package. An Endpoint from EndpointBySlug
// may be shared with the cache (recordcache.go): its Spec is read, never
// modified.
type Endpoint struct {
	ID          string
	ProjectID   string
	Slug        string
	Mode        string
	RequireUser bool
	Spec        []byte
	// Auth is AuthAPIKey or AuthOAuth; AuthConfig is the JSON of how an
	// oauth endpoint identifies its end user, AuthSecret the sealed secret
	// of that check (nil when it has none).
	Auth       string
	AuthConfig []byte
	AuthSecret []byte
	CreatedAt  time.Time
	UpdatedAt  time.Time
}

// Endpoint auth settings (migration 0024).
const (
	AuthAPIKey = "api_key"
	AuthOAuth  = "oauth"
)

const endpointColumns = `id, project_id, slug, mode, require_user, spec, auth, auth_config, auth_secret, created_at, updated_at`

func scanEndpoint(row interface{ Scan(...any) error }) (Endpoint, error) {
	var e Endpoint
	var spec, authConfig string
	var created, updated int64
	err := row.Scan(&e.ID, &e.ProjectID, &e.Slug, &e.Mode, &e.RequireUser, &spec, &e.Auth, &authConfig, &e.AuthSecret, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return Endpoint{}, ErrNotFound
	}
	if err != nil {
		return Endpoint{}, err
	}
	e.Spec, e.CreatedAt, e.UpdatedAt = []byte(spec), fromMillis(created), fromMillis(updated)
	if authConfig != "" {
		e.AuthConfig = []byte(authConfig)
	}
	return e, nil
}

// CreateEndpoint stores an endpoint, with a new id unless e has one (its
// sealed auth secret is bound to it); a taken slug is ErrConflict.
func (s *Store) CreateEndpoint(ctx context.Context, e Endpoint) (Endpoint, error) {
	if e.ID == "" {
		e.ID = NewID()
	}
	now := fromMillis(millis(s.now()))
	e.CreatedAt, e.UpdatedAt = now, now
	if e.Auth == "" {
		e.Auth = AuthAPIKey
	}
	_, err := s.write.ExecContext(ctx, `INSERT INTO endpoints (`+endpointColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		e.ID, e.ProjectID, e.Slug, e.Mode, e.RequireUser, string(e.Spec), e.Auth, string(e.AuthConfig), nullBytes(e.AuthSecret), millis(now), millis(now))
	if isUniqueViolation(err) {
		return Endpoint{}, ErrConflict
	}
	if err != nil {
		return Endpoint{}, fmt.Errorf("store: create endpoint: %w", err)
	}
	return e, nil
}

// EndpointBySlug returns the endpoint of a slug, in any project. It runs
// on every endpoint MCP request.
//
// While WatchKeys is in step with the database, an endpoint read once is
// answered from an in-process cache that any update or delete clears (the
// notification of migration 0016 on PostgreSQL, the change count of 0017
// on SQLite; recordcache.go). Otherwise it is one indexed read.
func (s *Store) EndpointBySlug(ctx context.Context, slug string) (Endpoint, error) {
	live := s.keys.live.Load()
	if live {
		if e, ok := s.keys.endpoint(slug); ok {
			s.stats.hit(statEndpoints)
			return e, nil
		}
	}
	s.stats.miss(statEndpoints)
	gen := s.keys.gen.Load()
	e, err := scanEndpoint(s.readRow(ctx, `SELECT `+endpointColumns+` FROM endpoints WHERE slug = $1`, slug))
	if err == nil && live {
		s.keys.putEndpoint(gen, e)
	}
	return e, err
}

// EndpointByID returns an endpoint by id (the endpoint a token names).
func (s *Store) EndpointByID(ctx context.Context, id string) (Endpoint, error) {
	return scanEndpoint(s.readRow(ctx, `SELECT `+endpointColumns+` FROM endpoints WHERE id = $1`, id))
}

// nullBytes stores an empty secret as NULL.
func nullBytes(b []byte) any {
	if len(b) == 0 {
		return nil
	}
	return b
}

// ListEndpoints returns a project's endpoints, oldest first.
func (s *Store) ListEndpoints(ctx context.Context, projectID string) ([]Endpoint, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT `+endpointColumns+` FROM endpoints WHERE project_id = $1 ORDER BY created_at, id`, projectID)
	if err != nil {
		return nil, fmt.Errorf("store: list endpoints: %w", err)
	}
	defer rows.Close()
	out := []Endpoint{}
	for rows.Next() {
		e, err := scanEndpoint(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list endpoints: %w", err)
		}
		out = append(out, e)
	}
	return out, rows.Err()
}

// UpdateEndpoint replaces an endpoint's mode, user rule, spec and auth.
func (s *Store) UpdateEndpoint(ctx context.Context, e Endpoint) error {
	if e.Auth == "" {
		e.Auth = AuthAPIKey
	}
	res, err := s.write.ExecContext(ctx,
		`UPDATE endpoints SET mode = $1, require_user = $2, spec = $3, auth = $4, auth_config = $5, auth_secret = $6, updated_at = $7 WHERE slug = $8`,
		e.Mode, e.RequireUser, string(e.Spec), e.Auth, string(e.AuthConfig), nullBytes(e.AuthSecret), millis(s.now()), e.Slug)
	// This process sees its own change at once, without waiting for the
	// notification (recordcache.go).
	s.keys.dropEndpoint(e.Slug)
	return affectedOne(res, err, "update endpoint")
}

// DeleteEndpoint removes an endpoint by slug.
func (s *Store) DeleteEndpoint(ctx context.Context, slug string) error {
	res, err := s.write.ExecContext(ctx, `DELETE FROM endpoints WHERE slug = $1`, slug)
	s.keys.dropEndpoint(slug)
	return affectedOne(res, err, "delete endpoint")
}

// RenameEndpoint changes the slug of a project's endpoint; a slug taken
// (in any project) is ErrConflict, an endpoint not found in the project
// ErrNotFound. Callers with the old slug get 404 from then on.
func (s *Store) RenameEndpoint(ctx context.Context, projectID, oldSlug, newSlug string) error {
	res, err := s.write.ExecContext(ctx,
		`UPDATE endpoints SET slug = $1, updated_at = $2 WHERE slug = $3 AND project_id = $4`,
		newSlug, millis(s.now()), oldSlug, projectID)
	s.keys.dropEndpoint(oldSlug)
	if isUniqueViolation(err) {
		return ErrConflict
	}
	return affectedOne(res, err, "rename endpoint")
}
