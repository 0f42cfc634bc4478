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

// Connection statuses (docs/connections.md, "Status").
const (
	StatusActive         = "active"
	StatusReauthRequired = "reauth_required"
)

// Connection is one stored account. Credential is sealed; UserID is "" for
// a global account.
type Connection struct {
	ID           string
	ProjectID    string
	ConnectorID  string
	AuthConfigID string
	UserID       string
	Global       bool
	Name         string
	Label        *string
	IsDefault    bool
	Status       string
	Scopes       []string
	Credential   []byte
	Revision     int64
	LastUsedAt   *time.Time
	CreatedAt    time.Time
}

const connectionColumns = `id, project_id, connector_id, auth_config_id, user_id, global, name, label, is_default,
	status, scopes, credential, revision, last_used_at, created_at`

func scanConnection(row interface{ Scan(...any) error }) (Connection, error) {
	var c Connection
	var label sql.NullString
	var scopes string
	var lastUsed sql.NullInt64
	var created int64
	err := row.Scan(&c.ID, &c.ProjectID, &c.ConnectorID, &c.AuthConfigID, &c.UserID, &c.Global, &c.Name, &label,
		&c.IsDefault, &c.Status, &scopes, &c.Credential, &c.Revision, &lastUsed, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return Connection{}, ErrNotFound
	}
	if err != nil {
		return Connection{}, err
	}
	if label.Valid {
		c.Label = &label.String
	}
	c.Scopes = splitScopes(scopes)
	c.LastUsedAt = fromNullMillis(lastUsed)
	c.CreatedAt = fromMillis(created)
	return c, nil
}

// NewConnection is what CreateConnection stores. ID must be set by the
// caller (the credential is sealed for it); an empty Name takes the next
// free name: default, default-2, default-3, …
type NewConnection struct {
	ID           string
	ProjectID    string
	ConnectorID  string
	AuthConfigID string
	UserID       string
	Global       bool
	Name         string
	Label        *string
	Scopes       []string
	Credential   []byte
	// UseLinkID, when set, is the connect link the account is stored
	// through: it is marked used in the same transaction, and a link that
	// is already used stores nothing and is ErrLinkUsed.
	UseLinkID string
}

// CreateConnection stores a new active account. The user's first account
// of a connector becomes their default; a global account never does. A
// name the user already has for the connector is ErrConflict.
func (s *Store) CreateConnection(ctx context.Context, nc NewConnection) (Connection, error) {
	defer s.keys.dropProject(nc.ProjectID) // this process sees its own write at once (keycache.go)
	var c Connection
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := useLinkInTx(ctx, tx, nc.UseLinkID, s.now()); err != nil {
			return err
		}
		// Concurrent creates for one user on PostgreSQL read the same names
		// and pick the same next one. The insert skips a row that breaks any
		// unique rule (having waited for the competing transaction to
		// commit) instead of failing the transaction, so the loop can read
		// again what is now taken and try the next free name, and whether
		// a default exists. Every skip means another account was committed,
		// so the loop ends; SQLite, with one writer, never skips.
		for range maxCreateAttempts {
			taken, hasDefault, err := connectionNames(ctx, tx, nc)
			if err != nil {
				return err
			}
			name := nc.Name
			if name == "" {
				name = nextFreeName(taken)
			} else if taken[name] {
				return ErrConflict
			}
			now := millis(s.now())
			c = Connection{
				ID: nc.ID, ProjectID: nc.ProjectID, ConnectorID: nc.ConnectorID, AuthConfigID: nc.AuthConfigID,
				UserID: nc.UserID, Global: nc.Global, Name: name, Label: nc.Label, IsDefault: !nc.Global && !hasDefault,
				Status: StatusActive, Scopes: nc.Scopes, Credential: nc.Credential, Revision: 1, CreatedAt: fromMillis(now),
			}
			if c.Scopes == nil {
				c.Scopes = []string{}
			}
			res, err := tx.ExecContext(ctx, `INSERT INTO connections (`+connectionColumns+`, updated_at)
				VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16) ON CONFLICT DO NOTHING`,
				c.ID, c.ProjectID, c.ConnectorID, c.AuthConfigID, c.UserID, c.Global, c.Name, nullString(c.Label),
				c.IsDefault, c.Status, strings.Join(c.Scopes, " "), c.Credential, c.Revision, nil, now, now)
			if err != nil {
				return err
			}
			if n, err := res.RowsAffected(); err != nil || n == 1 {
				return err
			}
		}
		return fmt.Errorf("no free name for connection %s after %d attempts", nc.ID, maxCreateAttempts)
	})
	if err != nil {
		if errors.Is(err, ErrConflict) || errors.Is(err, ErrLinkUsed) {
			return Connection{}, err
		}
		return Connection{}, fmt.Errorf("store: create connection: %w", err)
	}
	return c, nil
}

