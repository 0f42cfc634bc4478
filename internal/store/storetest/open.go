// Package storetest holds the store suite that every dialect must pass, and
// helpers that give a test its own migrated, isolated store: a SQLite file in
// the test's temp dir, or a PostgreSQL schema of its own when
// SWITCHBOARD_TEST_POSTGRES_URL is set.
package storetest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// PostgresURLEnv names the variable that points the tests at PostgreSQL.
const PostgresURLEnv = "SWITCHBOARD_TEST_POSTGRES_URL"

// RequirePostgresEnv, when set to 1, turns a missing PostgreSQL URL into a
// failure instead of a skip (CI sets it, so the suite cannot silently skip).
const RequirePostgresEnv = "SWITCHBOARD_TEST_REQUIRE_POSTGRES"

// Opener opens a fresh, migrated, isolated store whose clock is now (nil
// means time.Now). The store is closed when the test ends.
type Opener func(t *testing.T, now func() time.Time) *store.Store

// OpenSQLite is an Opener for a SQLite file in the test's temp dir.
func OpenSQLite(t *testing.T, now func() time.Time) *store.Store {
	t.Helper()
	return openMigrated(t, "sqlite:"+filepath.Join(t.TempDir(), "switchboard.db"), now)
}

// OpenPostgres is an Opener for a schema of the test's own in the database
// SWITCHBOARD_TEST_POSTGRES_URL names; the schema is dropped when the test
// ends. Without that variable the test is skipped, unless
// SWITCHBOARD_TEST_REQUIRE_POSTGRES=1 makes that a failure.
func OpenPostgres(t *testing.T, now func() time.Time) *store.Store {
	t.Helper()
	return openMigrated(t, PostgresSchemaURL(t), now)
}

// PostgresSchemaURL creates a schema of the test's own, dropped when the
// test ends, and returns a database URL whose search_path selects it: for
// tests that start the program itself (several replicas on one database).
// It skips like OpenPostgres.
func PostgresSchemaURL(t *testing.T) string {
	t.Helper()
	base := PostgresURL(t)
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "sbtest_" + hex.EncodeToString(b[:])

	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatalf("storetest: open postgres: %v", err)
	}
	defer admin.Close()
	ctx := context.Background()
	if _, err := admin.ExecContext(ctx, `CREATE SCHEMA `+schema); err != nil {
		t.Fatalf("storetest: create schema: %v", err)
	}
	t.Cleanup(func() {
		db, err := sql.Open("pgx", base)
		if err != nil {
			t.Errorf("storetest: drop schema: %v", err)
			return
		}
		defer db.Close()
		if _, err := db.ExecContext(context.Background(), `DROP SCHEMA `+schema+` CASCADE`); err != nil {
			t.Errorf("storetest: drop schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("storetest: %s is not a URL", PostgresURLEnv)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// PostgresURL returns SWITCHBOARD_TEST_POSTGRES_URL, skipping the test when
// it is unset (or failing it when PostgreSQL is required).
func PostgresURL(t *testing.T) string {
	t.Helper()
	u := os.Getenv(PostgresURLEnv)
	if u == "" {
		if os.Getenv(RequirePostgresEnv) == "1" {
			t.Fatalf("%s=1 but %s is not set", RequirePostgresEnv, PostgresURLEnv)
		}
		t.Skipf("%s is not set", PostgresURLEnv)
	}
	return u
}

func openMigrated(t *testing.T, rawURL string, now func() time.Time) *store.Store {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, rawURL, store.Options{Now: now, MaxConns: 4})
	if err != nil {
		t.Fatalf("storetest: open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatalf("storetest: migrate: %v", err)
	}
	return s
}

// Clock is a settable clock for tests.
type Clock struct{ t time.Time }

// NewClock returns a clock set to a fixed instant.
func NewClock() *Clock { return &Clock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)} }

// Now returns the clock's time.
func (c *Clock) Now() time.Time { return c.t }

// Advance moves the clock forward.
func (c *Clock) Advance(d time.Duration) { c.t = c.t.Add(d) }
