package store

import "database/sql"

// Hooks for the external tests of this package.
var (
	ListConnectionsSQL      = listConnectionsSQL
	ConnectorConnectionsSQL = connectorConnectionsSQL
)

// ReadDB returns the pool reads use.
func (s *Store) ReadDB() *sql.DB { return s.read }
