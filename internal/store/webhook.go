package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Delivery statuses.
const (
	DeliveryPending   = "pending"
	DeliveryDelivered = "delivered"
	DeliveryFailed    = "failed"
)

// Webhook is a project's endpoint for trigger.fired deliveries. Secret is sealed.
type Webhook struct {
	ID          string
	ProjectID   string
	URL         string
	Events      []string
	Description string
	Secret      []byte
	DisabledAt  *time.Time
	CreatedAt   time.Time
}

const webhookColumns = `id, project_id, url, events, description, secret, disabled_at, created_at`

func scanWebhook(row interface{ Scan(...any) error }) (Webhook, error) {
	var w Webhook
	var events string
	var disabled sql.NullInt64
	var created int64
	err := row.Scan(&w.ID, &w.ProjectID, &w.URL, &events, &w.Description, &w.Secret, &disabled, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return Webhook{}, ErrNotFound
	}
	if err != nil {
		return Webhook{}, err
	}
	w.Events, w.DisabledAt, w.CreatedAt = splitList(events), fromNullMillis(disabled), fromMillis(created)
	return w, nil
}

// CreateWebhook stores a webhook; w.ID must be set (its secret is sealed for it).
func (s *Store) CreateWebhook(ctx context.Context, w Webhook) (Webhook, error) {
	w.CreatedAt = fromMillis(millis(s.now()))
	_, err := s.write.ExecContext(ctx, `INSERT INTO webhooks (`+webhookColumns+`) VALUES ($1, $2, $3, $4, $5, $6, NULL, $7)`,
		w.ID, w.ProjectID, w.URL, strings.Join(w.Events, "\n"), w.Description, w.Secret, millis(w.CreatedAt))
	if err != nil {
		return Webhook{}, fmt.Errorf("store: create webhook: %w", err)
	}
	return w, nil
}