// maxCreateAttempts bounds CreateConnection's retries: far more accounts
// than one user can create at the same instant.
const maxCreateAttempts = 100

// connectionNames reads, in tx, the names a user already has for the
// connector of nc and whether one of those accounts is the default.
func connectionNames(ctx context.Context, tx *sql.Tx, nc NewConnection) (map[string]bool, bool, error) {
	rows, err := tx.QueryContext(ctx,
		`SELECT name, is_default FROM connections WHERE project_id = $1 AND connector_id = $2 AND user_id = $3`,
		nc.ProjectID, nc.ConnectorID, nc.UserID)
	if err != nil {
		return nil, false, err
	}
	defer rows.Close()
	taken := map[string]bool{}
	hasDefault := false
	for rows.Next() {
		var name string
		var def bool
		if err := rows.Scan(&name, &def); err != nil {
			return nil, false, err
		}
		taken[name] = true
		hasDefault = hasDefault || def
	}
	return taken, hasDefault, rows.Err()
}

func nextFreeName(taken map[string]bool) string {
	if !taken["default"] {
		return "default"
	}
	for i := 2; ; i++ {
		if n := "default-" + strconv.Itoa(i); !taken[n] {
			return n
		}
	}
}

func nullString(s *string) sql.NullString {
	if s == nil {
		return sql.NullString{}
	}
	return sql.NullString{String: *s, Valid: true}
}

// GetConnection returns one of a project's connections, or ErrNotFound
// (also for another project's connection).
func (s *Store) GetConnection(ctx context.Context, projectID, id string) (Connection, error) {
	return scanConnection(s.readRow(ctx,
		`SELECT `+connectionColumns+` FROM connections WHERE project_id = $1 AND id = $2`, projectID, id))
}

// ListConnections returns a user's accounts and the project's global
// accounts, oldest first.
func (s *Store) ListConnections(ctx context.Context, projectID, userID string) ([]Connection, error) {
	return s.queryConnections(ctx, listConnectionsSQL, projectID, userID)
}

// The user's accounts and the project's global ones are read as two
// indexed halves joined by UNION ALL: written as `(user_id = $n OR
// global)` neither dialect could use an index for the OR, and the lookup
// scanned every account of the project (tens of milliseconds at 100k
// rows). The first half leaves out global rows so that none is read twice.
const (
	listConnectionsSQL = `SELECT ` + connectionColumns + ` FROM connections
		 WHERE project_id = $1 AND user_id = $2 AND NOT global
		 UNION ALL
		 SELECT ` + connectionColumns + ` FROM connections WHERE project_id = $1 AND global
		 ORDER BY created_at, id`
	connectorConnectionsSQL = `SELECT ` + connectionColumns + ` FROM connections
		 WHERE project_id = $1 AND connector_id = $2 AND user_id = $3 AND NOT global
		 UNION ALL
		 SELECT ` + connectionColumns + ` FROM connections WHERE project_id = $1 AND connector_id = $2 AND global
		 ORDER BY created_at, id`
)

