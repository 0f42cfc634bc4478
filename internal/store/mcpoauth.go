package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// OAuthClient is a client registered by dynamic client registration on
// the MCP endpoints' authorization server (migration 0024). Clients are
// public: they have no secret, only exact redirect URIs.
type OAuthClient struct {
	ID           string
	Name         string
	RedirectURIs []string
	// RegistrarHash is the SHA-256 of the address that registered it.
	RegistrarHash string
	CreatedAt     time.Time
}

// CreateOAuthClient stores a registered client under a new id.
func (s *Store) CreateOAuthClient(ctx context.Context, c OAuthClient) (OAuthClient, error) {
	c.ID = NewID()
	c.CreatedAt = fromMillis(millis(s.now()))
	uris, _ := json.Marshal(c.RedirectURIs)
	_, err := s.write.ExecContext(ctx, `INSERT INTO oauth_clients (id, name, redirect_uris, registrar_hash, created_at) VALUES ($1, $2, $3, $4, $5)`,
		c.ID, c.Name, string(uris), c.RegistrarHash, millis(c.CreatedAt))
	if err != nil {
		return OAuthClient{}, fmt.Errorf("store: create oauth client: %w", err)
	}
	return c, nil
}

// OAuthClientByID returns a registered client; an unknown id is ErrNotFound.
func (s *Store) OAuthClientByID(ctx context.Context, id string) (OAuthClient, error) {
	var c OAuthClient
	var uris string
	var created int64
	err := s.readRow(ctx, `SELECT id, name, redirect_uris, registrar_hash, created_at FROM oauth_clients WHERE id = $1`, id).
		Scan(&c.ID, &c.Name, &uris, &c.RegistrarHash, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return OAuthClient{}, ErrNotFound
	}
	if err != nil {
		return OAuthClient{}, fmt.Errorf("store: oauth client: %w", err)
	}
	if err := json.Unmarshal([]byte(uris), &c.RedirectURIs); err != nil {
		return OAuthClient{}, fmt.Errorf("store: oauth client %s: %w", id, err)
	}
	c.CreatedAt = fromMillis(created)
	return c, nil
}

// CountOAuthClientsSince counts the clients one registrar registered at or
// after since (the registration rate limit, shared by replicas).
func (s *Store) CountOAuthClientsSince(ctx context.Context, registrarHash string, since time.Time) (int, error) {
	var n int
	err := s.readRow(ctx, `SELECT count(*) FROM oauth_clients WHERE registrar_hash = $1 AND created_at >= $2`,
		registrarHash, millis(since)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: count oauth clients: %w", err)
	}
	return n, nil
}

// OAuthGrant is one authorization request, from the authorization endpoint
// to the code it ends in. Its id is the family of the tokens issued from it.
type OAuthGrant struct {
	ID            string
	ClientID      string
	EndpointID    string
	Resource      string
	RedirectURI   string
	State         string
	Scope         string
	CodeChallenge string
	NonceHash     string
	BrowserHash   string
	// UserID is set once the end user is known.
	UserID string
	// HasCode is set once the grant was approved (a code was issued);
	// CodeUsed once the code was exchanged.
	HasCode   bool
	CodeUsed  bool
	ExpiresAt time.Time
	CreatedAt time.Time
}

const grantColumns = `id, client_id, endpoint_id, resource, redirect_uri, state, scope, code_challenge, nonce_hash, browser_hash, user_id, code_hash, code_used_at, expires_at, created_at`

func scanGrant(row interface{ Scan(...any) error }) (OAuthGrant, error) {
	var g OAuthGrant
	var code sql.NullString
	var used sql.NullInt64
	var expires, created int64
	err := row.Scan(&g.ID, &g.ClientID, &g.EndpointID, &g.Resource, &g.RedirectURI, &g.State, &g.Scope, &g.CodeChallenge,
		&g.NonceHash, &g.BrowserHash, &g.UserID, &code, &used, &expires, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return OAuthGrant{}, ErrNotFound
	}
	if err != nil {
		return OAuthGrant{}, fmt.Errorf("store: oauth grant: %w", err)
	}
	g.HasCode, g.CodeUsed = code.Valid, used.Valid
	g.ExpiresAt, g.CreatedAt = fromMillis(expires), fromMillis(created)
	return g, nil
}

