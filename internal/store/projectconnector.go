package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// ProjectConnector is a project's own connector (MCP server or imported API).
type ProjectConnector struct {
	ProjectID   string
	ConnectorID string
	Origin      string
	// Source is where it came from: the MCP server URL or the document's location.
	Source     string
	Definition []byte
	// Headers are an MCP server's static headers, sealed.
	Headers   []byte
	UpdatedAt time.Time
}

// PutProjectConnector creates or replaces a project's connector and bumps
// the project's catalog version in the same transaction.
func (s *Store) PutProjectConnector(ctx context.Context, c ProjectConnector) error {
	defer s.keys.dropProject(c.ProjectID) // this process sees its own write at once (keycache.go)
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO project_connectors (project_id, connector_id, origin, source, definition, headers, updated_at)
			 VALUES ($1, $2, $3, $4, $5, $6, $7)
			 ON CONFLICT (project_id, connector_id) DO UPDATE SET origin = excluded.origin, source = excluded.source,
			   definition = excluded.definition, headers = excluded.headers, updated_at = excluded.updated_at`,
			c.ProjectID, c.ConnectorID, c.Origin, c.Source, string(c.Definition), c.Headers, millis(s.now())); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `UPDATE projects SET tools_version = tools_version + 1 WHERE id = $1`, c.ProjectID)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: put project connector: %w", err)
	}
	return nil
}

// ListProjectConnectors returns a project's own connectors by id.
func (s *Store) ListProjectConnectors(ctx context.Context, projectID string) ([]ProjectConnector, error) {
	return s.queryProjectConnectors(ctx, `WHERE project_id = $1 ORDER BY connector_id`, projectID)
}

// ListAllMCPConnectors returns every project's MCP servers, for refreshing.
func (s *Store) ListAllMCPConnectors(ctx context.Context) ([]ProjectConnector, error) {
	return s.queryProjectConnectors(ctx, `WHERE origin = $1 ORDER BY project_id, connector_id`, "mcp")
}

func (s *Store) queryProjectConnectors(ctx context.Context, where string, args ...any) ([]ProjectConnector, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT project_id, connector_id, origin, source, definition, headers, updated_at FROM project_connectors `+where, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list project connectors: %w", err)
	}
	defer rows.Close()
	out := []ProjectConnector{}
	for rows.Next() {
		var c ProjectConnector
		var def string
		var updated int64
		if err := rows.Scan(&c.ProjectID, &c.ConnectorID, &c.Origin, &c.Source, &def, &c.Headers, &updated); err != nil {
			return nil, fmt.Errorf("store: list project connectors: %w", err)
		}
		c.Definition, c.UpdatedAt = []byte(def), fromMillis(updated)
		out = append(out, c)
	}
	return out, rows.Err()
}

// GetProjectConnector returns one of a project's own connectors.
func (s *Store) GetProjectConnector(ctx context.Context, projectID, connectorID string) (ProjectConnector, error) {
	list, err := s.ListProjectConnectors(ctx, projectID)
	if err != nil {
		return ProjectConnector{}, err
	}
	for _, c := range list {
		if c.ConnectorID == connectorID {
			return c, nil
		}
	}
	return ProjectConnector{}, ErrNotFound
}

// DeleteProjectConnector removes a project's connector (and bumps the version).
func (s *Store) DeleteProjectConnector(ctx context.Context, projectID, connectorID string) error {
	defer s.keys.dropProject(projectID) // this process sees its own write at once (keycache.go)
	return s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM project_connectors WHERE project_id = $1 AND connector_id = $2`, projectID, connectorID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		_, err = tx.ExecContext(ctx, `UPDATE projects SET tools_version = tools_version + 1 WHERE id = $1`, projectID)
		return err
	})
}

// ProjectVersions returns a project with its tool-switch and connections
// versions, as ProjectForKey does for a key, for callers without an API key
// (the Connect page, trigger ingress, admin commands): they build their
// tenant from it (upstream.Catalogs.Load).
func (s *Store) ProjectVersions(ctx context.Context, projectID string) (KeyProject, error) {
	kp := KeyProject{ID: projectID}
	err := s.readRow(ctx, `SELECT tools_version, connections_version, policies_version FROM projects WHERE id = $1`, projectID).
		Scan(&kp.ToolsVersion, &kp.ConnectionsVersion, &kp.PoliciesVersion)
	if errors.Is(err, sql.ErrNoRows) {
		return KeyProject{}, ErrNotFound
	}
	if err != nil {
		return KeyProject{}, fmt.Errorf("store: project versions: %w", err)
	}
	return kp, nil
}