// ConnectorConnections returns a user's accounts of one connector and the
// project's global accounts of it, oldest first: the candidates of account
// resolution.
func (s *Store) ConnectorConnections(ctx context.Context, projectID, userID, connectorID string) ([]Connection, error) {
	return s.queryConnections(ctx, connectorConnectionsSQL, projectID, connectorID, userID)
}

func (s *Store) queryConnections(ctx context.Context, q string, args ...any) ([]Connection, error) {
	rows, err := s.readRows(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: list connections: %w", err)
	}
	defer rows.Close()
	out := []Connection{}
	for rows.Next() {
		c, err := scanConnection(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list connections: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// RenameConnection renames an account; a name the user already has for the
// connector is ErrConflict.
func (s *Store) RenameConnection(ctx context.Context, projectID, id, name string) error {
	defer s.keys.dropProject(projectID) // this process sees its own write at once (keycache.go)
	res, err := s.write.ExecContext(ctx,
		`UPDATE connections SET name = $1, updated_at = $2 WHERE project_id = $3 AND id = $4`,
		name, millis(s.now()), projectID, id)
	if isUniqueViolation(err) {
		return ErrConflict
	}
	return affectedOne(res, err, "rename connection")
}

// ErrStaleRevision is returned by RotateCredential when the connection's
// revision is no longer the expected one.
var ErrStaleRevision = errors.New("store: stale revision")

// RotateCredential replaces the credential when the stored revision is
// expected, sets the account active again, and returns the new revision.
func (s *Store) RotateCredential(ctx context.Context, projectID, id string, expected int64, credential []byte, scopes []string) (int64, error) {
	return s.RotateCredentialThroughLink(ctx, "", projectID, id, expected, credential, scopes)
}

// RotateCredentialThroughLink is RotateCredential for a reconnect through
// a connect link: when linkID is set the link is marked used in the same
// transaction, and a link that is already used changes nothing and is
// ErrLinkUsed.
func (s *Store) RotateCredentialThroughLink(ctx context.Context, linkID, projectID, id string, expected int64, credential []byte, scopes []string) (int64, error) {
	defer s.keys.dropProject(projectID) // this process sees its own write at once (keycache.go)
	var rev int64
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := useLinkInTx(ctx, tx, linkID, s.now()); err != nil {
			return err
		}
		var current int64
		err := tx.QueryRowContext(ctx, `SELECT revision FROM connections WHERE project_id = $1 AND id = $2`, projectID, id).Scan(&current)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		if current != expected {
			return ErrStaleRevision
		}
		rev = current + 1
		_, err = tx.ExecContext(ctx,
			`UPDATE connections SET credential = $1, revision = $2, status = $3, scopes = $4, updated_at = $5 WHERE id = $6`,
			credential, rev, StatusActive, strings.Join(scopes, " "), millis(s.now()), id)
		return err
	})
	if err != nil {
		if errors.Is(err, ErrNotFound) || errors.Is(err, ErrStaleRevision) || errors.Is(err, ErrLinkUsed) {
			return 0, err
		}
		return 0, fmt.Errorf("store: rotate credential: %w", err)
	}
	return rev, nil
}

// UpdateRefreshedCredential stores a credential refreshed from revision
// (new tokens). It writes nothing and returns false when the account was
// rotated meanwhile, so a refresh never overwrites a newer credential.
func (s *Store) UpdateRefreshedCredential(ctx context.Context, id string, revision int64, credential []byte) (bool, error) {
	res, err := s.write.ExecContext(ctx,
		`UPDATE connections SET credential = $1, updated_at = $2 WHERE id = $3 AND revision = $4`,
		credential, millis(s.now()), id, revision)
	if err != nil {
		return false, fmt.Errorf("store: update refreshed credential: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// UpdateGrantedScopes replaces the scopes an account was granted when it
// still has revision, as a token refresh or a client credentials token
// reports them. Like the refreshed credential, it does not move the
// connections version: resolution never decides on scopes.
func (s *Store) UpdateGrantedScopes(ctx context.Context, id string, revision int64, scopes []string) (bool, error) {
	res, err := s.write.ExecContext(ctx,
		`UPDATE connections SET scopes = $1, updated_at = $2 WHERE id = $3 AND revision = $4`,
		strings.Join(scopes, " "), millis(s.now()), id, revision)
	if err != nil {
		return false, fmt.Errorf("store: update granted scopes: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// SetConnectionStatus moves an account to status when it still has revision.
func (s *Store) SetConnectionStatus(ctx context.Context, id string, revision int64, status string) error {
	var projectID string
	err := s.write.QueryRowContext(ctx,
		`UPDATE connections SET status = $1, updated_at = $2 WHERE id = $3 AND revision = $4 RETURNING project_id`,
		status, millis(s.now()), id, revision).Scan(&projectID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("store: set connection status: %w", err)
	}
	s.keys.dropProject(projectID) // this process sees its own write at once (keycache.go)
	return nil
}

// SetDefaultConnection makes an account its user's default for its connector.
func (s *Store) SetDefaultConnection(ctx context.Context, projectID, id string) error {
	defer s.keys.dropProject(projectID) // this process sees its own write at once (keycache.go)
	err := s.tx(ctx, func(tx *sql.Tx) error {
		c, err := connectionInTx(ctx, tx, projectID, id)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx,
			`UPDATE connections SET is_default = $1 WHERE project_id = $2 AND connector_id = $3 AND user_id = $4 AND is_default`,
			false, projectID, c.ConnectorID, c.UserID); err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, `UPDATE connections SET is_default = $1 WHERE id = $2`, true, id)
		return err
	})
	return wrapConnErr("set default connection", err)
}

// DeleteConnection removes an account and its credential. When it was the
// default, the user's next oldest account of the connector becomes default.
func (s *Store) DeleteConnection(ctx context.Context, projectID, id string) error {
	defer s.keys.dropProject(projectID) // this process sees its own write at once (keycache.go)
	err := s.tx(ctx, func(tx *sql.Tx) error {
		c, err := connectionInTx(ctx, tx, projectID, id)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM connections WHERE id = $1`, id); err != nil {
			return err
		}
		if !c.IsDefault {
			return nil
		}
		_, err = tx.ExecContext(ctx,
			`UPDATE connections SET is_default = $1 WHERE id = (
				SELECT id FROM connections WHERE project_id = $2 AND connector_id = $3 AND user_id = $4
				ORDER BY created_at, id LIMIT 1)`,
			true, projectID, c.ConnectorID, c.UserID)
		return err
	})
	return wrapConnErr("delete connection", err)
}

// connectionInTx reads one of a project's accounts inside a transaction.
func connectionInTx(ctx context.Context, tx *sql.Tx, projectID, id string) (Connection, error) {
	return scanConnection(tx.QueryRowContext(ctx,
		`SELECT `+connectionColumns+` FROM connections WHERE project_id = $1 AND id = $2`, projectID, id))
}

// wrapConnErr names the operation of a database error; ErrNotFound stays
// as it is for callers that test for it.
func wrapConnErr(op string, err error) error {
	if err == nil || errors.Is(err, ErrNotFound) {
		return err
	}
	return fmt.Errorf("store: %s: %w", op, err)
}

// TouchConnections records when accounts were last used, in one
// transaction; the caller coalesces uses so this runs now and then, not on
// every call.
func (s *Store) TouchConnections(ctx context.Context, used map[string]time.Time) error {
	if len(used) == 0 {
		return nil
	}
	return s.tx(ctx, func(tx *sql.Tx) error {
		for id, at := range used {
			if _, err := tx.ExecContext(ctx,
				`UPDATE connections SET last_used_at = $1 WHERE id = $2 AND (last_used_at IS NULL OR last_used_at < $1)`,
				millis(at), id); err != nil {
				return err
			}
		}
		return nil
	})
}

// AcquireRefreshLease takes the right to refresh an account's token until
// the lease ends, so that at most one replica refreshes at a time. It
// reports whether owner holds the lease now.
func (s *Store) AcquireRefreshLease(ctx context.Context, id, owner string, ttl time.Duration) (bool, error) {
	now := s.now()
	res, err := s.write.ExecContext(ctx,
		`UPDATE connections SET refresh_lease_owner = $1, refresh_lease_until = $2
		 WHERE id = $3 AND (refresh_lease_until IS NULL OR refresh_lease_until < $4 OR refresh_lease_owner = $1)`,
		owner, millis(now.Add(ttl)), id, millis(now))
	if err != nil {
		return false, fmt.Errorf("store: acquire refresh lease: %w", err)
	}
	n, _ := res.RowsAffected()
	return n == 1, nil
}

// ReleaseRefreshLease gives a lease back early.
func (s *Store) ReleaseRefreshLease(ctx context.Context, id, owner string) error {
	_, err := s.write.ExecContext(ctx,
		`UPDATE connections SET refresh_lease_owner = NULL, refresh_lease_until = NULL WHERE id = $1 AND refresh_lease_owner = $2`,
		id, owner)
	if err != nil {
		return fmt.Errorf("store: release refresh lease: %w", err)
	}
	return nil
}

// GlobalPermission is what a global account may run.
type GlobalPermission struct {
	Tools []string
	Proxy bool
}

// SetGlobalPermission replaces what a global account may run.
func (s *Store) SetGlobalPermission(ctx context.Context, connectionID string, p GlobalPermission) error {
	_, err := s.write.ExecContext(ctx,
		`INSERT INTO global_permissions (connection_id, tools, proxy, updated_at) VALUES ($1, $2, $3, $4)
		 ON CONFLICT (connection_id) DO UPDATE SET tools = excluded.tools, proxy = excluded.proxy, updated_at = excluded.updated_at`,
		connectionID, strings.Join(p.Tools, ","), p.Proxy, millis(s.now()))
	if err != nil {
		return fmt.Errorf("store: set global permission: %w", err)
	}
	return nil
}

// GetGlobalPermission returns what a global account may run; none is the
// zero permission (nothing).
func (s *Store) GetGlobalPermission(ctx context.Context, connectionID string) (GlobalPermission, error) {
	var tools string
	var p GlobalPermission
	err := s.readRow(ctx,
		`SELECT tools, proxy FROM global_permissions WHERE connection_id = $1`, connectionID).Scan(&tools, &p.Proxy)
	if errors.Is(err, sql.ErrNoRows) {
		return GlobalPermission{}, nil
	}
	if err != nil {
		return GlobalPermission{}, fmt.Errorf("store: get global permission: %w", err)
	}
	if tools != "" {
		p.Tools = strings.Split(tools, ",")
	}
	return p, nil
}

// DeleteGlobalPermission takes every permission from a global account.
func (s *Store) DeleteGlobalPermission(ctx context.Context, connectionID string) error {
	_, err := s.write.ExecContext(ctx, `DELETE FROM global_permissions WHERE connection_id = $1`, connectionID)
	if err != nil {
		return fmt.Errorf("store: delete global permission: %w", err)
	}
	return nil
}

func affectedOne(res sql.Result, err error, what string) error {
	if err != nil {
		return fmt.Errorf("store: %s: %w", what, err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// ConnectionByID returns a connection of any project, for the admin
// commands that name one by id alone.
func (s *Store) ConnectionByID(ctx context.Context, id string) (Connection, error) {
	return scanConnection(s.read.QueryRowContext(ctx,
		`SELECT `+connectionColumns+` FROM connections WHERE id = $1`, id))
}
