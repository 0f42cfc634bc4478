package store

import (
	"context"
	"database/sql"
	"fmt"
)

// SetToolsEnabled turns tools on or off in a project, in one transaction.
func (s *Store) SetToolsEnabled(ctx context.Context, projectID string, toolIDs []string, enabled bool) error {
	now := millis(s.now())
	err := s.tx(ctx, func(tx *sql.Tx) error {
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

// DisabledTools returns the set of tool ids turned off in a project.
func (s *Store) DisabledTools(ctx context.Context, projectID string) (map[string]bool, error) {
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
