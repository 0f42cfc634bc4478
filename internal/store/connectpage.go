package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ConnectSettings brand a project's hosted Connect page.
type ConnectSettings struct {
	Name       string
	Accent     string
	LogoKey    string
	SelfManage bool
}

// GetConnectSettings returns a project's Connect page settings (zero when unset).
func (s *Store) GetConnectSettings(ctx context.Context, projectID string) (ConnectSettings, error) {
	var c ConnectSettings
	err := s.read.QueryRowContext(ctx,
		`SELECT connect_name, connect_accent, connect_logo, connect_self_manage FROM project_settings WHERE project_id = $1`,
		projectID).Scan(&c.Name, &c.Accent, &c.LogoKey, &c.SelfManage)
	if errors.Is(err, sql.ErrNoRows) {
		return ConnectSettings{}, nil
	}
	if err != nil {
		return ConnectSettings{}, fmt.Errorf("store: connect settings: %w", err)
	}
	return c, nil
}

// SetConnectSettings replaces a project's Connect page settings.
func (s *Store) SetConnectSettings(ctx context.Context, projectID string, c ConnectSettings) error {
	_, err := s.write.ExecContext(ctx,
		`INSERT INTO project_settings (project_id, redirect_urls, updated_at, connect_name, connect_accent, connect_logo, connect_self_manage)
		 VALUES ($1, '', $2, $3, $4, $5, $6)
		 ON CONFLICT (project_id) DO UPDATE SET connect_name = excluded.connect_name, connect_accent = excluded.connect_accent,
		   connect_logo = excluded.connect_logo, connect_self_manage = excluded.connect_self_manage, updated_at = excluded.updated_at`,
		projectID, millis(s.now()), c.Name, c.Accent, c.LogoKey, c.SelfManage)
	if err != nil {
		return fmt.Errorf("store: set connect settings: %w", err)
	}
	return nil
}

// ErrLinkUsed is returned when a connect link that an account is stored
// through was already used.
var ErrLinkUsed = errors.New("store: connect link already used")

// useLinkInTx marks a connect link used inside the transaction that stores
// its account, so a single-use link stores exactly one account however many
// requests race: the first update takes the link row's lock (PostgreSQL) or
// the single writer (SQLite), and every other transaction then finds the
// link used and rolls back. An empty id uses nothing.
func useLinkInTx(ctx context.Context, tx *sql.Tx, id string, now time.Time) error {
	if id == "" {
		return nil
	}
	res, err := tx.ExecContext(ctx, `UPDATE connect_links SET used_at = $1 WHERE id = $2 AND used_at IS NULL`, millis(now), id)
	if err != nil {
		return fmt.Errorf("use connect link: %w", err)
	}
	if n, _ := res.RowsAffected(); n != 1 {
		return ErrLinkUsed
	}
	return nil
}

