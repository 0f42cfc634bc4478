package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Operator is a person who signs in to the dashboard. PasswordHash is the
// encoded argon2id hash (internal/operator), empty until a password is set.
type Operator struct {
	ID           string    `json:"id"`
	Email        string    `json:"email"`
	PasswordHash string    `json:"-"`
	CreatedAt    time.Time `json:"createdAt"`
}

// Operator roles in a project: an owner manages API keys and operators, a
// member does everything else.
const (
	RoleOwner  = "owner"
	RoleMember = "member"
)

// OperatorProject is one project an operator belongs to, with the role.
type OperatorProject struct {
	ProjectID   string `json:"projectId"`
	ProjectName string `json:"projectName"`
	Role        string `json:"role"`
}

// ProjectOperator is one operator of a project, with the role.
type ProjectOperator struct {
	OperatorID string `json:"operatorId"`
	Email      string `json:"email"`
	Role       string `json:"role"`
}

// CreateOperator stores an operator; an email already taken is ErrConflict.
func (s *Store) CreateOperator(ctx context.Context, email, passwordHash string) (Operator, error) {
	o := Operator{ID: NewID(), Email: email, PasswordHash: passwordHash, CreatedAt: fromMillis(millis(s.now()))}
	_, err := s.write.ExecContext(ctx,
		`INSERT INTO operators (id, email, password_hash, created_at) VALUES ($1, $2, $3, $4)`,
		o.ID, o.Email, o.PasswordHash, millis(o.CreatedAt))
	if isUniqueViolation(err) {
		return Operator{}, ErrConflict
	}
	if err != nil {
		return Operator{}, fmt.Errorf("store: create operator: %w", err)
	}
	return o, nil
}

const operatorColumns = `id, email, password_hash, created_at`

func scanOperator(row interface{ Scan(...any) error }) (Operator, error) {
	var o Operator
	var created int64
	if err := row.Scan(&o.ID, &o.Email, &o.PasswordHash, &created); err != nil {
		return Operator{}, err
	}
	o.CreatedAt = fromMillis(created)
	return o, nil
}

// GetOperator returns an operator by id, or ErrNotFound.
func (s *Store) GetOperator(ctx context.Context, id string) (Operator, error) {
	return s.oneOperator(ctx, `SELECT `+operatorColumns+` FROM operators WHERE id = $1`, id)
}

// OperatorByEmail returns an operator by email, or ErrNotFound. Emails are
// stored as the operator package normalises them (lower case).
func (s *Store) OperatorByEmail(ctx context.Context, email string) (Operator, error) {
	return s.oneOperator(ctx, `SELECT `+operatorColumns+` FROM operators WHERE email = $1`, email)
}

func (s *Store) oneOperator(ctx context.Context, query, arg string) (Operator, error) {
	o, err := scanOperator(s.read.QueryRowContext(ctx, query, arg))
	if errors.Is(err, sql.ErrNoRows) {
		return Operator{}, ErrNotFound
	}
	if err != nil {
		return Operator{}, fmt.Errorf("store: get operator: %w", err)
	}
	return o, nil
}