// CreateOAuthGrant stores a new authorization request under a new id.
func (s *Store) CreateOAuthGrant(ctx context.Context, g OAuthGrant) (OAuthGrant, error) {
	g.ID = NewID()
	g.CreatedAt = fromMillis(millis(s.now()))
	_, err := s.write.ExecContext(ctx, `INSERT INTO oauth_grants (`+grantColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, NULL, NULL, $12, $13)`,
		g.ID, g.ClientID, g.EndpointID, g.Resource, g.RedirectURI, g.State, g.Scope, g.CodeChallenge, g.NonceHash, g.BrowserHash, g.UserID,
		millis(g.ExpiresAt), millis(g.CreatedAt))
	if err != nil {
		return OAuthGrant{}, fmt.Errorf("store: create oauth grant: %w", err)
	}
	return g, nil
}

// OAuthGrantByID returns a grant; an unknown id is ErrNotFound.
func (s *Store) OAuthGrantByID(ctx context.Context, id string) (OAuthGrant, error) {
	return scanGrant(s.readRow(ctx, `SELECT `+grantColumns+` FROM oauth_grants WHERE id = $1`, id))
}

// SetOAuthGrantUser records the end user of a pending grant (one without a
// user or code yet, not expired); any other grant is ErrNotFound.
func (s *Store) SetOAuthGrantUser(ctx context.Context, id, userID string) error {
	res, err := s.write.ExecContext(ctx, `UPDATE oauth_grants SET user_id = $1 WHERE id = $2 AND user_id = '' AND code_hash IS NULL AND expires_at > $3`,
		userID, id, millis(s.now()))
	return affectedOne(res, err, "set oauth grant user")
}

// IssueOAuthCode approves a grant that has a user and no code yet: it
// records the code's hash and the code's expiry. Any other grant is
// ErrNotFound, so a grant gets one code at most.
func (s *Store) IssueOAuthCode(ctx context.Context, id, codeHash string, expires time.Time) error {
	res, err := s.write.ExecContext(ctx, `UPDATE oauth_grants SET code_hash = $1, expires_at = $2 WHERE id = $3 AND user_id <> '' AND code_hash IS NULL AND expires_at > $4`,
		codeHash, millis(expires), id, millis(s.now()))
	return affectedOne(res, err, "issue oauth code")
}

// DeleteOAuthGrant removes a grant (a denied or abandoned request).
func (s *Store) DeleteOAuthGrant(ctx context.Context, id string) error {
	_, err := s.write.ExecContext(ctx, `DELETE FROM oauth_grants WHERE id = $1 AND code_hash IS NULL`, id)
	return err
}

// UseOAuthCode marks the code of codeHash used and returns its grant. first
// is false when the code had been used already (the caller revokes what was
// issued from it); an unknown code is ErrNotFound. Expiry is the caller's
// to check.
func (s *Store) UseOAuthCode(ctx context.Context, codeHash string) (g OAuthGrant, first bool, err error) {
	res, err := s.write.ExecContext(ctx, `UPDATE oauth_grants SET code_used_at = $1 WHERE code_hash = $2 AND code_used_at IS NULL`,
		millis(s.now()), codeHash)
	if err != nil {
		return OAuthGrant{}, false, fmt.Errorf("store: use oauth code: %w", err)
	}
	n, _ := res.RowsAffected()
	g, err = scanGrant(s.write.QueryRowContext(ctx, `SELECT `+grantColumns+` FROM oauth_grants WHERE code_hash = $1`, codeHash))
	return g, n == 1, err
}

// Token kinds.
const (
	TokenAccess  = "access"
	TokenRefresh = "refresh"
)

// OAuthToken is an issued bearer or refresh token, known by its hash.
type OAuthToken struct {
	Hash     string
	Kind     string
	FamilyID string
	// ProjectID is the project the token acts in; EndpointID or SessionID
	// the one MCP URL it is good for.
	ProjectID  string
	EndpointID string
	SessionID  string
	ClientID   string
	UserID     string
	Resource   string
	ExpiresAt  time.Time
	Used       bool
	Revoked    bool
	CreatedAt  time.Time
}

const tokenColumns = `token_hash, kind, family_id, project_id, endpoint_id, session_id, client_id, user_id, resource, expires_at, used_at, revoked_at, created_at`

// CreateOAuthTokens stores tokens in one transaction.
func (s *Store) CreateOAuthTokens(ctx context.Context, tokens ...OAuthToken) error {
	now := millis(s.now())
	return s.tx(ctx, func(tx *sql.Tx) error {
		for _, t := range tokens {
			if _, err := tx.ExecContext(ctx, `INSERT INTO oauth_tokens (`+tokenColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL, NULL, $11)`,
				t.Hash, t.Kind, t.FamilyID, t.ProjectID, t.EndpointID, t.SessionID, t.ClientID, t.UserID, t.Resource, millis(t.ExpiresAt), now); err != nil {
				return fmt.Errorf("store: create oauth token: %w", err)
			}
		}
		return nil
	})
}

