package store

import (
	"context"
	"database/sql"
	"sync"
)

// stmtCache keeps prepared read statements of the hot paths. Preparing is
// most of the cost of a small SQLite query, and database/sql re-prepares a
// *sql.Stmt on each pooled connection on its own, so one cached statement
// per query text serves every connection.
type stmtCache struct {
	mu    sync.Mutex
	stmts map[string]*sql.Stmt
}

func (c *stmtCache) get(ctx context.Context, db *sql.DB, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.stmts[query]; ok {
		return st, nil
	}
	st, err := db.PrepareContext(ctx, query)
	if err != nil {
		return nil, err
	}
	if c.stmts == nil {
		c.stmts = map[string]*sql.Stmt{}
	}
	c.stmts[query] = st
	return st, nil
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.stmts {
		st.Close()
	}
	c.stmts = nil
}

// rowError is a *sql.Row stand-in whose Scan reports a preparation error.
type rowError struct{ err error }

func (r rowError) Scan(...any) error { return r.err }

// readRow runs a hot single-row read through a cached statement.
func (s *Store) readRow(ctx context.Context, query string, args ...any) interface{ Scan(...any) error } {
	st, err := s.stmts.get(ctx, s.read, query)
	if err != nil {
		return rowError{err}
	}
	return st.QueryRowContext(ctx, args...)
}

// readRows runs a hot multi-row read through a cached statement.
func (s *Store) readRows(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	st, err := s.stmts.get(ctx, s.read, query)
	if err != nil {
		return nil, err
	}
	return st.QueryContext(ctx, args...)
}
