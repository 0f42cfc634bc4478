package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Approval statuses. Expiry is not a stored status: a pending or approved
// approval past ExpiresAt reads as expired (Approval.StatusAt).
const (
	ApprovalPending  = "pending"
	ApprovalApproved = "approved"
	ApprovalDenied   = "denied"
	ApprovalUsed     = "used"
	ApprovalExpired  = "expired"
)

// Approval is a call held by an ask rule until a person decides.
type Approval struct {
	ID          string
	ProjectID   string
	ToolKey     string
	ConnectorID string
	UserID      string
	// Input is the canonical JSON of the call's input; InputHash its SHA-256.
	Input     []byte
	InputHash string
	RuleID    string
	SessionID string
	Endpoint  string
	APIKeyID  string
	// ClientOK lets the person at the MCP client of the call's session
	// approve it in place (elicitation).
	ClientOK  bool
	Status    string
	DecidedBy string
	DecidedAt *time.Time
	UsedAt    *time.Time
	// LinkHash is the SHA-256 of the approver link's token ("" for none).
	LinkHash  string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// StatusAt is the approval's status at now: a pending or approved one past
// its expiry is expired.
func (a Approval) StatusAt(now time.Time) string {
	if (a.Status == ApprovalPending || a.Status == ApprovalApproved) && !now.Before(a.ExpiresAt) {
		return ApprovalExpired
	}
	return a.Status
}

const approvalColumns = `id, project_id, tool_key, connector_id, user_id, input, input_hash, rule_id, session_id, endpoint, api_key_id,
	client_ok, status, decided_by, decided_at, used_at, link_hash, created_at, expires_at`

func scanApproval(row interface{ Scan(...any) error }) (Approval, error) {
	var a Approval
	var input string
	var decided, used sql.NullInt64
	var link sql.NullString
	var created, expires int64
	err := row.Scan(&a.ID, &a.ProjectID, &a.ToolKey, &a.ConnectorID, &a.UserID, &input, &a.InputHash, &a.RuleID, &a.SessionID,
		&a.Endpoint, &a.APIKeyID, &a.ClientOK, &a.Status, &a.DecidedBy, &decided, &used, &link, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return Approval{}, ErrNotFound
	}
	if err != nil {
		return Approval{}, err
	}
	a.Input, a.LinkHash = []byte(input), link.String
	a.DecidedAt, a.UsedAt = fromNullMillis(decided), fromNullMillis(used)
	a.CreatedAt, a.ExpiresAt = fromMillis(created), fromMillis(expires)
	return a, nil
}

// CreateApproval stores a pending approval (a.ID and a.CreatedAt set by
// the caller) and, in the same transaction, enqueues one delivery of
// eventType per project webhook subscribed to it, built by payload and
// naming cause (the held call). It returns the deliveries enqueued.
func (s *Store) CreateApproval(ctx context.Context, a Approval, eventType string, cause EventCause, payload func() ([]byte, error)) ([]string, error) {
	var ids []string
	link := sql.NullString{String: a.LinkHash, Valid: a.LinkHash != ""}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO approvals (`+approvalColumns+`)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, '', NULL, NULL, $14, $15, $16)`,
			a.ID, a.ProjectID, a.ToolKey, a.ConnectorID, a.UserID, string(a.Input), a.InputHash, a.RuleID, a.SessionID,
			a.Endpoint, a.APIKeyID, a.ClientOK, ApprovalPending, link, millis(a.CreatedAt), millis(a.ExpiresAt)); err != nil {
			return err
		}
		var err error
		ids, err = enqueueEvent(ctx, tx, a.ProjectID, eventType, millis(a.CreatedAt), cause, payload)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("store: create approval: %w", err)
	}
	return ids, nil
}

// enqueueEvent enqueues one delivery per webhook of the project subscribed
// to eventType, naming cause, inside tx.
func enqueueEvent(ctx context.Context, tx *sql.Tx, projectID, eventType string, now int64, cause EventCause, payload func() ([]byte, error)) ([]string, error) {
	rows, err := tx.QueryContext(ctx, `SELECT id, events FROM webhooks WHERE project_id = $1 AND disabled_at IS NULL ORDER BY created_at`, projectID)
	if err != nil {
		return nil, err
	}
	var hooks []string
	for rows.Next() {
		var id, events string
		if err := rows.Scan(&id, &events); err != nil {
			rows.Close()
			return nil, err
		}
		if containsWord(events, eventType) {
			hooks = append(hooks, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil || len(hooks) == 0 {
		return nil, err
	}
	body, err := payload()
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, h := range hooks {
		id := NewID()
		if _, err := tx.ExecContext(ctx, insertDelivery,
			append([]any{id, projectID, h, eventType, string(body), DeliveryPending, now, now}, cause.args()...)...); err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// GetApproval returns one of a project's approvals.
func (s *Store) GetApproval(ctx context.Context, projectID, id string) (Approval, error) {
	return scanApproval(s.read.QueryRowContext(ctx, `SELECT `+approvalColumns+` FROM approvals WHERE project_id = $1 AND id = $2`, projectID, id))
}

// ApprovalByLink returns the approval whose link token has SHA-256 hash.
func (s *Store) ApprovalByLink(ctx context.Context, hash string) (Approval, error) {
	return scanApproval(s.read.QueryRowContext(ctx, `SELECT `+approvalColumns+` FROM approvals WHERE link_hash = $1`, hash))
}

// LatestApproval returns the newest approval of a project for one user,
// tool and input, or ErrNotFound.
func (s *Store) LatestApproval(ctx context.Context, projectID, userID, toolKey, inputHash string) (Approval, error) {
	return scanApproval(s.read.QueryRowContext(ctx, `SELECT `+approvalColumns+` FROM approvals
		WHERE project_id = $1 AND user_id = $2 AND tool_key = $3 AND input_hash = $4 ORDER BY created_at DESC, id DESC LIMIT 1`,
		projectID, userID, toolKey, inputHash))
}

// DecideApproval moves a pending, unexpired approval to status (approved
// or denied) by decidedBy. An approval that is not pending, or expired, is
// ErrConflict; an unknown one ErrNotFound. With a link hash, the link is
// spent in the same statement (single use).
func (s *Store) DecideApproval(ctx context.Context, projectID, id, status, decidedBy string) (Approval, error) {
	now := millis(s.now())
	res, err := s.write.ExecContext(ctx, `UPDATE approvals SET status = $1, decided_by = $2, decided_at = $3, link_hash = NULL
		WHERE project_id = $4 AND id = $5 AND status = $6 AND expires_at > $3`,
		status, decidedBy, now, projectID, id, ApprovalPending)
	if err := affectedOne(res, err, "decide approval"); err != nil {
		if !errors.Is(err, ErrNotFound) {
			return Approval{}, err
		}
		if _, gerr := s.GetApproval(ctx, projectID, id); gerr != nil {
			return Approval{}, gerr
		}
		return Approval{}, ErrConflict
	}
	return s.GetApproval(ctx, projectID, id)
}

// UseApproval spends an approved, unexpired approval: exactly one caller
// gets true, every other (and a replay) false.
func (s *Store) UseApproval(ctx context.Context, projectID, id string) (bool, error) {
	now := millis(s.now())
	res, err := s.write.ExecContext(ctx, `UPDATE approvals SET status = $1, used_at = $2
		WHERE project_id = $3 AND id = $4 AND status = $5 AND expires_at > $2`,
		ApprovalUsed, now, projectID, id, ApprovalApproved)
	if err != nil {
		return false, fmt.Errorf("store: use approval: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// ApprovalFilter narrows ListApprovals; empty fields match everything.
// Status "expired" and "pending" compare with the store's clock.
type ApprovalFilter struct {
	Status string
	UserID string
	ToolID string
	// After is the id of the last approval of the previous page (newest first).
	After string
	Limit int
}

// ListApprovals returns a project's approvals, newest first, one page.
func (s *Store) ListApprovals(ctx context.Context, projectID string, f ApprovalFilter) ([]Approval, error) {
	now := millis(s.now())
	q := `SELECT ` + approvalColumns + ` FROM approvals WHERE project_id = $1`
	args := []any{projectID}
	add := func(cond string, v any) {
		args = append(args, v)
		q += fmt.Sprintf(" AND "+cond, len(args))
	}
	switch f.Status {
	case "":
	case ApprovalExpired:
		args = append(args, now)
		q += fmt.Sprintf(" AND status IN ('pending', 'approved') AND expires_at <= $%d", len(args))
	case ApprovalPending, ApprovalApproved:
		add("status = $%d", f.Status)
		args = append(args, now)
		q += fmt.Sprintf(" AND expires_at > $%d", len(args))
	default:
		add("status = $%d", f.Status)
	}
	if f.UserID != "" {
		add("user_id = $%d", f.UserID)
	}
	if f.ToolID != "" {
		add("tool_key = $%d", f.ToolID)
	}
	if f.After != "" {
		after, err := s.GetApproval(ctx, projectID, f.After)
		if err != nil {
			return nil, err
		}
		args = append(args, millis(after.CreatedAt), after.ID)
		q += fmt.Sprintf(" AND (created_at < $%d OR (created_at = $%d AND id < $%d))", len(args)-1, len(args)-1, len(args))
	}
	if f.Limit <= 0 {
		f.Limit = 100
	}
	args = append(args, f.Limit)
	q += fmt.Sprintf(" ORDER BY created_at DESC, id DESC LIMIT $%d", len(args))
	rows, err := s.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list approvals: %w", err)
	}
	defer rows.Close()
	out := []Approval{}
	for rows.Next() {
		a, err := scanApproval(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list approvals: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}
