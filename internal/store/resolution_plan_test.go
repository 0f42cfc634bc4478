package store_test

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
)

// The resolution lookups must reach a user's accounts and the global ones
// through indexes: with `(user_id = $n OR global)` both dialects read every
// account of the project (or of the connector) on every cache miss.
func TestResolutionLookup_UsesIndexes_SQLite(t *testing.T) {
	t.Parallel()
	s := storetest.OpenSQLite(t, nil)
	for name, q := range map[string]string{"connector": store.ConnectorConnectionsSQL, "list": store.ListConnectionsSQL} {
		args := []any{"p", "github", "u1"}
		if name == "list" {
			args = args[:2]
		}
		plan := explain(t, s, "EXPLAIN QUERY PLAN "+q, args...)
		if strings.Contains(plan, "SCAN connections") || !strings.Contains(plan, "connections_global_idx") {
			t.Errorf("%s lookup plan scans or misses the global index:\n%s", name, plan)
		}
		if !strings.Contains(plan, "user_id=?") {
			t.Errorf("%s lookup plan does not seek the user:\n%s", name, plan)
		}
	}
}

func TestResolutionLookup_UsesIndexes_Postgres(t *testing.T) {
	t.Parallel()
	s := storetest.OpenPostgres(t, nil)
	// An empty table is scanned whatever the indexes; forbid that to see
	// which index the planner would take.
	for name, q := range map[string]string{"connector": store.ConnectorConnectionsSQL, "list": store.ListConnectionsSQL} {
		args := []any{"p", "github", "u1"}
		if name == "list" {
			args = args[:2]
		}
		plan := explainPG(t, s, q, args...)
		if strings.Contains(plan, "Seq Scan") || !strings.Contains(plan, "connections_global_idx") {
			t.Errorf("%s lookup plan scans or misses the global index:\n%s", name, plan)
		}
		if !strings.Contains(plan, "user_id =") {
			t.Errorf("%s lookup plan does not seek the user:\n%s", name, plan)
		}
	}
}

func explain(t *testing.T, s *store.Store, q string, args ...any) string {
	t.Helper()
	rows, err := s.ReadDB().QueryContext(context.Background(), q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var b strings.Builder
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for _, v := range vals {
			if s, ok := v.(string); ok {
				b.WriteString(s + " ")
			}
		}
		b.WriteString("\n")
	}
	return b.String()
}

func explainPG(t *testing.T, s *store.Store, q string, args ...any) string {
	t.Helper()
	ctx := context.Background()
	conn, err := s.ReadDB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET enable_seqscan = off"); err != nil {
		t.Fatal(err)
	}
	defer conn.ExecContext(ctx, "RESET enable_seqscan") //nolint:errcheck // the connection goes back to a test pool
	rows, err := conn.QueryContext(ctx, "EXPLAIN "+q, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var b strings.Builder
	for rows.Next() {
		var line string
		if err := rows.Scan(&line); err != nil {
			t.Fatal(err)
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}
