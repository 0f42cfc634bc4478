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
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

const endpointColumns = `id, project_id, slug, mode, require_user, spec, created_at, updated_at`

func scanEndpoint(row interface{ Scan(...any) error }) (Endpoint, error) {
	var e Endpoint
	var spec string
	var created, updated int64
	err := row.Scan(&e.ID, &e.ProjectID, &e.Slug, &e.Mode, &e.RequireUser, &spec, &created, &updated)
	if errors.Is(err, sql.ErrNoRows) {
		return Endpoint{}, ErrNotFound
	}
	if err != nil {
		return Endpoint{}, err
	}
	e.Spec, e.CreatedAt, e.UpdatedAt = []byte(spec), fromMillis(created), fromMillis(updated)
	return e, nil
}

// CreateEndpoint stores an endpoint; a taken slug is ErrConflict.
func (s *Store) CreateEndpoint(ctx context.Context, e Endpoint) (Endpoint, error) {
	e.ID = NewID()
	now := fromMillis(millis(s.now()))
	e.CreatedAt, e.UpdatedAt = now, now
	_, err := s.write.ExecContext(ctx, `INSERT INTO endpoints (`+endpointColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		e.ID, e.ProjectID, e.Slug, e.Mode, e.RequireUser, string(e.Spec), millis(now), millis(now))
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

// UpdateEndpoint replaces an endpoint's mode, user rule and spec.
func (s *Store) UpdateEndpoint(ctx context.Context, e Endpoint) error {
	res, err := s.write.ExecContext(ctx,
		`UPDATE endpoints SET mode = $1, require_user = $2, spec = $3, updated_at = $4 WHERE slug = $5`,
		e.Mode, e.RequireUser, string(e.Spec), millis(s.now()), e.Slug)
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
