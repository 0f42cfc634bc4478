package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations
var migrationFS embed.FS

// migrationLockKey is the PostgreSQL advisory lock that serialises replicas
// migrating at the same time.
const migrationLockKey = 7_301_955_001

// Migration is one numbered schema change.
type Migration struct {
	Version int
	Name    string
	sql     string
}

// MigrationState is a migration with whether and when it was applied.
type MigrationState struct {
	Version   int        `json:"version"`
	Name      string     `json:"name"`
	AppliedAt *time.Time `json:"appliedAt"`
}

// Migrations returns the embedded migrations of dialect in version order.
// File names are NNNN_name.sql.
func Migrations(dialect Dialect) ([]Migration, error) {
	dir := path.Join("migrations", string(dialect))
	entries, err := fs.ReadDir(migrationFS, dir)
	if err != nil {
		return nil, fmt.Errorf("store: migrations for %s: %w", dialect, err)
	}
	var ms []Migration
	for _, e := range entries {
		name := e.Name()
		num, rest, ok := strings.Cut(strings.TrimSuffix(name, ".sql"), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || !strings.HasSuffix(name, ".sql") {
			return nil, fmt.Errorf("store: migration file %s is not NNNN_name.sql", name)
		}
		body, err := fs.ReadFile(migrationFS, path.Join(dir, name))
		if err != nil {
			return nil, err
		}
		ms = append(ms, Migration{Version: v, Name: rest, sql: string(body)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	for i := 1; i < len(ms); i++ {
		if ms[i].Version == ms[i-1].Version {
			return nil, fmt.Errorf("store: migration version %d appears twice", ms[i].Version)
		}
	}
	return ms, nil
}

const createMigrationsTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    name       TEXT NOT NULL,
    applied_at BIGINT NOT NULL
)`

// Migrate applies every pending migration in one transaction and returns
// those it applied. Replicas starting together are safe: on PostgreSQL an
// advisory lock serialises them, on SQLite the immediate transaction does.
func (s *Store) Migrate(ctx context.Context) ([]Migration, error) {
	all, err := Migrations(s.dialect)
	if err != nil {
		return nil, err
	}
	var applied []Migration
	err = s.tx(ctx, func(tx *sql.Tx) error {
		if s.dialect == Postgres {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(migrationLockKey)); err != nil {
				return fmt.Errorf("lock: %w", err)
			}
		}
		if _, err := tx.ExecContext(ctx, createMigrationsTable); err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		done, err := appliedVersions(ctx, tx)
		if err != nil {
			return err
		}
		now := millis(s.now())
		for _, m := range all {
			if _, ok := done[m.Version]; ok {
				continue
			}
			if _, err := tx.ExecContext(ctx, m.sql); err != nil {
				return fmt.Errorf("migration %04d_%s: %w", m.Version, m.Name, err)
			}
			if _, err := tx.ExecContext(ctx,
				`INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)`,
				m.Version, m.Name, now); err != nil {
				return fmt.Errorf("record migration %d: %w", m.Version, err)
			}
			applied = append(applied, m)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("store: migrate: %w", err)
	}
	return applied, nil
}

type rowQuerier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func appliedVersions(ctx context.Context, q rowQuerier) (map[int]int64, error) {
	rows, err := q.QueryContext(ctx, `SELECT version, applied_at FROM schema_migrations`)
	if err != nil {
		return nil, fmt.Errorf("read schema_migrations: %w", err)
	}
	defer rows.Close()
	done := map[int]int64{}
	for rows.Next() {
		var v int
		var at int64
		if err := rows.Scan(&v, &at); err != nil {
			return nil, err
		}
		done[v] = at
	}
	return done, rows.Err()
}

// MigrationStatus lists every embedded migration with when it was applied
// (nil for a pending one). It creates nothing.
func (s *Store) MigrationStatus(ctx context.Context) ([]MigrationState, error) {
	all, err := Migrations(s.dialect)
	if err != nil {
		return nil, err
	}
	done := map[int]int64{}
	exists, err := s.tableExists(ctx, "schema_migrations")
	if err != nil {
		return nil, err
	}
	if exists {
		if done, err = appliedVersions(ctx, s.read); err != nil {
			return nil, fmt.Errorf("store: migration status: %w", err)
		}
	}
	out := make([]MigrationState, 0, len(all))
	for _, m := range all {
		st := MigrationState{Version: m.Version, Name: m.Name}
		if at, ok := done[m.Version]; ok {
			t := fromMillis(at)
			st.AppliedAt = &t
		}
		out = append(out, st)
	}
	return out, nil
}

func (s *Store) tableExists(ctx context.Context, table string) (bool, error) {
	q := `SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = $1`
	if s.dialect == Postgres {
		q = `SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1`
	}
	var n int
	if err := s.read.QueryRowContext(ctx, q, table).Scan(&n); err != nil {
		return false, fmt.Errorf("store: look up table %s: %w", table, err)
	}
	return n > 0, nil
}
