package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

// SealedColumn is a column that holds values sealed with the key ring.
// Name is "table.column"; the row's key columns, joined with "/", are the
// row id its values are bound to (see SealedValue.RowID).
type SealedColumn struct {
	Name   string
	table  string
	column string
	keys   []string
}

// sealedColumns lists every sealed column. A new sealed column must be added
// here, or `admin rekey` cannot reseal it and the start check cannot see
// which key sealed it.
var sealedColumns = []SealedColumn{
	{Name: "connections.credential", table: "connections", column: "credential", keys: []string{"id"}},
	{Name: "auth_configs.client_secret", table: "auth_configs", column: "client_secret", keys: []string{"id"}},
	{Name: "webhooks.secret", table: "webhooks", column: "secret", keys: []string{"id"}},
	{Name: "triggers.secret", table: "triggers", column: "secret", keys: []string{"id"}},
	{Name: "oauth_states.verifier", table: "oauth_states", column: "verifier", keys: []string{"id"}},
	{Name: "endpoints.auth_secret", table: "endpoints", column: "auth_secret", keys: []string{"id"}},
	{Name: "project_connectors.headers", table: "project_connectors", column: "headers", keys: []string{"project_id", "connector_id"}},
}

// SealedColumns returns every column that holds sealed values.
func SealedColumns() []SealedColumn { return append([]SealedColumn(nil), sealedColumns...) }

func sealedColumn(name string) (SealedColumn, error) {
	for _, c := range sealedColumns {
		if c.Name == name {
			return c, nil
		}
	}
	return SealedColumn{}, fmt.Errorf("store: %q is not a sealed column", name)
}

// SealedValue is one stored sealed value and the row that holds it.
type SealedValue struct {
	Column string
	// Keys are the values of the row's key columns.
	Keys  []string
	Value []byte
}

// RowID is the row id the value is bound to: the key columns joined by "/"
// (a project connector's is "<project>/<connector>").
func (v SealedValue) RowID() string { return strings.Join(v.Keys, "/") }

// keyList is "a, b" for the key columns.
func (c SealedColumn) keyList() string { return strings.Join(c.keys, ", ") }

// keyMatch is "a = $<from> AND b = $<from+1>".
func (c SealedColumn) keyMatch(from int) string {
	parts := make([]string, len(c.keys))
	for i, k := range c.keys {
		parts[i] = fmt.Sprintf("%s = $%d", k, from+i)
	}
	return strings.Join(parts, " AND ")
}

func (c SealedColumn) selectSQL() string {
	return `SELECT ` + c.keyList() + `, ` + c.column + ` FROM ` + c.table +
		` WHERE ` + c.column + ` IS NOT NULL AND length(` + c.column + `) > 0`
}

func scanSealed(c SealedColumn, rows *sql.Rows) (SealedValue, error) {
	v := SealedValue{Column: c.Name, Keys: make([]string, len(c.keys))}
	dest := make([]any, 0, len(c.keys)+1)
	for i := range v.Keys {
		dest = append(dest, &v.Keys[i])
	}
	dest = append(dest, &v.Value)
	err := rows.Scan(dest...)
	return v, err
}

// SealedPage returns up to limit values of one sealed column in key order,
// starting after the row whose keys are after (nil: from the start). Rows
// without a value are left out. Paging by key lets a long rekey resume and
// keeps every read short.
func (s *Store) SealedPage(ctx context.Context, column string, after []string, limit int) ([]SealedValue, error) {
	c, err := sealedColumn(column)
	if err != nil {
		return nil, err
	}
	q := c.selectSQL()
	args := make([]any, 0, len(c.keys)+1)
	if after != nil {
		if len(after) != len(c.keys) {
			return nil, fmt.Errorf("store: %s rows have %d key columns, got %d", c.Name, len(c.keys), len(after))
		}
		ph := make([]string, len(after))
		for i, k := range after {
			ph[i] = fmt.Sprintf("$%d", i+1)
			args = append(args, k)
		}
		q += ` AND (` + c.keyList() + `) > (` + strings.Join(ph, ", ") + `)`
	}
	args = append(args, limit)
	q += fmt.Sprintf(` ORDER BY %s LIMIT $%d`, c.keyList(), len(args))
	rows, err := s.read.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("store: read %s: %w", c.Name, err)
	}
	defer rows.Close()
	var out []SealedValue
	for rows.Next() {
		v, err := scanSealed(c, rows)
		if err != nil {
			return nil, fmt.Errorf("store: read %s: %w", c.Name, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: read %s: %w", c.Name, err)
	}
	return out, nil
}

// GetSealed reads the current value of one row's sealed column; a row that
// is gone or holds no value is ErrNotFound.
func (s *Store) GetSealed(ctx context.Context, column string, keys []string) (SealedValue, error) {
	c, err := sealedColumn(column)
	if err != nil {
		return SealedValue{}, err
	}
	args := make([]any, len(keys))
	for i, k := range keys {
		args[i] = k
	}
	v := SealedValue{Column: c.Name, Keys: keys}
	err = s.write.QueryRowContext(ctx, `SELECT `+c.column+` FROM `+c.table+` WHERE `+c.keyMatch(1), args...).Scan(&v.Value)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && len(v.Value) == 0) {
		return SealedValue{}, ErrNotFound
	}
	if err != nil {
		return SealedValue{}, fmt.Errorf("store: read %s: %w", c.Name, err)
	}
	return v, nil
}

// ReplaceSealed stores sealed in place of v.Value, only if the row still
// holds v.Value: a concurrent write (a rotation, a token refresh) changed
// the ciphertext, since every seal draws a fresh nonce, and is never
// overwritten. It reports whether it replaced the value. The single
// statement is its own short transaction.
func (s *Store) ReplaceSealed(ctx context.Context, v SealedValue, sealed []byte) (bool, error) {
	c, err := sealedColumn(v.Column)
	if err != nil {
		return false, err
	}
	if len(v.Keys) != len(c.keys) {
		return false, fmt.Errorf("store: %s rows have %d key columns, got %d", c.Name, len(c.keys), len(v.Keys))
	}
	args := make([]any, 0, len(c.keys)+2)
	args = append(args, sealed)
	for _, k := range v.Keys {
		args = append(args, k)
	}
	args = append(args, v.Value)
	q := `UPDATE ` + c.table + ` SET ` + c.column + ` = $1 WHERE ` + c.keyMatch(2) +
		fmt.Sprintf(` AND %s = $%d`, c.column, len(args))
	res, err := s.write.ExecContext(ctx, q, args...)
	if err != nil {
		return false, fmt.Errorf("store: reseal %s: %w", c.Name, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("store: reseal %s: %w", c.Name, err)
	}
	return n == 1, nil
}
