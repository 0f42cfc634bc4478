// Package store is Switchboard's storage: one contract over two SQL dialects,
// the embedded SQLite file of a single host and the PostgreSQL database of
// many replicas. Queries are plain SQL with $1 placeholders, one file per
// table family; real differences between the dialects stay inside the SQL.
//
// Timestamps are stored as integer Unix milliseconds in both dialects, so
// comparisons and ordering are exact and identical everywhere.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib" // also registers the "pgx" driver
	_ "modernc.org/sqlite"           // registers the "sqlite" driver
)

// Dialect names a supported database.
type Dialect string

// The supported dialects.
const (
	SQLite   Dialect = "sqlite"
	Postgres Dialect = "postgres"
)

// Options tune Open.
type Options struct {
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// MaxConns bounds the PostgreSQL pool and the SQLite read pool; 0 picks a default.
	MaxConns int
}

// Store is the database handle shared by every request.
type Store struct {
	dialect Dialect
	// write takes every statement that writes. On SQLite it is a single
	// connection whose transactions begin IMMEDIATE, so writers queue in Go
	// rather than failing with SQLITE_BUSY; on PostgreSQL it is the pool.
	write *sql.DB
	// read serves reads: a pool of query-only connections on SQLite, the same
	// pool as write on PostgreSQL.
	read *sql.DB
	// tally takes the statements that only count (a trigger's hits in the
	// minute, its firings). On PostgreSQL it is a small pool whose commits
	// do not wait for the WAL flush (synchronous_commit off): a hot
	// trigger's counter row stays locked for the statement, not for a disk
	// flush, and a crash can lose the last fraction of a second of counts,
	// never an event. On SQLite it is write.
	tally *sql.DB
	now   func() time.Time
	stmts stmtCache
	// tools caches each project's disabled tools, conns resolution reads.
	tools versioned[string, map[string]bool]
	conns resolutionCache
	// keys caches API key lookups while WatchKeys listens for changes.
	keys *keyCache
	// stats counts the caches' hits and misses (stats.go).
	stats cacheStats
	// dsn is the PostgreSQL connection string, for the change listener's
	// own connection; it may hold a password and is never logged.
	dsn string
	// listenerPID is the backend process id of the change listener's
	// current connection (for tests that cut it).
	listenerPID atomic.Uint32
	// keyRetry waits before the listener subscribes again (retryKeys;
	// tests replace it).
	keyRetry func(ctx context.Context, attempt int) bool
	// barriers are probe payloads someone waits to hear back on the
	// listener (payload → chan struct{}, closed when heard), and polls
	// counts SQLite's change-count reads: with either, a test knows every
	// change made before it has reached the caches (export_test.go).
	barriers sync.Map
	polls    atomic.Uint64
}

// ParseURL splits a SWITCHBOARD_DATABASE_URL into its dialect and the DSN
// the driver takes: `sqlite:PATH` or a plain path is SQLite, `postgres://`
// or `postgresql://` is PostgreSQL.
func ParseURL(raw string) (Dialect, string, error) {
	switch {
	case raw == "":
		return "", "", errors.New("database URL is empty")
	case strings.HasPrefix(raw, "postgres://"), strings.HasPrefix(raw, "postgresql://"):
		if _, err := url.Parse(raw); err != nil {
			return "", "", fmt.Errorf("database URL is not a valid postgres:// URL: %w", redactURLError(err))
		}
		return Postgres, raw, nil
	case strings.HasPrefix(raw, "sqlite:"):
		path := strings.TrimPrefix(strings.TrimPrefix(raw, "sqlite:"), "//")
		if path == "" {
			return "", "", errors.New("database URL sqlite: names no file")
		}
		return SQLite, path, nil
	case strings.Contains(raw, "://"):
		return "", "", errors.New("database URL must start with sqlite: or postgres://")
	default:
		return SQLite, raw, nil
	}
}

