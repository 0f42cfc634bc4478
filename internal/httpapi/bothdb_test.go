package httpapi

import (
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store/storetest"
)

// bothStores are the stores a test that must hold on both dialects runs on.
var bothStores = []struct {
	name string
	open database
}{{"sqlite", sqliteDB}, {"postgres", postgresDB}}

// onBothDatabases runs scenario on a fresh fixture over SQLite and over
// PostgreSQL, as parallel subtests.
func onBothDatabases(t *testing.T, scenario func(t *testing.T, f *fixture)) {
	t.Helper()
	for _, db := range bothStores {
		t.Run(db.name, func(t *testing.T) {
			t.Parallel()
			if db.name == "postgres" {
				storetest.PostgresURL(t)
			}
			scenario(t, setupOn(t, db.open))
		})
	}
}
