package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// APIKey is a stored project API key. The key itself is never stored: only
// its SHA-256 (Hash) and a short Hint for listings.
type APIKey struct {
	ID        string     `json:"id"`
	ProjectID string     `json:"projectId"`
	Name      string     `json:"name"`
	Hint      string     `json:"hint"`
	CreatedAt time.Time  `json:"createdAt"`
	ExpiresAt *time.Time `json:"expiresAt"`
	RevokedAt *time.Time `json:"revokedAt"`
}

// NewAPIKey is what CreateAPIKey stores.
type NewAPIKey struct {
	ProjectID string
	Name      string
	Hash      string
	Hint      string
	ExpiresAt *time.Time
}

// CreateAPIKey stores a key for an existing project (else ErrNotFound).
func (s *Store) CreateAPIKey(ctx context.Context, nk NewAPIKey) (APIKey, error) {
	var k APIKey
	err := s.tx(ctx, func(tx *sql.Tx) error {
		var one int
		err := tx.QueryRowContext(ctx, `SELECT 1 FROM projects WHERE id = $1`, nk.ProjectID).Scan(&one)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		k, err = insertAPIKey(ctx, tx, nk, fromMillis(millis(s.now())))
		return err
	})
	if err != nil {
		return APIKey{}, fmt.Errorf("store: create api key: %w", err)
	}
	return k, nil
}

func insertAPIKey(ctx context.Context, tx *sql.Tx, nk NewAPIKey, now time.Time) (APIKey, error) {
	k := APIKey{ID: NewID(), ProjectID: nk.ProjectID, Name: nk.Name, Hint: nk.Hint, CreatedAt: now}
	if nk.ExpiresAt != nil {
		t := fromMillis(millis(*nk.ExpiresAt))
		k.ExpiresAt = &t
	}
	_, err := tx.ExecContext(ctx,
		`INSERT INTO api_keys (id, project_id, name, key_hash, hint, created_at, expires_at)
		 VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		k.ID, k.ProjectID, k.Name, nk.Hash, k.Hint, millis(now), nullMillis(k.ExpiresAt))
	if isUniqueViolation(err) {
		return APIKey{}, ErrConflict
	}
	return k, err
}

// ListAPIKeys returns a project's keys, oldest first, revoked ones included.
func (s *Store) ListAPIKeys(ctx context.Context, projectID string) ([]APIKey, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT id, project_id, name, hint, created_at, expires_at, revoked_at
		 FROM api_keys WHERE project_id = $1 ORDER BY created_at, id`, projectID)
	if err != nil {
		return nil, fmt.Errorf("store: list api keys: %w", err)
	}
	defer rows.Close()
	out := []APIKey{}
	for rows.Next() {
		k, err := scanAPIKey(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list api keys: %w", err)
		}
		out = append(out, k)
	}
	return out, rows.Err()
}

func scanAPIKey(row interface{ Scan(...any) error }) (APIKey, error) {
	var k APIKey
	var created int64
	var expires, revoked sql.NullInt64
	if err := row.Scan(&k.ID, &k.ProjectID, &k.Name, &k.Hint, &created, &expires, &revoked); err != nil {
		return APIKey{}, err
	}
	k.CreatedAt = fromMillis(created)
	k.ExpiresAt = fromNullMillis(expires)
	k.RevokedAt = fromNullMillis(revoked)
	return k, nil
}

// RevokeAPIKey stops a key from its next use and returns it. Revoking a key
// twice keeps the first revocation time. An unknown id is ErrNotFound.
func (s *Store) RevokeAPIKey(ctx context.Context, id string) (APIKey, error) {
	var k APIKey
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx,
			`UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL`,
			millis(s.now()), id); err != nil {
			return err
		}
		var err error
		k, err = scanAPIKey(tx.QueryRowContext(ctx,
			`SELECT id, project_id, name, hint, created_at, expires_at, revoked_at FROM api_keys WHERE id = $1`, id))
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		return err
	})
	if err != nil {
		return APIKey{}, fmt.Errorf("store: revoke api key: %w", err)
	}
	// This process refuses the key at once: its project is read again,
	// and the key found revoked (keycache.go).
	s.keys.dropProject(k.ProjectID)
	return k, nil
}

// KeyProject is what an API key decides: the project, the version of its
// tool switches (for the switch cache; see DisabledTools) and of its
// connections (for the resolution cache; see ResolutionCandidates) and of
// its policy rules (for the rule cache of the policy package).
type KeyProject struct {
	ID string
	// KeyID is the id of the key itself, for the execution log.
	KeyID              string
	ToolsVersion       int64
	ConnectionsVersion int64
	PoliciesVersion    int64
}

// ProjectForKey returns the project of the live key whose SHA-256 is hash
// (not revoked and not expired at the store's current time; anything else
// is ErrNotFound) with its tool-switch and connections versions. It runs on
// every /v1 request.
//
// While WatchKeys runs and is in step (PostgreSQL: the change listener is
// subscribed; SQLite: the change count was read), the answer comes from an
// in-process cache that every writer's change clears (at once by
// notification on PostgreSQL, within 100 ms on SQLite; keycache.go,
// notify.go, docs/design-notes.md); an expired key is refused from the
// cache at its expiry. Otherwise it is one indexed read.
func (s *Store) ProjectForKey(ctx context.Context, hash string) (KeyProject, error) {
	live := s.keys.live.Load()
	now := millis(s.now())
	if live {
		kp, found, refused := s.keys.get(hash, now)
		if found {
			s.stats.hit(statAPIKeys)
			return kp, nil
		}
		if refused {
			s.stats.hit(statAPIKeys)
			return KeyProject{}, ErrNotFound
		}
	}
	s.stats.miss(statAPIKeys)
	gen := s.keys.gen.Load()
	var kp KeyProject
	var expires sql.NullInt64
	err := s.readRow(ctx,
		`SELECT k.project_id, k.id, p.tools_version, p.connections_version, p.policies_version, k.expires_at FROM api_keys k JOIN projects p ON p.id = k.project_id
		 WHERE k.key_hash = $1 AND k.revoked_at IS NULL AND (k.expires_at IS NULL OR k.expires_at > $2)`,
		hash, now).Scan(&kp.ID, &kp.KeyID, &kp.ToolsVersion, &kp.ConnectionsVersion, &kp.PoliciesVersion, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		if live {
			s.keys.keys.Remove(hash) // a cached key whose project was dropped, now revoked
		}
		return KeyProject{}, ErrNotFound
	}
	if err != nil {
		return KeyProject{}, fmt.Errorf("store: look up api key: %w", err)
	}
	if live {
		s.keys.put(gen, hash, kp, expires.Int64)
	}
	return kp, nil
}
