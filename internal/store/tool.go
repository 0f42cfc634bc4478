package store

import (
	"context"
	"database/sql"
	"fmt"
)

// maxCachedToolSwitches bounds the cache of projects' disabled tools.
const maxCachedToolSwitches = 4096

// SetToolsEnabled turns tools on or off in a project, in one transaction.
func (s *Store) SetToolsEnabled(ctx context.Context, projectID string, toolIDs []string, enabled bool) error {
	defer s.keys.dropProject(projectID) // this process sees its own write at once (keycache.go)
	now := millis(s.now())
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `UPDATE projects SET tools_version = tools_version + 1 WHERE id = $1`, projectID); err != nil {
			return err
		}
		for _, id := range toolIDs {
			if _, err := tx.ExecContext(ctx,
				`INSERT INTO tool_settings (project_id, tool_id, enabled, updated_at) VALUES ($1, $2, $3, $4)
				 ON CONFLICT (project_id, tool_id) DO UPDATE SET enabled = excluded.enabled, updated_at = excluded.updated_at`,
				projectID, id, enabled, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: set tools enabled: %w", err)
	}
	return nil
}

// DisabledTools returns the set of tool ids turned off in a project. The
// set must not be modified. When ctx carries the project's tool-switch
// version (WithToolsVersion, set from the API key lookup), the set comes
// from an in-process cache keyed by that version, so a request pays no
// extra round trip and a switch still shows on the next request.
func (s *Store) DisabledTools(ctx context.Context, projectID string) (map[string]bool, error) {
	v, versioned := toolsVersion(ctx, projectID)
	if versioned {
		if set, ok := s.tools.get(projectID, v); ok {
			return set, nil
		}
	}
	set, err := s.queryDisabledTools(ctx, projectID)
	if err == nil && versioned {
		s.tools.put(projectID, v, set)
	}
	return set, err
}

func (s *Store) queryDisabledTools(ctx context.Context, projectID string) (map[string]bool, error) {
	rows, err := s.readRows(ctx,
		`SELECT tool_id FROM tool_settings WHERE project_id = $1 AND enabled = $2`, projectID, false)
	if err != nil {
		return nil, fmt.Errorf("store: disabled tools: %w", err)
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, fmt.Errorf("store: disabled tools: %w", err)
		}
		out[id] = true
	}
	return out, rows.Err()
}

// ToolDisabled reports whether a project has turned one tool off.
func (s *Store) ToolDisabled(ctx context.Context, projectID, toolID string) (bool, error) {
	if _, versioned := toolsVersion(ctx, projectID); versioned {
		set, err := s.DisabledTools(ctx, projectID)
		return set[toolID], err
	}
	var enabled bool
	err := s.readRow(ctx,
		`SELECT enabled FROM tool_settings WHERE project_id = $1 AND tool_id = $2`, projectID, toolID).Scan(&enabled)
	if err == sql.ErrNoRows {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("store: tool disabled: %w", err)
	}
	return !enabled, nil
}

type toolsVersionKey struct{}

type versionedProject struct {
	projectID string
	version   int64
	// connections is the connections version, when known.
	connections    int64
	hasConnections bool
}

// WithToolsVersion returns ctx carrying a project's tool-switch version.
func WithToolsVersion(ctx context.Context, projectID string, version int64) context.Context {
	return context.WithValue(ctx, toolsVersionKey{}, versionedProject{projectID: projectID, version: version})
}

// WithKeyProject returns ctx carrying the versions an API key lookup read:
// the project's tool switches and its connections.
func WithKeyProject(ctx context.Context, kp KeyProject) context.Context {
	return context.WithValue(ctx, toolsVersionKey{}, versionedProject{projectID: kp.ID, version: kp.ToolsVersion,
		connections: kp.ConnectionsVersion, hasConnections: true})
}

func toolsVersion(ctx context.Context, projectID string) (int64, bool) {
	v, ok := ctx.Value(toolsVersionKey{}).(versionedProject)
	if !ok || v.projectID != projectID {
		return 0, false
	}
	return v.version, true
}

func connectionsVersion(ctx context.Context, projectID string) (int64, bool) {
	v, ok := ctx.Value(toolsVersionKey{}).(versionedProject)
	if !ok || v.projectID != projectID || !v.hasConnections {
		return 0, false
	}
	return v.connections, true
}
