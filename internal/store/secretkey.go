package store

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// secretKeysLockKey is the PostgreSQL advisory lock that serialises replicas
// checking and recording their sealing keys, so that of several replicas
// starting on an empty database with keys of their own, one key wins.
const secretKeysLockKey = 7_301_955_003

// SecretKey records the id of a key that sealed stored values. Check is a
// value sealed with that key (nil when the key was not at hand), which tells
// whether a ring's key of the same id is the same key.
type SecretKey struct {
	ID        string
	Check     []byte
	CreatedAt time.Time
}

// SecretKeys is the view of the recorded key ids inside one locked
// transaction (see WithSecretKeys).
type SecretKeys struct {
	s  *Store
	tx *sql.Tx
}

// WithSecretKeys runs fn in one transaction that no other process runs at
// the same time: under an advisory lock on PostgreSQL, as the one writer on
// SQLite. fn's writes commit when it returns nil.
func (s *Store) WithSecretKeys(ctx context.Context, fn func(*SecretKeys) error) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if s.dialect == Postgres {
			if _, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, int64(secretKeysLockKey)); err != nil {
				return fmt.Errorf("lock: %w", err)
			}
		}
		return fn(&SecretKeys{s: s, tx: tx})
	})
	if err != nil {
		return fmt.Errorf("store: secret keys: %w", err)
	}
	return nil
}

// List returns the recorded key ids in the order they were recorded.
func (k *SecretKeys) List(ctx context.Context) ([]SecretKey, error) {
	rows, err := k.tx.QueryContext(ctx, `SELECT key_id, check_value, created_at FROM secret_keys ORDER BY created_at, key_id`)
	if err != nil {
		return nil, fmt.Errorf("list: %w", err)
	}
	defer rows.Close()
	var out []SecretKey
	for rows.Next() {
		var r SecretKey
		var created int64
		if err := rows.Scan(&r.ID, &r.Check, &created); err != nil {
			return nil, fmt.Errorf("list: %w", err)
		}
		r.CreatedAt = fromMillis(created)
		out = append(out, r)
	}
	return out, rows.Err()
}

// Put records a key id, or replaces its check value.
func (k *SecretKeys) Put(ctx context.Context, id string, check []byte) error {
	_, err := k.tx.ExecContext(ctx, `INSERT INTO secret_keys (key_id, check_value, created_at) VALUES ($1, $2, $3)
        ON CONFLICT (key_id) DO UPDATE SET check_value = excluded.check_value`, id, check, millis(k.s.now()))
	if err != nil {
		return fmt.Errorf("record key %q: %w", id, err)
	}
	return nil
}

// Delete forgets a key id.
func (k *SecretKeys) Delete(ctx context.Context, id string) error {
	if _, err := k.tx.ExecContext(ctx, `DELETE FROM secret_keys WHERE key_id = $1`, id); err != nil {
		return fmt.Errorf("forget key %q: %w", id, err)
	}
	return nil
}

// EachSealed calls fn with every stored sealed value, column by column. It
// reads the whole of every sealed column, so it is for taking stock once
// (the first start after an upgrade), not for a regular start. fn must not
// use the store: the transaction is busy reading.
func (k *SecretKeys) EachSealed(ctx context.Context, fn func(SealedValue) error) error {
	for _, c := range sealedColumns {
		if err := k.eachIn(ctx, c, fn); err != nil {
			return err
		}
	}
	return nil
}

func (k *SecretKeys) eachIn(ctx context.Context, c SealedColumn, fn func(SealedValue) error) error {
	rows, err := k.tx.QueryContext(ctx, c.selectSQL())
	if err != nil {
		return fmt.Errorf("read %s: %w", c.Name, err)
	}
	defer rows.Close()
	for rows.Next() {
		v, err := scanSealed(c, rows)
		if err != nil {
			return fmt.Errorf("read %s: %w", c.Name, err)
		}
		if err := fn(v); err != nil {
			return err
		}
	}
	return rows.Err()
}
