package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// PollState is where a poll trigger stands: its cursor (JSON; empty until
// the first poll places it), its schedule and its failures in a row.
type PollState struct {
	TriggerID    string
	Cursor       string
	LastPolledAt *time.Time
	NextDueAt    time.Time
	Failures     int
	LastError    string
}

const pollColumns = `p.trigger_id, p.cursor_state, p.last_polled_at, p.next_due_at, p.failures, p.last_error`

func scanPoll(row interface{ Scan(...any) error }) (PollState, error) {
	var p PollState
	var last sql.NullInt64
	var due int64
	err := row.Scan(&p.TriggerID, &p.Cursor, &last, &due, &p.Failures, &p.LastError)
	if errors.Is(err, sql.ErrNoRows) {
		return PollState{}, ErrNotFound
	}
	if err != nil {
		return PollState{}, err
	}
	p.LastPolledAt, p.NextDueAt = fromNullMillis(last), fromMillis(due)
	return p, nil
}

// CreatePollTrigger stores a poll trigger with its poll state, due at
// once, in one transaction; cursor is its starting position ("" when the
// first poll places it).
func (s *Store) CreatePollTrigger(ctx context.Context, t Trigger, cursor string) (Trigger, error) {
	t.CreatedAt = fromMillis(millis(s.now()))
	if len(t.Config) == 0 {
		t.Config = []byte("{}")
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx,
			`INSERT INTO triggers (id, project_id, connection_id, connector_id, event, token_hash, secret, config, setup, hook_id, created_at)
			 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
			t.ID, t.ProjectID, t.ConnectionID, t.ConnectorID, t.Event, t.TokenHash, t.Secret, string(t.Config), t.Setup, t.HookID, millis(t.CreatedAt)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO trigger_polls (trigger_id, cursor_state, next_due_at) VALUES ($1, $2, $3)`,
			t.ID, cursor, millis(t.CreatedAt))
		return err
	})
	if err != nil {
		return Trigger{}, fmt.Errorf("store: create poll trigger: %w", err)
	}
	return t, nil
}

// TriggerByID returns a trigger of any project (the poller's, which
// claims triggers by id).
func (s *Store) TriggerByID(ctx context.Context, id string) (Trigger, error) {
	return scanTrigger(s.read.QueryRowContext(ctx, `SELECT `+triggerColumns+triggerFrom+` WHERE t.id = $1`, id))
}

// GetPollState returns a poll trigger's state.
func (s *Store) GetPollState(ctx context.Context, triggerID string) (PollState, error) {
	return scanPoll(s.read.QueryRowContext(ctx, `SELECT `+pollColumns+` FROM trigger_polls p WHERE p.trigger_id = $1`, triggerID))
}

// ClaimPolls leases up to limit due poll triggers to owner until lease
// ends and returns their states, most overdue first. A trigger whose
// connection must be reconnected is skipped (paused) until it is. On
// PostgreSQL, FOR UPDATE SKIP LOCKED keeps replicas from claiming the
// same rows; on SQLite the single writer does.
func (s *Store) ClaimPolls(ctx context.Context, owner string, limit int, lease time.Duration) ([]PollState, error) {
	now := s.now()
	lock := ""
	if s.dialect == Postgres {
		lock = " FOR UPDATE OF p SKIP LOCKED"
	}
	var out []PollState
	err := s.tx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx,
			`UPDATE trigger_polls SET locked_by = $1, locked_until = $2
			 WHERE trigger_id IN (SELECT p.trigger_id FROM trigger_polls p
			   JOIN triggers t ON t.id = p.trigger_id JOIN connections c ON c.id = t.connection_id
			   WHERE p.next_due_at <= $3 AND (p.locked_until IS NULL OR p.locked_until < $3) AND c.status <> $4
			   ORDER BY p.next_due_at LIMIT $5`+lock+`)
			 RETURNING trigger_id, cursor_state, last_polled_at, next_due_at, failures, last_error`,
			owner, millis(now.Add(lease)), millis(now), StatusReauthRequired, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			p, err := scanPoll(rows)
			if err != nil {
				return err
			}
			out = append(out, p)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: claim polls: %w", err)
	}
	return out, nil
}

// ErrLeaseLost is returned by FinishPoll when owner no longer holds the
// trigger's lease (it ran out and another process claimed the trigger).
var ErrLeaseLost = errors.New("store: the poll lease was lost")

// FinishPoll records one poll of a trigger owner claimed and releases it:
// the new cursor, when it is next due, and its failures in a row with the
// last one's cause ("" after a success).
func (s *Store) FinishPoll(ctx context.Context, triggerID, owner, cursor string, next time.Time, failures int, lastError string) error {
	res, err := s.write.ExecContext(ctx,
		`UPDATE trigger_polls SET cursor_state = $1, last_polled_at = $2, next_due_at = $3, failures = $4, last_error = $5,
		   locked_by = NULL, locked_until = NULL
		 WHERE trigger_id = $6 AND locked_by = $7`,
		cursor, millis(s.now()), millis(next), failures, lastError, triggerID, owner)
	if err != nil {
		return fmt.Errorf("store: finish poll: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrLeaseLost
	}
	return nil
}

// NextPollDue returns when the earliest poll trigger is due, or false when
// there is none.
func (s *Store) NextPollDue(ctx context.Context) (time.Time, bool, error) {
	var due sql.NullInt64
	if err := s.read.QueryRowContext(ctx, `SELECT min(next_due_at) FROM trigger_polls`).Scan(&due); err != nil {
		return time.Time{}, false, fmt.Errorf("store: next poll due: %w", err)
	}
	if !due.Valid {
		return time.Time{}, false, nil
	}
	return fromMillis(due.Int64), true, nil
}
