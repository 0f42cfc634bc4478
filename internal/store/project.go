package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Project is a tenant: every other record belongs to exactly one project.
type Project struct {
	ID        string    `json:"id"`
	Name      string    `json:"name"`
	CreatedAt time.Time `json:"createdAt"`
}

// bootstrapLockKey serialises replicas that create the first project together.
const bootstrapLockKey = 7_301_955_002

// CreateProject stores a new project.
func (s *Store) CreateProject(ctx context.Context, name string) (Project, error) {
	p := Project{ID: NewID(), Name: name, CreatedAt: fromMillis(millis(s.now()))}
	if err := s.tx(ctx, func(tx *sql.Tx) error { return insertProject(ctx, tx, p) }); err != nil {
		return Project{}, fmt.Errorf("store: create project: %w", err)
	}
	return p, nil
}

func insertProject(ctx context.Context, tx *sql.Tx, p Project) error {
	_, err := tx.ExecContext(ctx,
		`INSERT INTO projects (id, name, created_at) VALUES ($1, $2, $3)`,
		p.ID, p.Name, millis(p.CreatedAt))
	return err
}

// GetProject returns one project, or ErrNotFound.
func (s *Store) GetProject(ctx context.Context, id string) (Project, error) {
	var p Project
	var created int64
	err := s.read.QueryRowContext(ctx,
		`SELECT id, name, created_at FROM projects WHERE id = $1`, id).Scan(&p.ID, &p.Name, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return Project{}, ErrNotFound
	}
	if err != nil {
		return Project{}, fmt.Errorf("store: get project: %w", err)
	}
	p.CreatedAt = fromMillis(created)
	return p, nil
}

// ListProjects returns every project, oldest first.
func (s *Store) ListProjects(ctx context.Context) ([]Project, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT id, name, created_at FROM projects ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("store: list projects: %w", err)
	}
	defer rows.Close()
	out := []Project{}
	for rows.Next() {
		var p Project
		var created int64
		if err := rows.Scan(&p.ID, &p.Name, &created); err != nil {
			return nil, fmt.Errorf("store: list projects: %w", err)
		}
		p.CreatedAt = fromMillis(created)
		out = append(out, p)
	}
	return out, rows.Err()
}

// BootstrapProject creates the project name with one API key when the
// database holds no project at all, in one transaction. created is false
// (and nothing is written) when a project already exists, so replicas that
// start together create it once.
func (s *Store) BootstrapProject(ctx context.Context, name string, key NewAPIKey) (p Project, k APIKey, created bool, err error) {
	err = s.tx(ctx, func(tx *sql.Tx) error {
		if s.dialect == Postgres {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(bootstrapLockKey)); err != nil {
				return fmt.Errorf("lock: %w", err)
			}
		}
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM projects`).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return nil
		}
		now := fromMillis(millis(s.now()))
		p = Project{ID: NewID(), Name: name, CreatedAt: now}
		if err := insertProject(ctx, tx, p); err != nil {
			return err
		}
		key.ProjectID = p.ID
		k, err = insertAPIKey(ctx, tx, key, now)
		created = err == nil
		return err
	})
	if err != nil {
		return Project{}, APIKey{}, false, fmt.Errorf("store: bootstrap project: %w", err)
	}
	return p, k, created, nil
}
