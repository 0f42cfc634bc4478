package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// LogRecord is one row of the execution log: a tool call, who made it
// through which path, and how it ended (docs/execution-log.md). Input and
// Output are set only for projects that store payloads; they hold JSON
// already redacted and capped. Policy, when set, is the JSON of the policy
// decision behind the call (a rule matched or an approval was involved).
type LogRecord struct {
	ID             string
	ProjectID      string
	CreatedAt      time.Time
	UserID         string
	ConnectorID    string
	Tool           string
	ConnectionID   string
	SessionID      string
	EndpointID     string
	APIKeyID       string
	Outcome        string
	ProviderStatus int
	// TotalMicros is the gateway's whole time on the call, ProviderMicros
	// the part spent waiting on the provider.
	TotalMicros    int64
	ProviderMicros int64
	RequestID      string
	Input, Output  *string
	Policy         *string
}

const logColumns = `id, project_id, created_at, user_id, connector_id, tool, connection_id, session_id, endpoint_id,
	api_key_id, outcome, provider_status, total_us, provider_us, request_id, input, output, policy`

// logColumnCount is the number of columns an insert gives per row.
const logColumnCount = 18

// logInsertRows bounds the rows of one INSERT statement, far below the
// bind-parameter limits of both databases.
const logInsertRows = 200

