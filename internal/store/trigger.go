package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Trigger is a stored trigger. Secret is sealed (nil until a provider
// handshake supplies it, for schemes that work that way).
type Trigger struct {
	ID           string
	ProjectID    string
	ConnectionID string
	ConnectorID  string
	Event        string
	TokenHash    string
	Secret       []byte
	Config       []byte
	Setup        string
	HookID       string
	FireCount    int64
	LastFiredAt  *time.Time
	CreatedAt    time.Time
	// UserID is the connection's user ("" for a global account), read with the trigger.
	UserID string
}

const triggerColumns = `t.id, t.project_id, t.connection_id, t.connector_id, t.event, t.token_hash, t.secret, t.config,
	t.setup, t.hook_id, t.fire_count, t.last_fired_at, t.created_at, c.user_id`

const triggerFrom = ` FROM triggers t JOIN connections c ON c.id = t.connection_id`

func scanTrigger(row interface{ Scan(...any) error }) (Trigger, error) {
	var t Trigger
	var config string
	var last sql.NullInt64
	var created int64
	err := row.Scan(&t.ID, &t.ProjectID, &t.ConnectionID, &t.ConnectorID, &t.Event, &t.TokenHash, &t.Secret, &config,
		&t.Setup, &t.HookID, &t.FireCount, &last, &created, &t.UserID)
	if errors.Is(err, sql.ErrNoRows) {
		return Trigger{}, ErrNotFound
	}
	if err != nil {
		return Trigger{}, err
	}
	t.Config, t.LastFiredAt, t.CreatedAt = []byte(config), fromNullMillis(last), fromMillis(created)
	return t, nil
}

// CreateTrigger stores a trigger; t.ID must be set (its secret is sealed for it).
func (s *Store) CreateTrigger(ctx context.Context, t Trigger) (Trigger, error) {
	t.CreatedAt = fromMillis(millis(s.now()))
	if len(t.Config) == 0 {
		t.Config = []byte("{}")
	}
	_, err := s.write.ExecContext(ctx,
		`INSERT INTO triggers (id, project_id, connection_id, connector_id, event, token_hash, secret, config, setup, hook_id, created_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		t.ID, t.ProjectID, t.ConnectionID, t.ConnectorID, t.Event, t.TokenHash, t.Secret, string(t.Config), t.Setup, t.HookID, millis(t.CreatedAt))
	if err != nil {
		return Trigger{}, fmt.Errorf("store: create trigger: %w", err)
	}
	return t, nil
}

// GetTrigger returns one of a project's triggers.
func (s *Store) GetTrigger(ctx context.Context, projectID, id string) (Trigger, error) {
	return scanTrigger(s.read.QueryRowContext(ctx, `SELECT `+triggerColumns+triggerFrom+` WHERE t.project_id = $1 AND t.id = $2`, projectID, id))
}

// TriggerByToken returns the trigger whose ingress token hashes to tokenHash.
func (s *Store) TriggerByToken(ctx context.Context, tokenHash string) (Trigger, error) {
	return scanTrigger(s.readRow(ctx, `SELECT `+triggerColumns+triggerFrom+` WHERE t.token_hash = $1`, tokenHash))
}

// ListTriggers returns a project's triggers, oldest first; a non-empty
// userID keeps only that user's.
func (s *Store) ListTriggers(ctx context.Context, projectID, userID string) ([]Trigger, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+triggerColumns+triggerFrom+`
		WHERE t.project_id = $1 AND ($2 = '' OR c.user_id = $2) ORDER BY t.created_at, t.id`, projectID, userID)
	if err != nil {
		return nil, fmt.Errorf("store: list triggers: %w", err)
	}
	defer rows.Close()
	out := []Trigger{}
	for rows.Next() {
		t, err := scanTrigger(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list triggers: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// DeleteTrigger removes a trigger with its secret and counters.
func (s *Store) DeleteTrigger(ctx context.Context, projectID, id string) error {
	res, err := s.write.ExecContext(ctx, `DELETE FROM triggers WHERE project_id = $1 AND id = $2`, projectID, id)
	return affectedOne(res, err, "delete trigger")
}

// SetTriggerSecret stores a sealed secret a provider handed over in a handshake.
func (s *Store) SetTriggerSecret(ctx context.Context, id string, sealed []byte) error {
	_, err := s.write.ExecContext(ctx, `UPDATE triggers SET secret = $1 WHERE id = $2`, sealed, id)
	if err != nil {
		return fmt.Errorf("store: set trigger secret: %w", err)
	}
	return nil
}

// CountTriggerHit counts one ingress delivery in the current minute and
// returns the minute's count, in the database so that replicas agree.
func (s *Store) CountTriggerHit(ctx context.Context, triggerID string) (int64, error) {
	minute := s.now().Unix() / 60
	var n int64
	// One statement, committed on its own: no transaction round trips, and
	// on PostgreSQL no wait for the flush (tally).
	err := s.tally.QueryRowContext(ctx,
		`INSERT INTO trigger_hits (trigger_id, minute, hits) VALUES ($1, $2, 1)
		 ON CONFLICT (trigger_id, minute) DO UPDATE SET hits = trigger_hits.hits + 1
		 RETURNING hits`, triggerID, minute).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: count trigger hit: %w", err)
	}
	return n, nil
}

// ErrReplayed is returned by FireTrigger when the delivery's digest was
// already processed.
var ErrReplayed = errors.New("store: delivery already processed")

// NewDelivery is one trigger.fired delivery to enqueue.
type NewDelivery struct {
	ID        string
	WebhookID string
	EventType string
	Payload   []byte
}

// FireTrigger records a matched delivery in one transaction: it refuses a
// replayed digest (when one is given), counts the firing, and enqueues one
// delivery per webhook of the project subscribed to eventType, built by
// payload, naming cause (its TriggerID is set to t's). It returns the
// deliveries enqueued.
func (s *Store) FireTrigger(ctx context.Context, t Trigger, digest, eventType string, cause EventCause, payload func() ([]byte, error)) ([]string, error) {
	cause.TriggerID = t.ID
	now := millis(s.now())
	var ids []string
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if digest != "" {
			// A digest seen within the hour is a replay; an older one (not yet
			// removed by Cleanup) is taken over. One statement either way.
			var seen int64
			err := tx.QueryRowContext(ctx,
				`INSERT INTO trigger_seen (trigger_id, digest, seen_at) VALUES ($1, $2, $3)
				 ON CONFLICT (trigger_id, digest) DO UPDATE SET seen_at = excluded.seen_at WHERE trigger_seen.seen_at < $4
				 RETURNING seen_at`, t.ID, digest, now, now-int64(time.Hour/time.Millisecond)).Scan(&seen)
			if errors.Is(err, sql.ErrNoRows) {
				return ErrReplayed
			}
			if err != nil {
				return err
			}
		}
		rows, err := tx.QueryContext(ctx, `SELECT id, events FROM webhooks WHERE project_id = $1 AND disabled_at IS NULL ORDER BY created_at`, t.ProjectID)
		if err != nil {
			return err
		}
		var hooks []string
		for rows.Next() {
			var id, events string
			if err := rows.Scan(&id, &events); err != nil {
				rows.Close()
				return err
			}
			if containsWord(events, eventType) {
				hooks = append(hooks, id)
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		if len(hooks) == 0 {
			return nil
		}
		body, err := payload()
		if err != nil {
			return err
		}
		for _, h := range hooks {
			id := NewID()
			if _, err := tx.ExecContext(ctx, insertDelivery,
				append([]any{id, t.ProjectID, h, eventType, string(body), DeliveryPending, now, now}, cause.args()...)...); err != nil {
				return err
			}
			ids = append(ids, id)
		}
		return nil
	})
	if errors.Is(err, ErrReplayed) {
		return nil, ErrReplayed
	}
	if err != nil {
		return nil, fmt.Errorf("store: fire trigger: %w", err)
	}
	// The firing is counted after the commit, outside the transaction: the
	// trigger's row is the one every firing of it writes, and inside the
	// transaction concurrent firings of one trigger would queue on its lock
	// for each other's commit.
	if _, err := s.tally.ExecContext(ctx,
		`UPDATE triggers SET fire_count = fire_count + 1,
		 last_fired_at = CASE WHEN last_fired_at IS NULL OR last_fired_at < $1 THEN $1 ELSE last_fired_at END WHERE id = $2`,
		now, t.ID); err != nil {
		return ids, fmt.Errorf("%w: %v", ErrUncounted, err)
	}
	return ids, nil
}

// ErrUncounted is returned by FireTrigger, with the deliveries it
// enqueued, when the firing was recorded but its count could not be.
var ErrUncounted = errors.New("store: the trigger fired but its fire count was not updated")

func containsWord(list, word string) bool {
	for _, w := range splitList(list) {
		if w == word {
			return true
		}
	}
	return false
}