// GetWebhook returns one of a project's webhooks.
func (s *Store) GetWebhook(ctx context.Context, projectID, id string) (Webhook, error) {
	return scanWebhook(s.read.QueryRowContext(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE project_id = $1 AND id = $2`, projectID, id))
}

// ListWebhooks returns a project's webhooks, oldest first.
func (s *Store) ListWebhooks(ctx context.Context, projectID string) ([]Webhook, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+webhookColumns+` FROM webhooks WHERE project_id = $1 ORDER BY created_at, id`, projectID)
	if err != nil {
		return nil, fmt.Errorf("store: list webhooks: %w", err)
	}
	defer rows.Close()
	out := []Webhook{}
	for rows.Next() {
		w, err := scanWebhook(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, w)
	}
	return out, rows.Err()
}

// DeleteWebhook removes a webhook and its deliveries.
func (s *Store) DeleteWebhook(ctx context.Context, projectID, id string) error {
	res, err := s.write.ExecContext(ctx, `DELETE FROM webhooks WHERE project_id = $1 AND id = $2`, projectID, id)
	return affectedOne(res, err, "delete webhook")
}

// DisableWebhook stops deliveries to a webhook (its receiver answered 410 Gone).
func (s *Store) DisableWebhook(ctx context.Context, id string) error {
	_, err := s.write.ExecContext(ctx, `UPDATE webhooks SET disabled_at = $1 WHERE id = $2 AND disabled_at IS NULL`, millis(s.now()), id)
	return err
}

// Delivery is one webhook delivery (trigger.fired, approval.requested):
// queue entry and log line.
type Delivery struct {
	ID            string
	ProjectID     string
	WebhookID     string
	EventType     string
	Payload       []byte
	Status        string
	Attempts      int
	NextAttemptAt time.Time
	LastStatus    *int
	LastError     string
	LastAttemptAt *time.Time
	CreatedAt     time.Time
	// Cause is what the delivery's event came from.
	Cause EventCause
}

// EventCause is what caused an event, copied onto each of its deliveries;
// empty fields are NULL. An approval.requested event names the tool call
// that was held: its execution log record (LogID, empty when the log is
// off) and its request id. A trigger.fired event names the trigger, the
// event's own id (the id in the delivery's body) and the provider's id of
// the delivery it came in (ProviderEventID), when the provider sent one.
type EventCause struct {
	LogID           string
	RequestID       string
	TriggerID       string
	EventID         string
	ProviderEventID string
}

// args are the cause's columns as statement arguments (NULL when empty).
func (c EventCause) args() []any {
	return []any{emptyNull(c.LogID), emptyNull(c.RequestID), emptyNull(c.TriggerID), emptyNull(c.EventID), emptyNull(c.ProviderEventID)}
}

func emptyNull(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

const deliveryColumns = `id, project_id, webhook_id, event_type, payload, status, attempts, next_attempt_at, last_status, last_error, last_attempt_at, created_at,
	log_id, request_id, trigger_id, event_id, provider_event_id`

// insertDelivery is the statement that enqueues one delivery.
const insertDelivery = `INSERT INTO deliveries (id, project_id, webhook_id, event_type, payload, status, next_attempt_at, created_at,
	log_id, request_id, trigger_id, event_id, provider_event_id)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`

func scanDelivery(row interface{ Scan(...any) error }) (Delivery, error) {
	var d Delivery
	var payload string
	var next, created int64
	var lastStatus sql.NullInt64
	var lastAt sql.NullInt64
	var logID, requestID, triggerID, eventID, providerID sql.NullString
	err := row.Scan(&d.ID, &d.ProjectID, &d.WebhookID, &d.EventType, &payload, &d.Status, &d.Attempts, &next, &lastStatus, &d.LastError, &lastAt, &created,
		&logID, &requestID, &triggerID, &eventID, &providerID)
	if errors.Is(err, sql.ErrNoRows) {
		return Delivery{}, ErrNotFound
	}
	if err != nil {
		return Delivery{}, err
	}
	d.Payload, d.NextAttemptAt, d.CreatedAt, d.LastAttemptAt = []byte(payload), fromMillis(next), fromMillis(created), fromNullMillis(lastAt)
	d.Cause = EventCause{LogID: logID.String, RequestID: requestID.String, TriggerID: triggerID.String, EventID: eventID.String, ProviderEventID: providerID.String}
	if lastStatus.Valid {
		v := int(lastStatus.Int64)
		d.LastStatus = &v
	}
	return d, nil
}

// ClaimDeliveries locks up to limit due pending deliveries for owner until
// lease ends and returns them. On PostgreSQL, FOR UPDATE SKIP LOCKED keeps
// replicas from claiming the same rows; on SQLite the single writer does.
func (s *Store) ClaimDeliveries(ctx context.Context, owner string, limit int, lease time.Duration) ([]Delivery, error) {
	now := s.now()
	lock := ""
	if s.dialect == Postgres {
		lock = " FOR UPDATE SKIP LOCKED"
	}
	var out []Delivery
	err := s.tx(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx,
			`UPDATE deliveries SET locked_by = $1, locked_until = $2
			 WHERE id IN (SELECT id FROM deliveries
			   WHERE status = $3 AND next_attempt_at <= $4 AND (locked_until IS NULL OR locked_until < $4)
			   ORDER BY next_attempt_at LIMIT $5`+lock+`)
			 RETURNING `+deliveryColumns,
			owner, millis(now.Add(lease)), DeliveryPending, millis(now), limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			d, err := scanDelivery(rows)
			if err != nil {
				return err
			}
			out = append(out, d)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("store: claim deliveries: %w", err)
	}
	return out, nil
}

// FinishAttempt records one attempt of a delivery its owner claimed: the
// new status, the answer, and when to try next.
func (s *Store) FinishAttempt(ctx context.Context, id, owner, status string, httpStatus int, errText string, next time.Time) error {
	var hs sql.NullInt64
	if httpStatus > 0 {
		hs = sql.NullInt64{Int64: int64(httpStatus), Valid: true}
	}
	_, err := s.write.ExecContext(ctx,
		`UPDATE deliveries SET status = $1, attempts = attempts + 1, last_status = $2, last_error = $3, last_attempt_at = $4,
		   next_attempt_at = $5, locked_by = NULL, locked_until = NULL
		 WHERE id = $6 AND locked_by = $7`,
		status, hs, errText, millis(s.now()), millis(next), id, owner)
	if err != nil {
		return fmt.Errorf("store: finish delivery attempt: %w", err)
	}
	return nil
}

// ListDeliveries returns a webhook's most recent deliveries, newest first.
func (s *Store) ListDeliveries(ctx context.Context, projectID, webhookID string, limit int) ([]Delivery, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+deliveryColumns+` FROM deliveries
		WHERE project_id = $1 AND webhook_id = $2 ORDER BY created_at DESC, id DESC LIMIT $3`, projectID, webhookID, limit)
	if err != nil {
		return nil, fmt.Errorf("store: list deliveries: %w", err)
	}
	defer rows.Close()
	out := []Delivery{}
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// DeliveriesCausedBy returns the deliveries the project's execution log
// records logIDs caused, by record id, oldest first.
func (s *Store) DeliveriesCausedBy(ctx context.Context, projectID string, logIDs []string) (map[string][]Delivery, error) {
	out := map[string][]Delivery{}
	if len(logIDs) == 0 {
		return out, nil
	}
	args := []any{projectID}
	marks := make([]string, len(logIDs))
	for i, id := range logIDs {
		args = append(args, id)
		marks[i] = fmt.Sprintf("$%d", i+2)
	}
	rows, err := s.read.QueryContext(ctx, `SELECT `+deliveryColumns+` FROM deliveries
		WHERE project_id = $1 AND log_id IN (`+strings.Join(marks, ", ")+`) ORDER BY created_at, id`, args...)
	if err != nil {
		return nil, fmt.Errorf("store: deliveries caused by log records: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		d, err := scanDelivery(rows)
		if err != nil {
			return nil, err
		}
		out[d.Cause.LogID] = append(out[d.Cause.LogID], d)
	}
	return out, rows.Err()
}

// RetryDelivery queues a delivery again now, whatever its state.
func (s *Store) RetryDelivery(ctx context.Context, projectID, webhookID, id string) error {
	res, err := s.write.ExecContext(ctx,
		`UPDATE deliveries SET status = $1, next_attempt_at = $2, locked_by = NULL, locked_until = NULL
		 WHERE project_id = $3 AND webhook_id = $4 AND id = $5`, DeliveryPending, millis(s.now()), projectID, webhookID, id)
	return affectedOne(res, err, "retry delivery")
}

// CountDeliveries counts deliveries by status (for tests).
func (s *Store) CountDeliveries(ctx context.Context, status string) (int, error) {
	var n int
	err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM deliveries WHERE status = $1`, status).Scan(&n)
	return n, err
}

// EnqueueDelivery queues one delivery of payload to one webhook of the
// project (the dashboard's test event), whatever events it subscribes to,
// and returns its id. An unknown webhook is ErrNotFound.
func (s *Store) EnqueueDelivery(ctx context.Context, projectID, webhookID, eventType string, payload []byte) (string, error) {
	if _, err := s.GetWebhook(ctx, projectID, webhookID); err != nil {
		return "", err
	}
	id, now := NewID(), millis(s.now())
	if _, err := s.write.ExecContext(ctx,
		`INSERT INTO deliveries (id, project_id, webhook_id, event_type, payload, status, next_attempt_at, created_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
		id, projectID, webhookID, eventType, string(payload), DeliveryPending, now, now); err != nil {
		return "", fmt.Errorf("store: enqueue delivery: %w", err)
	}
	return id, nil
}
