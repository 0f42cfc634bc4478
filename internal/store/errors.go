package store

import (
	"errors"

	"github.com/jackc/pgx/v5/pgconn"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrNotFound is returned when the row asked for does not exist (in the
// caller's project).
var ErrNotFound = errors.New("store: not found")

// ErrConflict is returned when a write would break a uniqueness rule.
var ErrConflict = errors.New("store: conflict")

// isUniqueViolation reports whether err is a unique or primary key violation
// in either dialect.
func isUniqueViolation(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Code == "23505"
	}
	var se *sqlite.Error
	if errors.As(err, &se) {
		c := se.Code()
		return c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
	}
	return false
}
