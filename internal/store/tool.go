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
// set must not be modified. It comes from an in-process cache keyed by the
// project's tool-switch version (the caller's tenant read it with the API
// key, or from the projects row), so a request pays no extra round trip and
// a switch still shows on the next request: every switch moves the version
// in its own transaction.
func (s *Store) DisabledTools(ctx context.Context, projectID string, toolsVersion int64) (map[string]bool, error) {
	if set, ok := s.tools.get(projectID, toolsVersion); ok {
		s.stats.hit(statToolSwitches)
		return set, nil
	}
	s.stats.miss(statToolSwitches)
	set, err := s.queryDisabledTools(ctx, projectID)
	if err == nil {
		s.tools.put(projectID, toolsVersion, set)
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

// ToolDisabled reports whether a project has turned one tool off, from the
// cache DisabledTools keeps.
func (s *Store) ToolDisabled(ctx context.Context, projectID string, toolsVersion int64, toolID string) (bool, error) {
	set, err := s.DisabledTools(ctx, projectID, toolsVersion)
	return set[toolID], err
}