// InsertLogRecords writes records in one transaction, in multi-row
// statements. It is called by the log's background writer, never on a
// call's path.
func (s *Store) InsertLogRecords(ctx context.Context, records []LogRecord) error {
	if len(records) == 0 {
		return nil
	}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		for start := 0; start < len(records); start += logInsertRows {
			chunk := records[start:min(start+logInsertRows, len(records))]
			var b strings.Builder
			b.WriteString(`INSERT INTO execution_log (` + logColumns + `) VALUES `)
			args := make([]any, 0, len(chunk)*logColumnCount)
			for i, r := range chunk {
				if i > 0 {
					b.WriteByte(',')
				}
				b.WriteByte('(')
				for c := range logColumnCount {
					if c > 0 {
						b.WriteByte(',')
					}
					b.WriteByte('$')
					b.WriteString(strconv.Itoa(i*logColumnCount + c + 1))
				}
				b.WriteByte(')')
				args = append(args, r.ID, r.ProjectID, millis(r.CreatedAt), r.UserID, r.ConnectorID, r.Tool, r.ConnectionID,
					r.SessionID, r.EndpointID, r.APIKeyID, r.Outcome, r.ProviderStatus, r.TotalMicros, r.ProviderMicros,
					r.RequestID, nullText(r.Input), nullText(r.Output), nullText(r.Policy))
			}
			if _, err := tx.ExecContext(ctx, b.String(), args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: insert log records: %w", err)
	}
	return nil
}

func nullText(p *string) sql.NullString {
	if p == nil {
		return sql.NullString{}
	}
	return sql.NullString{String: *p, Valid: true}
}

// LogFilter selects records of one project, newest first. Empty fields
// and zero times select everything.
type LogFilter struct {
	ProjectID   string
	UserID      string
	ConnectorID string
	Tool        string
	Outcome     string
	// Since is inclusive, Until exclusive.
	Since, Until time.Time
	// AfterAt and AfterID continue a listing after the record with that
	// time (Unix milliseconds) and id; AfterID empty starts at the newest.
	AfterAt int64
	AfterID string
	Limit   int
}

// ListLogRecords returns up to f.Limit records of f.ProjectID that match
// f, newest first (by time, then id).
func (s *Store) ListLogRecords(ctx context.Context, f LogFilter) ([]LogRecord, error) {
	where := []string{"project_id = $1"}
	args := []any{f.ProjectID}
	add := func(cond string, v any) {
		args = append(args, v)
		where = append(where, strings.ReplaceAll(cond, "?", "$"+strconv.Itoa(len(args))))
	}
	if f.UserID != "" {
		add("user_id = ?", f.UserID)
	}
	if f.ConnectorID != "" {
		add("connector_id = ?", f.ConnectorID)
	}
	if f.Tool != "" {
		add("tool = ?", f.Tool)
	}
	if f.Outcome != "" {
		add("outcome = ?", f.Outcome)
	}
	if !f.Since.IsZero() {
		add("created_at >= ?", millis(f.Since))
	}
	if !f.Until.IsZero() {
		add("created_at < ?", millis(f.Until))
	}
	if f.AfterID != "" {
		args = append(args, f.AfterAt, f.AfterID)
		n := len(args)
		where = append(where, fmt.Sprintf("(created_at < $%d OR (created_at = $%d AND id < $%d))", n-1, n-1, n))
	}
	limit := f.Limit
	if limit <= 0 {
		limit = 100
	}
	args = append(args, limit)
	q := `SELECT ` + logColumns + ` FROM execution_log WHERE ` + strings.Join(where, " AND ") +
		` ORDER BY created_at DESC, id DESC LIMIT $` + strconv.Itoa(len(args))
	rows, err := s.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list log records: %w", err)
	}
	defer rows.Close()
	out := []LogRecord{}
	for rows.Next() {
		r, err := scanLogRecord(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list log records: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// GetLogRecord returns one record of a project, or ErrNotFound (also for
// another project's record).
func (s *Store) GetLogRecord(ctx context.Context, projectID, id string) (LogRecord, error) {
	r, err := scanLogRecord(s.read.QueryRowContext(ctx,
		`SELECT `+logColumns+` FROM execution_log WHERE project_id = $1 AND id = $2`, projectID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return LogRecord{}, ErrNotFound
	}
	if err != nil {
		return LogRecord{}, fmt.Errorf("store: get log record: %w", err)
	}
	return r, nil
}

func scanLogRecord(row interface{ Scan(...any) error }) (LogRecord, error) {
	var r LogRecord
	var created int64
	var input, output, policy sql.NullString
	if err := row.Scan(&r.ID, &r.ProjectID, &created, &r.UserID, &r.ConnectorID, &r.Tool, &r.ConnectionID, &r.SessionID,
		&r.EndpointID, &r.APIKeyID, &r.Outcome, &r.ProviderStatus, &r.TotalMicros, &r.ProviderMicros, &r.RequestID,
		&input, &output, &policy); err != nil {
		return LogRecord{}, err
	}
	r.CreatedAt = fromMillis(created)
	if input.Valid {
		r.Input = &input.String
	}
	if output.Valid {
		r.Output = &output.String
	}
	if policy.Valid {
		r.Policy = &policy.String
	}
	return r, nil
}

// PruneLog deletes the records older than keep (by the store's clock),
// batch rows per statement so that no statement holds the writer long,
// and returns how many it removed.
func (s *Store) PruneLog(ctx context.Context, keep time.Duration, batch int) (int64, error) {
	if batch <= 0 {
		batch = 1000
	}
	before := s.now().Add(-keep)
	var total int64
	for {
		res, err := s.write.ExecContext(ctx,
			`DELETE FROM execution_log WHERE id IN (SELECT id FROM execution_log WHERE created_at < $1 LIMIT $2)`,
			millis(before), batch)
		if err != nil {
			return total, fmt.Errorf("store: prune log: %w", err)
		}
		n, _ := res.RowsAffected()
		total += n
		if n < int64(batch) || ctx.Err() != nil {
			return total, nil
		}
	}
}

// LogSettings are a project's execution log settings: whether inputs and
// outputs are stored, and the field names redacted beside the built-in ones.
type LogSettings struct {
	Payloads bool
	Redact   []string
}

// GetLogSettings returns a project's log settings (zero when unset).
func (s *Store) GetLogSettings(ctx context.Context, projectID string) (LogSettings, error) {
	var ls LogSettings
	var redact string
	err := s.read.QueryRowContext(ctx,
		`SELECT log_payloads, log_redact FROM project_settings WHERE project_id = $1`, projectID).Scan(&ls.Payloads, &redact)
	if errors.Is(err, sql.ErrNoRows) {
		return LogSettings{}, nil
	}
	if err != nil {
		return LogSettings{}, fmt.Errorf("store: log settings: %w", err)
	}
	ls.Redact = splitNames(redact)
	return ls, nil
}

// SetLogSettings replaces a project's log settings.
func (s *Store) SetLogSettings(ctx context.Context, projectID string, ls LogSettings) error {
	_, err := s.write.ExecContext(ctx,
		`INSERT INTO project_settings (project_id, redirect_urls, updated_at, log_payloads, log_redact)
		 VALUES ($1, '', $2, $3, $4)
		 ON CONFLICT (project_id) DO UPDATE SET log_payloads = excluded.log_payloads, log_redact = excluded.log_redact,
		   updated_at = excluded.updated_at`,
		projectID, millis(s.now()), ls.Payloads, strings.Join(ls.Redact, ","))
	if err != nil {
		return fmt.Errorf("store: set log settings: %w", err)
	}
	return nil
}

// PayloadProjects returns the projects that store payloads in the log,
// each with its own redacted field names.
func (s *Store) PayloadProjects(ctx context.Context) (map[string][]string, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT project_id, log_redact FROM project_settings WHERE log_payloads`)
	if err != nil {
		return nil, fmt.Errorf("store: payload projects: %w", err)
	}
	defer rows.Close()
	out := map[string][]string{}
	for rows.Next() {
		var id, redact string
		if err := rows.Scan(&id, &redact); err != nil {
			return nil, fmt.Errorf("store: payload projects: %w", err)
		}
		out[id] = splitNames(redact)
	}
	return out, rows.Err()
}

// splitNames splits a comma-separated list of names, dropping empty ones.
func splitNames(s string) []string {
	var out []string
	for _, v := range strings.Split(s, ",") {
		if v = strings.TrimSpace(v); v != "" {
			out = append(out, v)
		}
	}
	return out
}