// redactURLError drops the URL (which may hold a password) from a parse error.
func redactURLError(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// Open connects to the database that rawURL names. It does not migrate.
func Open(ctx context.Context, rawURL string, opts Options) (*Store, error) {
	dialect, dsn, err := ParseURL(rawURL)
	if err != nil {
		return nil, fmt.Errorf("store: %w", err)
	}
	s := &Store{dialect: dialect, now: opts.Now}
	s.tools = newVersioned[string, map[string]bool](maxCachedToolSwitches)
	s.conns = newResolutionCache()
	s.keys = newKeyCache()
	s.keyRetry = retryKeys
	if s.now == nil {
		s.now = time.Now
	}
	switch dialect {
	case SQLite:
		err = s.openSQLite(dsn, opts.MaxConns)
	case Postgres:
		err = s.openPostgres(dsn, opts.MaxConns)
	}
	if err != nil {
		return nil, err
	}
	if err := s.Ping(ctx); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

func (s *Store) openSQLite(path string, maxConns int) error {
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("store: create database directory: %w", err)
		}
	}
	// busy_timeout comes first so that every later pragma already waits for locks.
	base := "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=foreign_keys(1)&_pragma=synchronous(NORMAL)"
	w, err := sql.Open("sqlite", base+"&_pragma=journal_mode(WAL)&_txlock=immediate")
	if err != nil {
		return fmt.Errorf("store: open sqlite: %w", err)
	}
	w.SetMaxOpenConns(1)
	w.SetConnMaxIdleTime(0)
	// The writer connects first so the file is in WAL mode before readers open it.
	if err := w.Ping(); err != nil {
		w.Close()
		return fmt.Errorf("store: open sqlite %s: %w", path, err)
	}
	r, err := sql.Open("sqlite", base+"&_pragma=query_only(1)")
	if err != nil {
		w.Close()
		return fmt.Errorf("store: open sqlite: %w", err)
	}
	if maxConns <= 0 {
		maxConns = max(4, runtime.NumCPU())
	}
	r.SetMaxOpenConns(maxConns)
	r.SetMaxIdleConns(maxConns)
	s.write, s.read, s.tally = w, r, w
	return nil
}

func (s *Store) openPostgres(dsn string, maxConns int) error {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return fmt.Errorf("store: open postgres: %w", redactURLError(err))
	}
	if maxConns <= 0 {
		maxConns = 20
	}
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	db.SetConnMaxIdleTime(5 * time.Minute)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		db.Close()
		return fmt.Errorf("store: open postgres: %w", redactURLError(err))
	}
	cfg.RuntimeParams["synchronous_commit"] = "off"
	tally := stdlib.OpenDB(*cfg)
	tally.SetMaxOpenConns(tallyConns)
	tally.SetMaxIdleConns(tallyConns)
	tally.SetConnMaxIdleTime(5 * time.Minute)
	s.write, s.read, s.tally = db, db, tally
	s.dsn = dsn
	return nil
}

// tallyConns bounds the PostgreSQL counting pool: its statements are one
// short upsert each.
const tallyConns = 4

// Dialect reports which database the store runs on.
func (s *Store) Dialect() Dialect { return s.dialect }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.read.PingContext(ctx); err != nil {
		return fmt.Errorf("store: ping: %w", err)
	}
	return nil
}

// Close closes every connection.
func (s *Store) Close() error {
	s.stmts.close()
	err := s.write.Close()
	if s.read != s.write {
		err = errors.Join(err, s.read.Close())
	}
	if s.tally != s.write {
		err = errors.Join(err, s.tally.Close())
	}
	return err
}

// tx runs fn in one write transaction, committing when fn returns nil.
func (s *Store) tx(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// millis converts a time to the stored form.
func millis(t time.Time) int64 { return t.UnixMilli() }

// fromMillis converts a stored time back, in UTC.
func fromMillis(ms int64) time.Time { return time.UnixMilli(ms).UTC() }

// nullMillis converts an optional time to the stored form.
func nullMillis(t *time.Time) sql.NullInt64 {
	if t == nil {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixMilli(), Valid: true}
}

// fromNullMillis converts an optional stored time back.
func fromNullMillis(n sql.NullInt64) *time.Time {
	if !n.Valid {
		return nil
	}
	t := fromMillis(n.Int64)
	return &t
}
