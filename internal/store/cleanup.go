package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Retention of records that only matter for a while.
const (
	keepExpiredLinks = 7 * 24 * time.Hour // a used or expired link still shows its state for a week
	keepDeliveries   = 30 * 24 * time.Hour
	// keepApprovals: an approval stays listed (GET /v1/approvals) for 30
	// days after its expiry, then goes; its decision is in the execution log.
	keepApprovals = 30 * 24 * time.Hour
)

// Cleanup deletes what has outlived its use: expired sessions, spent or
// expired OAuth states, old connect links, ingress counters of past
// minutes, quota counts of ended windows, replay digests past the
// tolerance, finished deliveries older than 30 days, approvals 30 days
// past their expiry, and expired MCP sign-in grants and tokens. It returns how many rows it removed.
func (s *Store) Cleanup(ctx context.Context) (int64, error) {
	now := s.now()
	ms := millis(now)
	stmts := []struct {
		q    string
		args []any
	}{
		{`DELETE FROM sessions WHERE expires_at <= $1`, []any{ms}},
		{`DELETE FROM oauth_states WHERE expires_at <= $1 OR used_at IS NOT NULL`, []any{ms}},
		{`DELETE FROM connect_links WHERE expires_at <= $1`, []any{millis(now.Add(-keepExpiredLinks))}},
		{`DELETE FROM trigger_hits WHERE minute < $1`, []any{now.Unix()/60 - 1}},
		{`DELETE FROM quota_counts WHERE window_end < $1`, []any{ms}},
		{`DELETE FROM trigger_seen WHERE seen_at < $1`, []any{millis(now.Add(-time.Hour))}},
		{`DELETE FROM deliveries WHERE status <> $1 AND created_at < $2`, []any{DeliveryPending, millis(now.Add(-keepDeliveries))}},
		{`DELETE FROM approvals WHERE expires_at < $1`, []any{millis(now.Add(-keepApprovals))}},
		// Expired MCP sign-ins and tokens (migration 0024); a used code's
		// grant stays while its tokens live, to revoke them if it comes back.
		{`DELETE FROM oauth_tokens WHERE expires_at <= $1`, []any{ms}},
		{`DELETE FROM oauth_grants WHERE expires_at <= $1 AND (code_used_at IS NULL OR NOT EXISTS (SELECT 1 FROM oauth_tokens WHERE family_id = oauth_grants.id))`, []any{ms}},
	}
	var total int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		for _, st := range stmts {
			res, err := tx.ExecContext(ctx, st.q, st.args...)
			if err != nil {
				return err
			}
			n, _ := res.RowsAffected()
			total += n
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: cleanup: %w", err)
	}
	return total, nil
}