// OAuthTokenByHash returns a token by its hash; an unknown one is
// ErrNotFound. Expiry, use and revocation are the caller's to check. A
// live access token is answered from the cache while the change listener
// is subscribed (tokencache.go), as API keys are: an MCP request signed in
// with OAuth reads no row either.
func (s *Store) OAuthTokenByHash(ctx context.Context, hash string) (OAuthToken, error) {
	live := s.keys.live.Load()
	if live {
		if t, ok := s.keys.tokens.Get(hash); ok {
			s.stats.hit(statMCPTokens)
			return t, nil
		}
	}
	s.stats.miss(statMCPTokens)
	gen := s.keys.gen.Load()
	t, err := s.readOAuthToken(ctx, hash)
	if err == nil && live {
		s.keys.putToken(gen, t)
	}
	return t, err
}

func (s *Store) readOAuthToken(ctx context.Context, hash string) (OAuthToken, error) {
	var t OAuthToken
	var used, revoked sql.NullInt64
	var expires, created int64
	err := s.readRow(ctx, `SELECT `+tokenColumns+` FROM oauth_tokens WHERE token_hash = $1`, hash).Scan(&t.Hash, &t.Kind, &t.FamilyID,
		&t.ProjectID, &t.EndpointID, &t.SessionID, &t.ClientID, &t.UserID, &t.Resource, &expires, &used, &revoked, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return OAuthToken{}, ErrNotFound
	}
	if err != nil {
		return OAuthToken{}, fmt.Errorf("store: oauth token: %w", err)
	}
	t.ExpiresAt, t.CreatedAt, t.Used, t.Revoked = fromMillis(expires), fromMillis(created), used.Valid, revoked.Valid
	return t, nil
}

// RotateRefreshToken spends a live refresh token and stores its successors
// in one transaction. It reports false, storing nothing, when the token was
// already used or revoked (the caller revokes its family).
func (s *Store) RotateRefreshToken(ctx context.Context, hash string, next ...OAuthToken) (bool, error) {
	now := millis(s.now())
	ok := false
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE oauth_tokens SET used_at = $1 WHERE token_hash = $2 AND kind = $3 AND used_at IS NULL AND revoked_at IS NULL`,
			now, hash, TokenRefresh)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return nil
		}
		ok = true
		for _, t := range next {
			if _, err := tx.ExecContext(ctx, `INSERT INTO oauth_tokens (`+tokenColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, NULL, NULL, $11)`,
				t.Hash, t.Kind, t.FamilyID, t.ProjectID, t.EndpointID, t.SessionID, t.ClientID, t.UserID, t.Resource, millis(t.ExpiresAt), now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("store: rotate refresh token: %w", err)
	}
	return ok, nil
}

// RevokeOAuthFamily revokes every token of a family (a grant's, or a
// session token's).
func (s *Store) RevokeOAuthFamily(ctx context.Context, familyID string) error {
	rows, err := s.write.QueryContext(ctx, `UPDATE oauth_tokens SET revoked_at = $1 WHERE family_id = $2 AND revoked_at IS NULL RETURNING token_hash`,
		millis(s.now()), familyID)
	if err != nil {
		return fmt.Errorf("store: revoke oauth tokens: %w", err)
	}
	defer rows.Close()
	// This process's own cache forgets them at once; other processes hear
	// of it from the database (migration 0025).
	for rows.Next() {
		var h string
		if err := rows.Scan(&h); err != nil {
			return fmt.Errorf("store: revoke oauth tokens: %w", err)
		}
		s.keys.dropToken(h)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("store: revoke oauth tokens: %w", err)
	}
	return nil
}
