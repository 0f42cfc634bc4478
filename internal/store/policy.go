package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// PolicyRule is one stored policy rule. Spec is its JSON, read and
// validated by the policy package; Endpoint is "" for a project rule.
type PolicyRule struct {
	ID        string
	ProjectID string
	Endpoint  string
	Priority  int
	Spec      []byte
	CreatedAt time.Time
}

// PolicyRules is a project's rules and default decision as of one
// policies version.
type PolicyRules struct {
	Version int64
	Default string
	Rules   []PolicyRule
}

const policyColumns = `id, project_id, endpoint, priority, spec, created_at`

func scanPolicy(row interface{ Scan(...any) error }) (PolicyRule, error) {
	var p PolicyRule
	var spec string
	var created int64
	err := row.Scan(&p.ID, &p.ProjectID, &p.Endpoint, &p.Priority, &spec, &created)
	if errors.Is(err, sql.ErrNoRows) {
		return PolicyRule{}, ErrNotFound
	}
	if err != nil {
		return PolicyRule{}, err
	}
	p.Spec, p.CreatedAt = []byte(spec), fromMillis(created)
	return p, nil
}

// bumpPolicies moves a project's policies version inside tx; a project that
// does not exist is ErrNotFound.
func bumpPolicies(ctx context.Context, tx *sql.Tx, projectID string) error {
	res, err := tx.ExecContext(ctx, `UPDATE projects SET policies_version = policies_version + 1 WHERE id = $1`, projectID)
	return affectedOne(res, err, "bump policies version")
}

// CreatePolicy stores a rule (p.ID is set here) and moves the project's
// policies version in the same transaction.
func (s *Store) CreatePolicy(ctx context.Context, p PolicyRule) (PolicyRule, error) {
	defer s.keys.dropProject(p.ProjectID) // this process sees its own write at once
	p.ID = NewID()
	p.CreatedAt = fromMillis(millis(s.now()))
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := bumpPolicies(ctx, tx, p.ProjectID); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO policies (`+policyColumns+`) VALUES ($1, $2, $3, $4, $5, $6)`,
			p.ID, p.ProjectID, p.Endpoint, p.Priority, string(p.Spec), millis(p.CreatedAt))
		return err
	})
	if err != nil {
		return PolicyRule{}, fmt.Errorf("store: create policy: %w", err)
	}
	return p, nil
}

// UpdatePolicy replaces a rule's endpoint, priority and spec.
func (s *Store) UpdatePolicy(ctx context.Context, p PolicyRule) error {
	defer s.keys.dropProject(p.ProjectID)
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE policies SET endpoint = $1, priority = $2, spec = $3 WHERE project_id = $4 AND id = $5`,
			p.Endpoint, p.Priority, string(p.Spec), p.ProjectID, p.ID)
		if err := affectedOne(res, err, "update policy"); err != nil {
			return err
		}
		return bumpPolicies(ctx, tx, p.ProjectID)
	})
	if errors.Is(err, ErrNotFound) {
		return ErrNotFound
	}
	return err
}

// DeletePolicy removes a rule.
func (s *Store) DeletePolicy(ctx context.Context, projectID, id string) error {
	defer s.keys.dropProject(projectID)
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `DELETE FROM policies WHERE project_id = $1 AND id = $2`, projectID, id)
		if err := affectedOne(res, err, "delete policy"); err != nil {
			return err
		}
		return bumpPolicies(ctx, tx, projectID)
	})
	if errors.Is(err, ErrNotFound) {
		return ErrNotFound
	}
	return err
}

// GetPolicy returns one of a project's rules.
func (s *Store) GetPolicy(ctx context.Context, projectID, id string) (PolicyRule, error) {
	return scanPolicy(s.readRow(ctx, `SELECT `+policyColumns+` FROM policies WHERE project_id = $1 AND id = $2`, projectID, id))
}

// SetPolicyDefault sets the decision of calls no project rule matches.
func (s *Store) SetPolicyDefault(ctx context.Context, projectID, decision string) error {
	defer s.keys.dropProject(projectID)
	res, err := s.write.ExecContext(ctx,
		`UPDATE projects SET policy_default = $1, policies_version = policies_version + 1 WHERE id = $2`, decision, projectID)
	return affectedOne(res, err, "set policy default")
}

// LoadPolicies reads a project's default decision, its policies version
// and every rule, ordered by priority then age, in one read transaction,
// so the rules are those of the version returned.
func (s *Store) LoadPolicies(ctx context.Context, projectID string) (PolicyRules, error) {
	var opts *sql.TxOptions // SQLite: a read transaction is a snapshot
	if s.dialect == Postgres {
		opts = &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead}
	}
	tx, err := s.read.BeginTx(ctx, opts)
	if err != nil {
		return PolicyRules{}, fmt.Errorf("store: load policies: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	var out PolicyRules
	err = tx.QueryRowContext(ctx, `SELECT policies_version, policy_default FROM projects WHERE id = $1`, projectID).Scan(&out.Version, &out.Default)
	if errors.Is(err, sql.ErrNoRows) {
		return PolicyRules{}, ErrNotFound
	}
	if err != nil {
		return PolicyRules{}, fmt.Errorf("store: load policies: %w", err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT `+policyColumns+` FROM policies WHERE project_id = $1 ORDER BY priority, created_at, id`, projectID)
	if err != nil {
		return PolicyRules{}, fmt.Errorf("store: load policies: %w", err)
	}
	defer rows.Close()
	out.Rules = []PolicyRule{}
	for rows.Next() {
		p, err := scanPolicy(rows)
		if err != nil {
			return PolicyRules{}, fmt.Errorf("store: load policies: %w", err)
		}
		out.Rules = append(out.Rules, p)
	}
	return out, rows.Err()
}
