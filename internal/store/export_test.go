package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// Hooks for the external tests of this package.
var (
	ListConnectionsSQL      = listConnectionsSQL
	ConnectorConnectionsSQL = connectorConnectionsSQL
)

// ReadDB returns the pool reads use.
func (s *Store) ReadDB() *sql.DB { return s.read }

// WriteDB returns the pool writes use (on SQLite the read pool is
// query-only).
func (s *Store) WriteDB() *sql.DB { return s.write }

// KeyCacheLive reports whether API key lookups may come from the cache
// (the change listener is subscribed).
func (s *Store) KeyCacheLive() bool { return s.keys.live.Load() }

// KeyListenerPID returns the backend pid of the change listener's
// connection.
func (s *Store) KeyListenerPID() uint32 { return s.listenerPID.Load() }

// SetKeyRetry replaces the wait before the listener subscribes again.
func (s *Store) SetKeyRetry(f func(ctx context.Context, attempt int) bool) { s.keyRetry = f }

// CachedKeys returns how many verified keys the cache holds.
func (s *Store) CachedKeys() int { return s.keys.keys.Len() }

// CachedSessions returns how many sessions the cache holds.
func (s *Store) CachedSessions() int { return s.keys.sessions.Len() }

// CachedEndpoints returns how many endpoints the cache holds.
func (s *Store) CachedEndpoints() int { return s.keys.endpoints.Len() }

// Settle returns once every change committed before it was called has
// reached s's caches: on PostgreSQL a probe sent after them has come back
// on s's listener (notifications arrive in commit order); on SQLite the
// watcher has read the change count twice more. s must be watching.
func (s *Store) Settle(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if s.dialect != Postgres {
		n := s.polls.Load()
		for s.polls.Load() < n+2 {
			select {
			case <-ctx.Done():
				return fmt.Errorf("the change watcher did not read the count twice: %w", ctx.Err())
			case <-time.After(time.Millisecond):
			}
		}
		return nil
	}
	payload, heard := "x:"+NewID(), make(chan struct{})
	s.barriers.Store(payload, heard)
	defer s.barriers.Delete(payload)
	if _, err := s.write.ExecContext(ctx, `SELECT pg_notify($1, $2)`, keyChannel, payload); err != nil {
		return err
	}
	select {
	case <-heard:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("the listener did not hear a probe back: %w", ctx.Err())
	}
}

// KeyCached reports whether the API key with this SHA-256 is cached.
func (s *Store) KeyCached(hash string) bool { _, ok := s.keys.keys.Get(hash); return ok }

// SessionCached reports whether the session is cached.
func (s *Store) SessionCached(id string) bool { _, ok := s.keys.sessions.Get(id); return ok }

// EndpointCached reports whether the endpoint is cached.
func (s *Store) EndpointCached(slug string) bool { _, ok := s.keys.endpoints.Get(slug); return ok }

// TokenCached reports whether the MCP access token with this hash is cached.
func (s *Store) TokenCached(hash string) bool { _, ok := s.keys.tokens.Get(hash); return ok }
