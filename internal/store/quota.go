package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Quota is one call limit of a project: at most Limit calls in each fixed
// window of Period seconds, over the calls its filters match (docs/quotas.md).
type Quota struct {
	ID        string
	ProjectID string
	// Period is the window's length in seconds: 60, 3600 or 86400.
	Period int
	Limit  int64
	// UserID, when set, limits only that end user's calls.
	UserID string
	// PerUser counts each end user's calls apart.
	PerUser bool
	// ConnectorID, when set, limits only calls to that connector.
	ConnectorID string
	// ToolID, when set, limits only that tool, or the tools whose ids start
	// with it when it ends in '*'.
	ToolID    string
	CreatedAt time.Time
}

// QuotaHit is one quota's count that one call adds to: the window it falls
// in (Unix milliseconds) and the quota's limit, which the count may not pass.
type QuotaHit struct {
	QuotaID     string
	Subject     string
	Period      int
	WindowStart int64
	WindowEnd   int64
	Limit       int64
}

const quotaColumns = `id, project_id, period, max_calls, user_id, per_user, connector_id, tool_id, created_at`

// bumpTools moves a project's tools_version in tx, so that every process's
// version-keyed caches (tool switches, quotas, redaction rules) read again.
func bumpTools(ctx context.Context, tx *sql.Tx, projectID string) error {
	res, err := tx.ExecContext(ctx, `UPDATE projects SET tools_version = tools_version + 1 WHERE id = $1`, projectID)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// CreateQuota stores a new quota (its ID and CreatedAt are set here) and
// moves the project's tools_version with it.
func (s *Store) CreateQuota(ctx context.Context, q Quota) (Quota, error) {
	defer s.keys.dropProject(q.ProjectID)
	q.ID = NewID()
	q.CreatedAt = fromMillis(millis(s.now()))
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := bumpTools(ctx, tx, q.ProjectID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO quotas (`+quotaColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			q.ID, q.ProjectID, q.Period, q.Limit, q.UserID, q.PerUser, q.ConnectorID, q.ToolID, millis(q.CreatedAt))
		return err
	})
	if err != nil {
		return Quota{}, fmt.Errorf("store: create quota: %w", err)
	}
	return q, nil
}

// UpdateQuota changes a quota's limit and period. Counts already taken in
// the current window stay (for the same period), so lowering a limit below
// them refuses calls until the window ends.
func (s *Store) UpdateQuota(ctx context.Context, projectID, id string, period int, limit int64) (Quota, error) {
	defer s.keys.dropProject(projectID)
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE quotas SET period = $1, max_calls = $2 WHERE id = $3 AND project_id = $4`,
			period, limit, id, projectID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return bumpTools(ctx, tx, projectID)
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return Quota{}, ErrNotFound
		}
		return Quota{}, fmt.Errorf("store: update quota: %w", err)
	}
	return s.GetQuota(ctx, projectID, id)
}

// DeleteQuota removes a quota and its counts.
func (s *Store) DeleteQuota(ctx context.Context, projectID, id string) error {
	defer s.keys.dropProject(projectID)
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM quotas WHERE id = $1 AND project_id = $2`, id, projectID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return bumpTools(ctx, tx, projectID)
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return ErrNotFound
		}
		return fmt.Errorf("store: delete quota: %w", err)
	}
	return nil
}

// GetQuota returns one quota of a project, or ErrNotFound.
func (s *Store) GetQuota(ctx context.Context, projectID, id string) (Quota, error) {
	q, err := scanQuota(s.read.QueryRowContext(ctx,
		`SELECT `+quotaColumns+` FROM quotas WHERE id = $1 AND project_id = $2`, id, projectID))
	if errors.Is(err, sql.ErrNoRows) {
		return Quota{}, ErrNotFound
	}
	if err != nil {
		return Quota{}, fmt.Errorf("store: get quota: %w", err)
	}
	return q, nil
}

// ListQuotas returns a project's quotas, oldest first.
func (s *Store) ListQuotas(ctx context.Context, projectID string) ([]Quota, error) {
	rows, err := s.readRows(ctx, `SELECT `+quotaColumns+` FROM quotas WHERE project_id = $1 ORDER BY created_at, id`, projectID)
	if err != nil {
		return nil, fmt.Errorf("store: list quotas: %w", err)
	}
	defer rows.Close()
	out := []Quota{}
	for rows.Next() {
		q, err := scanQuota(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list quotas: %w", err)
		}
		out = append(out, q)
	}
	return out, rows.Err()
}

func scanQuota(r interface{ Scan(...any) error }) (Quota, error) {
	var q Quota
	var created int64
	err := r.Scan(&q.ID, &q.ProjectID, &q.Period, &q.Limit, &q.UserID, &q.PerUser, &q.ConnectorID, &q.ToolID, &created)
	q.CreatedAt = fromMillis(created)
	return q, err
}

// CountQuotaCalls counts one call against every hit, in one statement on
// the counting pool: each count goes up by one unless that would pass its
// limit. It returns the indexes of the hits whose limit was reached; when
// there are any, the counts it did add are taken back, so a refused call
// counts nowhere. The statement is atomic per row on every replica, so no
// window's count ever passes its limit.
func (s *Store) CountQuotaCalls(ctx context.Context, hits []QuotaHit) ([]int, error) {
	if len(hits) == 0 {
		return nil, nil
	}
	// Rows are locked in hits' order; callers sort them, so two calls
	// with the same quotas cannot wait on each other.
	var b strings.Builder
	b.WriteString(`INSERT INTO quota_counts (quota_id, subject, period, window_start, calls, max_calls, window_end) VALUES `)
	args := make([]any, 0, 6*len(hits))
	for i, h := range hits {
		if i > 0 {
			b.WriteString(", ")
		}
		n := len(args)
		fmt.Fprintf(&b, "($%d, $%d, $%d, $%d, 1, $%d, $%d)", n+1, n+2, n+3, n+4, n+5, n+6)
		args = append(args, h.QuotaID, h.Subject, h.Period, h.WindowStart, h.Limit, h.WindowEnd)
	}
	// A new window's first call always fits (a limit is at least 1).
	b.WriteString(` ON CONFLICT (quota_id, subject, period, window_start)
		 DO UPDATE SET calls = quota_counts.calls + 1, max_calls = excluded.max_calls
		 WHERE quota_counts.calls < excluded.max_calls RETURNING quota_id`)
	rows, err := s.tally.QueryContext(ctx, b.String(), args...)
	if err != nil {
		return nil, fmt.Errorf("store: count quota calls: %w", err)
	}
	counted := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return nil, fmt.Errorf("store: count quota calls: %w", err)
		}
		counted[id] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: count quota calls: %w", err)
	}
	var refused []int
	for i, h := range hits {
		if !counted[h.QuotaID] {
			refused = append(refused, i)
		}
	}
	if len(refused) > 0 && len(counted) > 0 {
		for _, h := range hits {
			if !counted[h.QuotaID] {
				continue
			}
			if _, err := s.tally.ExecContext(ctx,
				`UPDATE quota_counts SET calls = calls - 1 WHERE quota_id = $1 AND subject = $2 AND period = $3 AND window_start = $4 AND calls > 0`,
				h.QuotaID, h.Subject, h.Period, h.WindowStart); err != nil {
				return nil, fmt.Errorf("store: take back quota count: %w", err)
			}
		}
	}
	return refused, nil
}

// QuotaCalls returns the calls counted in one window of a quota (for
// reports and tests).
func (s *Store) QuotaCalls(ctx context.Context, quotaID, subject string, period int, windowStart int64) (int64, error) {
	var n int64
	err := s.read.QueryRowContext(ctx,
		`SELECT calls FROM quota_counts WHERE quota_id = $1 AND subject = $2 AND period = $3 AND window_start = $4`,
		quotaID, subject, period, windowStart).Scan(&n)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("store: quota calls: %w", err)
	}
	return n, nil
}

// RedactionRules returns a project's redaction rules as stored (JSON), or
// nil when it has none.
func (s *Store) RedactionRules(ctx context.Context, projectID string) ([]byte, error) {
	var spec string
	err := s.readRow(ctx, `SELECT spec FROM redaction_rules WHERE project_id = $1`, projectID).Scan(&spec)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: redaction rules: %w", err)
	}
	return []byte(spec), nil
}

// SetRedactionRules replaces a project's redaction rules (nil removes
// them) and moves its tools_version with them.
func (s *Store) SetRedactionRules(ctx context.Context, projectID string, spec []byte) error {
	defer s.keys.dropProject(projectID)
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := bumpTools(ctx, tx, projectID); err != nil {
			return err
		}
		if spec == nil {
			_, err := tx.ExecContext(ctx, `DELETE FROM redaction_rules WHERE project_id = $1`, projectID)
			return err
		}
		_, err := tx.ExecContext(ctx,
			`INSERT INTO redaction_rules (project_id, spec, updated_at) VALUES ($1, $2, $3)
			 ON CONFLICT (project_id) DO UPDATE SET spec = excluded.spec, updated_at = excluded.updated_at`,
			projectID, string(spec), millis(s.now()))
		return err
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return ErrNotFound
		}
		return fmt.Errorf("store: set redaction rules: %w", err)
	}
	return nil
}
