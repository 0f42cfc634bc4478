package store_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
)

func TestSuite_SQLite(t *testing.T) {
	t.Parallel()
	storetest.Run(t, storetest.OpenSQLite)
}

func TestSuite_Postgres(t *testing.T) {
	t.Parallel()
	storetest.PostgresURL(t)
	storetest.Run(t, storetest.OpenPostgres)
}

func TestMigrations_SameVersionsInEveryDialect(t *testing.T) {
	t.Parallel()
	lite, err := store.Migrations(store.SQLite)
	if err != nil {
		t.Fatal(err)
	}
	pg, err := store.Migrations(store.Postgres)
	if err != nil {
		t.Fatal(err)
	}
	if len(lite) == 0 || len(lite) != len(pg) {
		t.Fatalf("sqlite has %d migrations, postgres %d", len(lite), len(pg))
	}
	for i := range lite {
		if lite[i].Version != pg[i].Version || lite[i].Name != pg[i].Name {
			t.Errorf("migration %d: sqlite %04d_%s, postgres %04d_%s",
				i, lite[i].Version, lite[i].Name, pg[i].Version, pg[i].Name)
		}
	}
}

func TestParseURL(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in      string
		dialect store.Dialect
		dsn     string
		bad     bool
	}{
		{in: "sqlite:./data/x.db", dialect: store.SQLite, dsn: "./data/x.db"},
		{in: "sqlite:///abs/x.db", dialect: store.SQLite, dsn: "/abs/x.db"},
		{in: "data/x.db", dialect: store.SQLite, dsn: "data/x.db"},
		{in: "postgres://u@h/db", dialect: store.Postgres, dsn: "postgres://u@h/db"},
		{in: "postgresql://u@h/db", dialect: store.Postgres, dsn: "postgresql://u@h/db"},
		{in: "", bad: true},
		{in: "sqlite:", bad: true},
		{in: "mysql://u@h/db", bad: true},
	}
	for _, c := range cases {
		d, dsn, err := store.ParseURL(c.in)
		if c.bad != (err != nil) || d != c.dialect || dsn != c.dsn {
			t.Errorf("ParseURL(%q) = %q, %q, %v", c.in, d, dsn, err)
		}
	}
}

func TestMigrationStatus_FreshDatabaseAllPending(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := store.Open(ctx, "sqlite:"+filepath.Join(t.TempDir(), "x.db"), store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	status, err := s.MigrationStatus(ctx)
	if err != nil || len(status) == 0 {
		t.Fatalf("status %v, err %v", status, err)
	}
	for _, st := range status {
		if st.AppliedAt != nil {
			t.Errorf("migration %d applied on a fresh database", st.Version)
		}
	}
}

func TestResolution_SQLite(t *testing.T) {
	t.Parallel()
	storetest.RunResolution(t, storetest.OpenSQLitePair)
}

func TestResolution_Postgres(t *testing.T) {
	t.Parallel()
	storetest.PostgresURL(t)
	storetest.RunResolution(t, storetest.OpenPostgresPair)
}