// ListOperators returns every operator, by email.
func (s *Store) ListOperators(ctx context.Context) ([]Operator, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+operatorColumns+` FROM operators ORDER BY email`)
	if err != nil {
		return nil, fmt.Errorf("store: list operators: %w", err)
	}
	defer rows.Close()
	out := []Operator{}
	for rows.Next() {
		o, err := scanOperator(rows)
		if err != nil {
			return nil, fmt.Errorf("store: list operators: %w", err)
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// CountOperators returns how many operators exist.
func (s *Store) CountOperators(ctx context.Context) (int, error) {
	var n int
	if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM operators`).Scan(&n); err != nil {
		return 0, fmt.Errorf("store: count operators: %w", err)
	}
	return n, nil
}

// DeleteOperator removes an operator with its memberships, sessions and
// sign-in links; an unknown id is ErrNotFound.
func (s *Store) DeleteOperator(ctx context.Context, id string) error {
	res, err := s.write.ExecContext(ctx, `DELETE FROM operators WHERE id = $1`, id)
	if err != nil {
		return fmt.Errorf("store: delete operator: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// SetOperatorPassword replaces an operator's password hash and ends every
// session of the operator; an unknown id is ErrNotFound.
func (s *Store) SetOperatorPassword(ctx context.Context, id, passwordHash string) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		res, err := tx.ExecContext(ctx, `UPDATE operators SET password_hash = $1 WHERE id = $2`, passwordHash, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return ErrNotFound
		}
		_, err = tx.ExecContext(ctx, `DELETE FROM dashboard_sessions WHERE operator_id = $1`, id)
		return err
	})
	if err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("store: set operator password: %w", err)
	}
	return err
}

// SetOperatorRole makes an operator a member or owner of a project
// (replacing the role it had there). An unknown operator or project is
// ErrNotFound.
func (s *Store) SetOperatorRole(ctx context.Context, operatorID, projectID, role string) error {
	err := s.tx(ctx, func(tx *sql.Tx) error {
		return setOperatorRole(ctx, tx, operatorID, projectID, role, millis(s.now()))
	})
	if err != nil && !errors.Is(err, ErrNotFound) {
		return fmt.Errorf("store: set operator role: %w", err)
	}
	return err
}

func setOperatorRole(ctx context.Context, tx *sql.Tx, operatorID, projectID, role string, now int64) error {
	var one int
	err := tx.QueryRowContext(ctx,
		`SELECT 1 FROM operators o, projects p WHERE o.id = $1 AND p.id = $2`, operatorID, projectID).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return ErrNotFound
	}
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx,
		`INSERT INTO operator_projects (operator_id, project_id, role, created_at) VALUES ($1, $2, $3, $4)
		 ON CONFLICT (operator_id, project_id) DO UPDATE SET role = excluded.role`,
		operatorID, projectID, role, now)
	return err
}

// RemoveOperatorRole takes an operator out of a project; ErrNotFound when
// it was not in it.
func (s *Store) RemoveOperatorRole(ctx context.Context, operatorID, projectID string) error {
	res, err := s.write.ExecContext(ctx,
		`DELETE FROM operator_projects WHERE operator_id = $1 AND project_id = $2`, operatorID, projectID)
	if err != nil {
		return fmt.Errorf("store: remove operator role: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// OperatorProjects returns the projects an operator belongs to, oldest first.
func (s *Store) OperatorProjects(ctx context.Context, operatorID string) ([]OperatorProject, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT p.id, p.name, op.role FROM operator_projects op JOIN projects p ON p.id = op.project_id
		 WHERE op.operator_id = $1 ORDER BY p.created_at, p.id`, operatorID)
	if err != nil {
		return nil, fmt.Errorf("store: operator projects: %w", err)
	}
	defer rows.Close()
	out := []OperatorProject{}
	for rows.Next() {
		var op OperatorProject
		if err := rows.Scan(&op.ProjectID, &op.ProjectName, &op.Role); err != nil {
			return nil, fmt.Errorf("store: operator projects: %w", err)
		}
		out = append(out, op)
	}
	return out, rows.Err()
}

// ProjectOperators returns a project's operators, by email.
func (s *Store) ProjectOperators(ctx context.Context, projectID string) ([]ProjectOperator, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT o.id, o.email, op.role FROM operator_projects op JOIN operators o ON o.id = op.operator_id
		 WHERE op.project_id = $1 ORDER BY o.email`, projectID)
	if err != nil {
		return nil, fmt.Errorf("store: project operators: %w", err)
	}
	defer rows.Close()
	out := []ProjectOperator{}
	for rows.Next() {
		var po ProjectOperator
		if err := rows.Scan(&po.OperatorID, &po.Email, &po.Role); err != nil {
			return nil, fmt.Errorf("store: project operators: %w", err)
		}
		out = append(out, po)
	}
	return out, rows.Err()
}

// CreateProjectOwned creates a project with operatorID as its owner, in one
// transaction; an unknown operator is ErrNotFound.
func (s *Store) CreateProjectOwned(ctx context.Context, name, operatorID string) (Project, error) {
	p := Project{ID: NewID(), Name: name, CreatedAt: fromMillis(millis(s.now()))}
	err := s.tx(ctx, func(tx *sql.Tx) error {
		if err := insertProject(ctx, tx, p); err != nil {
			return err
		}
		return setOperatorRole(ctx, tx, operatorID, p.ID, RoleOwner, millis(p.CreatedAt))
	})
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Project{}, fmt.Errorf("store: create project: %w", err)
	}
	return p, err
}

// RenameProject changes a project's name; an unknown id is ErrNotFound.
func (s *Store) RenameProject(ctx context.Context, id, name string) error {
	res, err := s.write.ExecContext(ctx, `UPDATE projects SET name = $1 WHERE id = $2`, name, id)
	if err != nil {
		return fmt.Errorf("store: rename project: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// APIKeysLastUsed returns, per key id of a project, the time of the newest
// execution log record made with the key (keys never used are absent).
func (s *Store) APIKeysLastUsed(ctx context.Context, projectID string) (map[string]time.Time, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT k.id, (SELECT max(l.created_at) FROM execution_log l WHERE l.api_key_id = k.id)
		 FROM api_keys k WHERE k.project_id = $1`, projectID)
	if err != nil {
		return nil, fmt.Errorf("store: api keys last used: %w", err)
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var id string
		var at sql.NullInt64
		if err := rows.Scan(&id, &at); err != nil {
			return nil, fmt.Errorf("store: api keys last used: %w", err)
		}
		if at.Valid {
			out[id] = fromMillis(at.Int64)
		}
	}
	return out, rows.Err()
}
