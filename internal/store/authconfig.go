package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// AuthConfig says how a project connects accounts of one connector through
// one of its auth methods. ClientSecret is sealed; the store never sees it
// in the clear.
type AuthConfig struct {
	ID           string
	ProjectID    string
	ConnectorID  string
	Key          string
	AuthMethodID string
	AuthType     string
	ClientID     string
	ClientSecret []byte
	Scopes       []string
	Implicit     bool
	CreatedAt    time.Time
	// Hosts are the host patterns the OAuth client may be used with, set by
	// the operator; empty means the connector definition's allowedHosts.
	Hosts []string
}

const authConfigColumns = `id, project_id, connector_id, config_key, auth_method_id, auth_type, client_id, client_secret, scopes, implicit, created_at, hosts`

func scanAuthConfig(row interface{ Scan(...any) error }) (AuthConfig, error) {
	var a AuthConfig
	var scopes, hosts string
	var created int64
	err := row.Scan(&a.ID, &a.ProjectID, &a.ConnectorID, &a.Key, &a.AuthMethodID, &a.AuthType,
		&a.ClientID, &a.ClientSecret, &scopes, &a.Implicit, &created, &hosts)
	if errors.Is(err, sql.ErrNoRows) {
		return AuthConfig{}, ErrNotFound
	}
	if err != nil {
		return AuthConfig{}, err
	}
	a.Scopes = splitScopes(scopes)
	a.Hosts = splitScopes(hosts)
	a.CreatedAt = fromMillis(created)
	return a, nil
}

func splitScopes(s string) []string {
	if s == "" {
		return []string{}
	}
	return strings.Split(s, " ")
}

// CreateAuthConfig stores an auth config; a taken key is ErrConflict. When
// a.ID is empty a new id is made. The created config is returned.
func (s *Store) CreateAuthConfig(ctx context.Context, a AuthConfig) (AuthConfig, error) {
	if a.ID == "" {
		a.ID = NewID()
	}
	a.CreatedAt = fromMillis(millis(s.now()))
	_, err := s.write.ExecContext(ctx,
		`INSERT INTO auth_configs (`+authConfigColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
		a.ID, a.ProjectID, a.ConnectorID, a.Key, a.AuthMethodID, a.AuthType, a.ClientID, a.ClientSecret,
		strings.Join(a.Scopes, " "), a.Implicit, millis(a.CreatedAt), strings.Join(a.Hosts, " "))
	if isUniqueViolation(err) {
		return AuthConfig{}, ErrConflict
	}
	if err != nil {
		return AuthConfig{}, fmt.Errorf("store: create auth config: %w", err)
	}
	return a, nil
}

// EnsureImplicitAuthConfig returns the implicit auth config keyed key,
// creating it first when it does not exist yet.
func (s *Store) EnsureImplicitAuthConfig(ctx context.Context, projectID, connectorID, key, methodID, authType string) (AuthConfig, error) {
	a, err := s.AuthConfigByKey(ctx, projectID, key)
	if err == nil || !errors.Is(err, ErrNotFound) {
		return a, err
	}
	a, err = s.CreateAuthConfig(ctx, AuthConfig{
		ProjectID: projectID, ConnectorID: connectorID, Key: key, AuthMethodID: methodID, AuthType: authType, Implicit: true,
	})
	if errors.Is(err, ErrConflict) {
		// Another request created it first.
		return s.AuthConfigByKey(ctx, projectID, key)
	}
	return a, err
}

// AuthConfigByKey returns a project's auth config by key, or ErrNotFound.
func (s *Store) AuthConfigByKey(ctx context.Context, projectID, key string) (AuthConfig, error) {
	return scanAuthConfig(s.write.QueryRowContext(ctx,
		`SELECT `+authConfigColumns+` FROM auth_configs WHERE project_id = $1 AND config_key = $2`, projectID, key))
}

// GetAuthConfig returns a project's auth config by id, or ErrNotFound.
func (s *Store) GetAuthConfig(ctx context.Context, projectID, id string) (AuthConfig, error) {
	return scanAuthConfig(s.read.QueryRowContext(ctx,
		`SELECT `+authConfigColumns+` FROM auth_configs WHERE project_id = $1 AND id = $2`, projectID, id))
}

// ListAuthConfigs returns a project's auth configs, oldest first; a
// non-empty connectorID keeps only that connector's.
func (s *Store) ListAuthConfigs(ctx context.Context, projectID, connectorID string) ([]AuthConfig, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT `+authConfigColumns+` FROM auth_configs
		 WHERE project_id = $1 AND ($2 = '' OR connector_id = $2) ORDER BY created_at, id`, projectID, connectorID)
	if err != nil {
		return nil, fmt.Errorf("store: list auth configs: %w", err)
	}
	defer rows.Close()
	out := []AuthConfig{}
	for rows.Next() {
		a, err := scanAuthConfig(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list auth configs: %w", err)
		}
		out = append(out, a)
	}
	return out, rows.Err()
}

// DeleteAuthConfig removes an auth config no connection uses; one in use
// is ErrConflict, an unknown one ErrNotFound.
func (s *Store) DeleteAuthConfig(ctx context.Context, projectID, id string) error {
	return s.tx(ctx, func(tx *sql.Tx) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM connections WHERE auth_config_id = $1`, id).Scan(&n); err != nil {
			return err
		}
		if n > 0 {
			return ErrConflict
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM auth_configs WHERE project_id = $1 AND id = $2`, projectID, id)
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k == 0 {
			return ErrNotFound
		}
		return nil
	})
}
