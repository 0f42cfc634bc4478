package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// errNoDatabase is returned by an admin command whose SQLite database file
// does not exist: run from another directory, the relative default path
// would otherwise make a new, empty database and answer from it.
var errNoDatabase = errors.New("no database")

// databaseLabel names the configured database for the operator: the
// absolute path of a SQLite file, or a PostgreSQL URL without its user
// information and query (which may carry a password).
func databaseLabel(rawURL string) string {
	dialect, dsn, err := store.ParseURL(rawURL)
	if err != nil {
		return "(invalid database URL)"
	}
	if dialect == store.SQLite {
		if abs, err := filepath.Abs(dsn); err == nil {
			dsn = abs
		}
		return "sqlite:" + dsn
	}
	u, err := url.Parse(dsn)
	if err != nil {
		return "postgres (unparsable URL)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

// checkDatabaseExists refuses a SQLite database that does not exist yet,
// unless create is set: serve and migrate make it, admin commands only when
// asked. PostgreSQL databases are made by their operator and pass.
func checkDatabaseExists(rawURL string, create bool) error {
	dialect, dsn, err := store.ParseURL(rawURL)
	if err != nil || dialect != store.SQLite || create {
		return nil
	}
	if _, err := os.Stat(dsn); errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w at %s: admin commands do not create one. Run the command where serve runs (its database is ./data/switchboard.db by default), point --database-url or SWITCHBOARD_DATABASE_URL at the existing database, or add --create to make a new empty one (serve and migrate create it too)",
			errNoDatabase, databaseLabel(rawURL))
	}
	return nil
}