// SetConnectionLabel records the provider-side identity of an account.
func (s *Store) SetConnectionLabel(ctx context.Context, id, label string) error {
	var projectID string
	err := s.write.QueryRowContext(ctx, `UPDATE connections SET label = $1 WHERE id = $2 RETURNING project_id`, label, id).Scan(&projectID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err == nil {
		s.keys.dropProject(projectID) // this process sees its own write at once (keycache.go)
	}
	return err
}

// OAuthState is a pending OAuth authorization started from a connect link.
type OAuthState struct {
	ID           string
	StateHash    string
	LinkID       string
	AuthConfigID string
	ConnectionID string
	Name         string
	Verifier     []byte
	ExpiresAt    time.Time
	// Fields are the connection fields the user typed before signing in
	// (a GitLab host, an Okta domain); they fill the token URL.
	Fields map[string]string
	// BrowserHash is the hash of the nonce in the cookie of the browser
	// that started the authorization.
	BrowserHash string
	// Scopes are the scopes the authorize URL asked for; a token response
	// that names none grants these.
	Scopes []string
}

// CreateOAuthState stores a pending authorization; st.ID must be set.
func (s *Store) CreateOAuthState(ctx context.Context, st OAuthState) error {
	fields := ""
	if len(st.Fields) > 0 {
		b, err := json.Marshal(st.Fields)
		if err != nil {
			return fmt.Errorf("store: create oauth state: %w", err)
		}
		fields = string(b)
	}
	_, err := s.write.ExecContext(ctx,
		`INSERT INTO oauth_states (id, state_hash, link_id, auth_config_id, connection_id, name, verifier, expires_at, created_at, fields, browser_hash, scopes)
		 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		st.ID, st.StateHash, st.LinkID, st.AuthConfigID, st.ConnectionID, st.Name, st.Verifier, millis(st.ExpiresAt), millis(s.now()),
		fields, st.BrowserHash, strings.Join(st.Scopes, " "))
	if err != nil {
		return fmt.Errorf("store: create oauth state: %w", err)
	}
	return nil
}

// TakeOAuthState consumes a pending authorization: it is returned once,
// and only before it expires; a used, expired or unknown state is ErrNotFound.
func (s *Store) TakeOAuthState(ctx context.Context, stateHash string) (OAuthState, error) {
	var st OAuthState
	err := s.tx(ctx, func(tx *sql.Tx) error {
		now := millis(s.now())
		var exp int64
		var fields, scopes string
		err := tx.QueryRowContext(ctx,
			`SELECT id, state_hash, link_id, auth_config_id, connection_id, name, verifier, expires_at, fields, browser_hash, scopes FROM oauth_states
			 WHERE state_hash = $1 AND used_at IS NULL AND expires_at > $2`, stateHash, now).
			Scan(&st.ID, &st.StateHash, &st.LinkID, &st.AuthConfigID, &st.ConnectionID, &st.Name, &st.Verifier, &exp, &fields, &st.BrowserHash, &scopes)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		st.ExpiresAt, st.Scopes = fromMillis(exp), splitScopes(scopes)
		if fields != "" {
			if err := json.Unmarshal([]byte(fields), &st.Fields); err != nil {
				return fmt.Errorf("fields: %w", err)
			}
		}
		res, err := tx.ExecContext(ctx, `UPDATE oauth_states SET used_at = $1 WHERE id = $2 AND used_at IS NULL`, now, st.ID)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return ErrNotFound
		}
		return nil
	})
	if errors.Is(err, ErrNotFound) {
		return OAuthState{}, ErrNotFound
	}
	if err != nil {
		return OAuthState{}, fmt.Errorf("store: take oauth state: %w", err)
	}
	return st, nil
}

// ConnectLinkByID returns a link by id.
func (s *Store) ConnectLinkByID(ctx context.Context, id string) (ConnectLink, error) {
	var hash string
	if err := s.read.QueryRowContext(ctx, `SELECT token_hash FROM connect_links WHERE id = $1`, id).Scan(&hash); err != nil {
		if errors.Is(err, sql.ErrNoRows) {
			return ConnectLink{}, ErrNotFound
		}
		return ConnectLink{}, err
	}
	return s.ConnectLinkByToken(ctx, hash)
}

// Asset is a project upload.
type Asset struct {
	Key         string
	ProjectID   string
	ContentType string
	Data        []byte
}

// PutAsset stores an upload under its content-addressed key (idempotent).
func (s *Store) PutAsset(ctx context.Context, a Asset) error {
	_, err := s.write.ExecContext(ctx,
		`INSERT INTO assets (asset_key, project_id, content_type, data, created_at) VALUES ($1, $2, $3, $4, $5)
		 ON CONFLICT (asset_key) DO NOTHING`, a.Key, a.ProjectID, a.ContentType, a.Data, millis(s.now()))
	if err != nil {
		return fmt.Errorf("store: put asset: %w", err)
	}
	return nil
}

// GetAsset returns an upload by key.
func (s *Store) GetAsset(ctx context.Context, key string) (Asset, error) {
	var a Asset
	err := s.read.QueryRowContext(ctx, `SELECT asset_key, project_id, content_type, data FROM assets WHERE asset_key = $1`, key).
		Scan(&a.Key, &a.ProjectID, &a.ContentType, &a.Data)
	if errors.Is(err, sql.ErrNoRows) {
		return Asset{}, ErrNotFound
	}
	if err != nil {
		return Asset{}, fmt.Errorf("store: get asset: %w", err)
	}
	return a, nil
}
