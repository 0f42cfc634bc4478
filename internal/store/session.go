package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Session is a stored session; Spec is its JSON request, resolved by the
// session package. A Session from GetSession may be shared with the cache
// (recordcache.go): its Spec is read, never modified.
type Session struct {
	ID        string
	ProjectID string
	UserID    string
	Spec      []byte
	ExpiresAt time.Time
	CreatedAt time.Time
}

// CreateSession stores a session.
func (s *Store) CreateSession(ctx context.Context, ss Session) (Session, error) {
	if ss.ID == "" {
		ss.ID = NewID()
	}
	ss.CreatedAt = fromMillis(millis(s.now()))
	ss.ExpiresAt = fromMillis(millis(ss.ExpiresAt))
	_, err := s.write.ExecContext(ctx,
		`INSERT INTO sessions (id, project_id, user_id, spec, expires_at, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		ss.ID, ss.ProjectID, ss.UserID, string(ss.Spec), millis(ss.ExpiresAt), millis(ss.CreatedAt))
	if err != nil {
		return Session{}, fmt.Errorf("store: create session: %w", err)
	}
	return ss, nil
}

// GetSession returns a project's live session; an unknown or expired one
// is ErrNotFound. It runs on every session tool call and session MCP
// request.
//
// While WatchKeys is in step with the database, a session read once is
// answered from an in-process cache that any update or delete clears (the
// notification of migration 0016 on PostgreSQL, the change count of 0017
// on SQLite; recordcache.go); a cached session is refused at its expiry
// without a query. Otherwise it is one indexed read.
func (s *Store) GetSession(ctx context.Context, projectID, id string) (Session, error) {
	live := s.keys.live.Load()
	now := millis(s.now())
	if live {
		ss, found, refused := s.keys.session(projectID, id, now)
		if found {
			s.stats.hit(statSessions)
			return ss, nil
		}
		if refused {
			s.stats.hit(statSessions)
			return Session{}, ErrNotFound
		}
	}
	s.stats.miss(statSessions)
	gen := s.keys.gen.Load()
	var ss Session
	var spec string
	var exp, created int64
	err := s.readRow(ctx,
		`SELECT id, project_id, user_id, spec, expires_at, created_at FROM sessions
		 WHERE project_id = $1 AND id = $2 AND expires_at > $3`, projectID, id, now).
		Scan(&ss.ID, &ss.ProjectID, &ss.UserID, &spec, &exp, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return Session{}, ErrNotFound
	}
	if err != nil {
		return Session{}, fmt.Errorf("store: get session: %w", err)
	}
	ss.Spec, ss.ExpiresAt, ss.CreatedAt = []byte(spec), fromMillis(exp), fromMillis(created)
	if live {
		s.keys.putSession(gen, ss)
	}
	return ss, nil
}

// RedirectURLs returns the redirect URLs a project's connect links may use.
func (s *Store) RedirectURLs(ctx context.Context, projectID string) ([]string, error) {
	var raw string
	err := s.read.QueryRowContext(ctx, `SELECT redirect_urls FROM project_settings WHERE project_id = $1`, projectID).Scan(&raw)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("store: redirect urls: %w", err)
	}
	return splitList(raw), nil
}

// SetRedirectURLs replaces a project's allowed redirect URLs.
func (s *Store) SetRedirectURLs(ctx context.Context, projectID string, urls []string) error {
	_, err := s.write.ExecContext(ctx,
		`INSERT INTO project_settings (project_id, redirect_urls, updated_at) VALUES ($1, $2, $3)
		 ON CONFLICT (project_id) DO UPDATE SET redirect_urls = excluded.redirect_urls, updated_at = excluded.updated_at`,
		projectID, strings.Join(urls, "\n"), millis(s.now()))
	if err != nil {
		return fmt.Errorf("store: set redirect urls: %w", err)
	}
	return nil
}

func splitList(raw string) []string {
	if raw == "" {
		return nil
	}
	return strings.Split(raw, "\n")
}

// ConnectLink is a stored connect link; the token itself is never stored.
type ConnectLink struct {
	ID          string
	ProjectID   string
	UserID      string
	TokenHash   string
	Connectors  []string
	AuthConfigs []string
	RedirectURL string
	// ConnectionID, when set, names the one account of the user the link
	// reconnects (a link made for it, or a session's missing_scopes
	// refusal); Scopes are those it asks for beyond the ones the account
	// was granted (incremental authorization, docs/connect.md).
	ConnectionID string
	Scopes       []string
	ExpiresAt    time.Time
	UsedAt       *time.Time
	CreatedAt    time.Time
}

// CreateConnectLink stores a connect link.
func (s *Store) CreateConnectLink(ctx context.Context, l ConnectLink) (ConnectLink, error) {
	if l.ID == "" {
		l.ID = NewID()
	}
	l.CreatedAt = fromMillis(millis(s.now()))
	l.ExpiresAt = fromMillis(millis(l.ExpiresAt))
	_, err := s.write.ExecContext(ctx,
		`INSERT INTO connect_links (id, project_id, user_id, token_hash, connectors, auth_configs, redirect_url, expires_at, created_at,
		 connection_id, scopes)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
		l.ID, l.ProjectID, l.UserID, l.TokenHash, strings.Join(l.Connectors, "\n"), strings.Join(l.AuthConfigs, "\n"),
		l.RedirectURL, millis(l.ExpiresAt), millis(l.CreatedAt), l.ConnectionID, strings.Join(l.Scopes, " "))
	if err != nil {
		return ConnectLink{}, fmt.Errorf("store: create connect link: %w", err)
	}
	return l, nil
}

