package store

import (
	"context"
	"database/sql"
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
