package httpapi

import (
	"errors"
	"net/http"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/operator"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// The operators screen: who works on the project, with which role. Owners
// add operators (an unknown email gets an operator with a one-time sign-in
// link, shown once), change roles and remove them; members only see the
// list. The project always keeps an owner.

type operatorsData struct {
	Operators []store.ProjectOperator
	// Link is a new operator's sign-in link, shown once.
	Link, LinkEmail string
	Email, Role     string
}

func (s *Server) renderOperators(w http.ResponseWriter, r *http.Request, d *dashReq, status int, data operatorsData, problem string) error {
	list, err := s.store.ProjectOperators(r.Context(), d.project.ProjectID)
	if err != nil {
		return err
	}
	data.Operators = list
	if data.Role == "" {
		data.Role = store.RoleMember
	}
	v := d.view("operators", "Operators", data)
	v.Flash, v.Error = s.takeFlash(w, r), problem
	return s.render(w, status, "operators", v)
}

func (s *Server) handleDashOperators(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	return s.renderOperators(w, r, d, 0, operatorsData{}, "")
}

// handleDashOperatorAdd gives an operator a role in the project, creating
// the operator (with a sign-in link) when the email is new.
func (s *Server) handleDashOperatorAdd(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	if err := d.requireOwner("manage its operators"); err != nil {
		return err
	}
	data := operatorsData{Email: r.PostFormValue("email"), Role: r.PostFormValue("role")}
	fail := func(err error) error {
		if msg, ok := userError(err); ok {
			return s.renderOperators(w, r, d, http.StatusUnprocessableEntity, data, msg)
		}
		return err
	}
	email, err := operator.NormalizeEmail(data.Email)
	if err == nil {
		err = operator.CheckRole(data.Role)
	}
	if err != nil {
		return fail(err)
	}
	o, err := s.store.OperatorByEmail(r.Context(), email)
	created := false
	if errors.Is(err, store.ErrNotFound) {
		o, err = s.operators.Create(r.Context(), email, "")
		created = err == nil
	}
	if err != nil {
		return fail(err)
	}
	if err := s.setRoleKeepingOwner(r, d, o.ID, data.Role); err != nil {
		return fail(err)
	}
	if !created {
		return s.redirectFlash(w, r, "/dashboard/p/"+d.project.ProjectID+"/operators", email+" is now "+data.Role+" of this project.")
	}
	token, err := s.operators.CreateLink(r.Context(), o.ID)
	if err != nil {
		return err
	}
	return s.renderOperators(w, r, d, http.StatusOK, operatorsData{Link: s.webURL + "/dashboard/signin/link/" + token, LinkEmail: email}, "")
}

// setRoleKeepingOwner sets (or, with role "", removes) an operator's role,
// refusing to leave the project without an owner.
func (s *Server) setRoleKeepingOwner(r *http.Request, d *dashReq, operatorID, role string) error {
	if role != store.RoleOwner {
		ops, err := s.store.ProjectOperators(r.Context(), d.project.ProjectID)
		if err != nil {
			return err
		}
		owners, isOwner := 0, false
		for _, o := range ops {
			if o.Role == store.RoleOwner {
				owners++
				isOwner = isOwner || o.OperatorID == operatorID
			}
		}
		if isOwner && owners == 1 {
			return apierr.New(apierr.Conflict, "a project keeps at least one owner: make another operator owner first")
		}
	}
	var err error
	if role == "" {
		err = s.store.RemoveOperatorRole(r.Context(), operatorID, d.project.ProjectID)
	} else {
		err = s.store.SetOperatorRole(r.Context(), operatorID, d.project.ProjectID, role)
	}
	if errors.Is(err, store.ErrNotFound) {
		return apierr.New(apierr.NotFound, "that operator is not in this project")
	}
	return err
}

// inProject returns the project's operator with id, or NOT_FOUND.
func (s *Server) inProject(r *http.Request, d *dashReq, id string) (store.ProjectOperator, error) {
	ops, err := s.store.ProjectOperators(r.Context(), d.project.ProjectID)
	if err != nil {
		return store.ProjectOperator{}, err
	}
	for _, o := range ops {
		if o.OperatorID == id {
			return o, nil
		}
	}
	return store.ProjectOperator{}, apierr.New(apierr.NotFound, "that operator is not in this project")
}

func (s *Server) handleDashOperatorRole(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	if err := d.requireOwner("manage its operators"); err != nil {
		return err
	}
	o, err := s.inProject(r, d, r.PathValue("id"))
	if err != nil {
		return err
	}
	role := r.PostFormValue("role")
	if err := operator.CheckRole(role); err != nil {
		return err
	}
	if err := s.setRoleKeepingOwner(r, d, o.OperatorID, role); err != nil {
		if msg, ok := userError(err); ok {
			return s.renderOperators(w, r, d, http.StatusConflict, operatorsData{}, msg)
		}
		return err
	}
	return s.redirectFlash(w, r, "/dashboard/p/"+d.project.ProjectID+"/operators", o.Email+" is now "+role+" of this project.")
}

func (s *Server) handleDashOperatorRemove(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	if err := d.requireOwner("manage its operators"); err != nil {
		return err
	}
	o, err := s.inProject(r, d, r.PathValue("id"))
	if err != nil {
		return err
	}
	if err := s.setRoleKeepingOwner(r, d, o.OperatorID, ""); err != nil {
		if msg, ok := userError(err); ok {
			return s.renderOperators(w, r, d, http.StatusConflict, operatorsData{}, msg)
		}
		return err
	}
	where := "/dashboard/p/" + d.project.ProjectID + "/operators"
	if o.OperatorID == d.sess.OperatorID {
		where = "/dashboard/projects"
	}
	return s.redirectFlash(w, r, where, o.Email+" is no longer in this project.")
}