// ConnectLinkByToken returns the link whose token hashes to tokenHash, used
// or expired alike (the Connect page shows those states), or ErrNotFound.
func (s *Store) ConnectLinkByToken(ctx context.Context, tokenHash string) (ConnectLink, error) {
	var l ConnectLink
	var connectors, configs, scopes string
	var exp, created int64
	var used sql.NullInt64
	err := s.read.QueryRowContext(ctx,
		`SELECT id, project_id, user_id, token_hash, connectors, auth_configs, redirect_url, expires_at, used_at, created_at,
		 connection_id, scopes
		 FROM connect_links WHERE token_hash = $1`, tokenHash).
		Scan(&l.ID, &l.ProjectID, &l.UserID, &l.TokenHash, &connectors, &configs, &l.RedirectURL, &exp, &used, &created,
			&l.ConnectionID, &scopes)
	if errors.Is(err, sql.ErrNoRows) {
		return ConnectLink{}, ErrNotFound
	}
	if err != nil {
		return ConnectLink{}, fmt.Errorf("store: connect link: %w", err)
	}
	l.Connectors, l.AuthConfigs, l.Scopes = splitList(connectors), splitList(configs), splitScopes(scopes)
	l.ExpiresAt, l.CreatedAt, l.UsedAt = fromMillis(exp), fromMillis(created), fromNullMillis(used)
	return l, nil
}

// ListLiveSessions returns a project's sessions that have not expired,
// newest first, at most limit (the dashboard's sessions screen).
func (s *Store) ListLiveSessions(ctx context.Context, projectID string, limit int) ([]Session, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT id, project_id, user_id, spec, expires_at, created_at FROM sessions
		 WHERE project_id = $1 AND expires_at > $2 ORDER BY created_at DESC, id DESC LIMIT $3`,
		projectID, millis(s.now()), limit)
	if err != nil {
		return nil, fmt.Errorf("store: list sessions: %w", err)
	}
	defer rows.Close()
	var out []Session
	for rows.Next() {
		var ss Session
		var spec string
		var expires, created int64
		if err := rows.Scan(&ss.ID, &ss.ProjectID, &ss.UserID, &spec, &expires, &created); err != nil {
			return nil, err
		}
		ss.Spec, ss.ExpiresAt, ss.CreatedAt = []byte(spec), fromMillis(expires), fromMillis(created)
		out = append(out, ss)
	}
	return out, rows.Err()
}
