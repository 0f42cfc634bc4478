package main

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// Seeding writes many rows straight into the stack's database, in
// batches of 1000 multi-row INSERTs against the schema serve migrated:
// creating 100,000 accounts or sessions through the API would take longer
// than the measurement. Seeded rows copy a row made through the API (its
// project, auth config or session spec) and belong to filler users who
// never call, so their sealed credentials are never opened.

// openDB opens the stack's database for seeding.
func (s *stack) openDB() (*sql.DB, store.Dialect, error) {
	dialect, dsn, err := store.ParseURL(s.dbURL)
	if err != nil {
		return nil, dialect, err
	}
	driver := "pgx"
	if dialect == store.SQLite {
		driver, dsn = "sqlite", "file:"+dsn+"?_pragma=busy_timeout(10000)"
	}
	db, err := sql.Open(driver, dsn)
	return db, dialect, err
}

// insertBatches runs INSERT head VALUES … for n rows, 1000 to a statement;
// row writes row i's placeholders (numbered from p+1) and returns its args.
func insertBatches(ctx context.Context, db *sql.DB, head string, n int, row func(q *strings.Builder, p, i int) []any) error {
	const batch = 1000
	for done := 0; done < n; {
		k := min(batch, n-done)
		var q strings.Builder
		q.WriteString(head + ` VALUES `)
		var args []any
		for i := range k {
			if i > 0 {
				q.WriteString(", ")
			}
			args = append(args, row(&q, len(args), done+i)...)
		}
		if _, err := db.ExecContext(ctx, q.String(), args...); err != nil {
			return err
		}
		done += k
	}
	return nil
}

// seedConnections inserts n benchapi accounts of filler users fu0….
func (s *stack) seedConnections(ctx context.Context, n int) error {
	if n <= 0 {
		return nil
	}
	db, dialect, err := s.openDB()
	if err != nil {
		return err
	}
	defer db.Close()
	var projectID, configID string
	if err := db.QueryRowContext(ctx, `SELECT project_id, auth_config_id FROM connections WHERE connector_id = 'benchapi' LIMIT 1`).Scan(&projectID, &configID); err != nil {
		return err
	}
	if dialect == store.Postgres {
		// One trigger run per row would bump the project's version n
		// times; seed without, then bump once. Replicas see a gap in the
		// change log and drop the project's cached answers.
		if _, err := db.ExecContext(ctx, `ALTER TABLE connections DISABLE TRIGGER connections_version`); err != nil {
			return err
		}
		defer func() {
			_, _ = db.ExecContext(ctx, `ALTER TABLE connections ENABLE TRIGGER connections_version`)
			_, _ = db.ExecContext(ctx, `UPDATE projects SET connections_version = connections_version + 1 WHERE id = $1`, projectID)
		}()
	}
	now := time.Now().UnixMilli()
	head := `INSERT INTO connections (id, project_id, connector_id, auth_config_id, user_id, global, name, is_default, status, scopes, credential, revision, created_at, updated_at)`
	return insertBatches(ctx, db, head, n, func(q *strings.Builder, p, i int) []any {
		fmt.Fprintf(q, "($%d, $%d, 'benchapi', $%d, $%d, false, 'default', true, 'active', '', $%d, 1, %d, %d)", p+1, p+2, p+3, p+4, p+5, now, now)
		return []any{store.NewID(), projectID, configID, "fu" + strconv.Itoa(i), []byte("sealed-filler")}
	})
}

// seedSessions inserts n sessions of filler users su…, each a copy of the
// bench user's benchapi session.
func (s *stack) seedSessions(ctx context.Context, n int) error {
	if n <= 0 {
		return nil
	}
	db, _, err := s.openDB()
	if err != nil {
		return err
	}
	defer db.Close()
	var projectID, spec string
	var expires, created int64
	if err := db.QueryRowContext(ctx, `SELECT project_id, spec, expires_at, created_at FROM sessions WHERE id = $1`, s.sessionID).
		Scan(&projectID, &spec, &expires, &created); err != nil {
		return err
	}
	if !strings.Contains(spec, `"userId":"bench"`) {
		return fmt.Errorf("the session spec has no userId to replace: %s", spec)
	}
	head := `INSERT INTO sessions (id, project_id, user_id, spec, expires_at, created_at)`
	return insertBatches(ctx, db, head, n, func(q *strings.Builder, p, i int) []any {
		fmt.Fprintf(q, "($%d, $%d, $%d, $%d, %d, %d)", p+1, p+2, p+3, p+4, expires, created)
		u := "su" + strconv.Itoa(i)
		return []any{store.NewID(), projectID, u, strings.Replace(spec, `"userId":"bench"`, `"userId":"`+u+`"`, 1)}
	})
}

// count returns the rows of a table, to report what was seeded.
func (s *stack) count(ctx context.Context, table string) (int, error) {
	db, _, err := s.openDB()
	if err != nil {
		return 0, err
	}
	defer db.Close()
	var n int
	err = db.QueryRowContext(ctx, `SELECT count(*) FROM `+table).Scan(&n)
	return n, err
}

// analyze refreshes PostgreSQL's planner statistics of the seeded tables,
// as autovacuum does on a database that grew in production. SQLite is left
// as serve leaves it (serve never runs ANALYZE there).
func (s *stack) analyze(ctx context.Context) error {
	db, dialect, err := s.openDB()
	if err != nil {
		return err
	}
	defer db.Close()
	if dialect != store.Postgres {
		return nil
	}
	_, err = db.ExecContext(ctx, `ANALYZE connections`)
	if err == nil {
		_, err = db.ExecContext(ctx, `ANALYZE sessions`)
	}
	return err
}
