package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// DashboardSession is a signed-in dashboard session, found by the SHA-256
// of its cookie token (the token itself is never stored).
type DashboardSession struct {
	OperatorID string
	Email      string
	CreatedAt  time.Time
	ExpiresAt  time.Time
}

// CreateDashboardSession stores a session for an operator until expires,
// removing expired sessions on the way. oldHash, when not empty, is the
// session the browser had before and is removed in the same transaction
// (the session is rotated on sign-in).
func (s *Store) CreateDashboardSession(ctx context.Context, tokenHash, oldHash, operatorID string, expires time.Time) error {
	now := millis(s.now())
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM dashboard_sessions WHERE expires_at <= $1 OR token_hash = $2`, now, oldHash); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx,
			`INSERT INTO dashboard_sessions (token_hash, operator_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
			tokenHash, operatorID, now, millis(expires))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: create dashboard session: %w", err)
	}
	return nil
}

// DashboardSessionFor returns the live session whose token hashes to
// tokenHash; an unknown or expired one is ErrNotFound.
func (s *Store) DashboardSessionFor(ctx context.Context, tokenHash string) (DashboardSession, error) {
	var d DashboardSession
	var created, expires int64
	err := s.read.QueryRowContext(ctx,
		`SELECT d.operator_id, o.email, d.created_at, d.expires_at FROM dashboard_sessions d
		 JOIN operators o ON o.id = d.operator_id WHERE d.token_hash = $1 AND d.expires_at > $2`,
		tokenHash, millis(s.now())).Scan(&d.OperatorID, &d.Email, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
		return DashboardSession{}, ErrNotFound
	}
	if err != nil {
		return DashboardSession{}, fmt.Errorf("store: dashboard session: %w", err)
	}
	d.CreatedAt, d.ExpiresAt = fromMillis(created), fromMillis(expires)
	return d, nil
}

// DeleteDashboardSession ends a session (signing out); an unknown one is
// not an error.
func (s *Store) DeleteDashboardSession(ctx context.Context, tokenHash string) error {
	if _, err := s.write.ExecContext(ctx, `DELETE FROM dashboard_sessions WHERE token_hash = $1`, tokenHash); err != nil {
		return fmt.Errorf("store: delete dashboard session: %w", err)
	}
	return nil
}

// CreateSigninLink stores a one-time sign-in link of an operator by the
// SHA-256 of its token, valid until expires, removing expired links.
func (s *Store) CreateSigninLink(ctx context.Context, tokenHash, operatorID string, expires time.Time) error {
	now := millis(s.now())
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM operator_signin_links WHERE expires_at <= $1`, now); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx,
			`INSERT INTO operator_signin_links (token_hash, operator_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`,
			tokenHash, operatorID, now, millis(expires))
		return err
	})
	if err != nil {
		return fmt.Errorf("store: create sign-in link: %w", err)
	}
	return nil
}

// SigninLinkOperator returns the operator of a live sign-in link without
// using it; an unknown, used or expired link is ErrNotFound.
func (s *Store) SigninLinkOperator(ctx context.Context, tokenHash string) (Operator, error) {
	o, err := scanOperator(s.read.QueryRowContext(ctx,
		`SELECT o.id, o.email, o.password_hash, o.created_at FROM operator_signin_links l
		 JOIN operators o ON o.id = l.operator_id WHERE l.token_hash = $1 AND l.expires_at > $2`,
		tokenHash, millis(s.now())))
	if errors.Is(err, sql.ErrNoRows) {
		return Operator{}, ErrNotFound
	}
	if err != nil {
		return Operator{}, fmt.Errorf("store: sign-in link: %w", err)
	}
	return o, nil
}

// UseSigninLink consumes a live sign-in link and returns its operator id:
// of two concurrent uses, one wins and the other is ErrNotFound.
func (s *Store) UseSigninLink(ctx context.Context, tokenHash string) (string, error) {
	var operatorID string
	err := s.tx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx,
			`SELECT operator_id FROM operator_signin_links WHERE token_hash = $1 AND expires_at > $2`,
			tokenHash, millis(s.now())).Scan(&operatorID)
		if errors.Is(err, sql.ErrNoRows) {
			return ErrNotFound
		}
		if err != nil {
			return err
		}
		res, err := tx.ExecContext(ctx, `DELETE FROM operator_signin_links WHERE token_hash = $1`, tokenHash)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		return nil
	})
	if err != nil && !errors.Is(err, ErrNotFound) {
		return "", fmt.Errorf("store: use sign-in link: %w", err)
	}
	return operatorID, err
}

// RecordSigninFailure counts one failed sign-in against each subject, and
// forgets failures older than before.
func (s *Store) RecordSigninFailure(ctx context.Context, before time.Time, subjects ...string) error {
	now := millis(s.now())
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, `DELETE FROM signin_failures WHERE at < $1`, millis(before)); err != nil {
			return err
		}
		for _, sub := range subjects {
			if _, err := tx.ExecContext(ctx, `INSERT INTO signin_failures (subject, at) VALUES ($1, $2)`, sub, now); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: record sign-in failure: %w", err)
	}
	return nil
}

// SigninFailures returns how many failures subject has had since since.
func (s *Store) SigninFailures(ctx context.Context, subject string, since time.Time) (int, error) {
	var n int
	err := s.read.QueryRowContext(ctx,
		`SELECT count(*) FROM signin_failures WHERE subject = $1 AND at >= $2`, subject, millis(since)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: sign-in failures: %w", err)
	}
	return n, nil
}

// ClearSigninFailures forgets a subject's failures (after a sign-in).
func (s *Store) ClearSigninFailures(ctx context.Context, subject string) error {
	if _, err := s.write.ExecContext(ctx, `DELETE FROM signin_failures WHERE subject = $1`, subject); err != nil {
		return fmt.Errorf("store: clear sign-in failures: %w", err)
	}
	return nil
}
