package httpapi

import (
	"errors"
	"net/http"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// The projects screen: the operator's projects, create, rename; switching
// is the layout's project switcher (handleDashSwitch).

func (s *Server) handleDashProjects(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	v := d.view("projects", "Projects", nil)
	v.Flash = s.takeFlash(w, r)
	return s.render(w, 0, "projects", v)
}

// projectName checks a project name as admin project create does.
func projectName(name string) (string, error) {
	name = strings.TrimSpace(name)
	if name == "" || len(name) > 128 {
		return "", apierr.New(apierr.ValidationError, "a project name is 1 to 128 characters")
	}
	return name, nil
}

// handleDashProjectCreate creates a project owned by the operator.
func (s *Server) handleDashProjectCreate(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	name, err := projectName(r.PostFormValue("name"))
	if err != nil {
		v := d.view("projects", "Projects", nil)
		v.Error = err.(*apierr.Error).Message
		return s.render(w, http.StatusUnprocessableEntity, "projects", v)
	}
	p, err := s.store.CreateProjectOwned(r.Context(), name, d.sess.OperatorID)
	if err != nil {
		return err
	}
	return s.redirectFlash(w, r, "/dashboard/p/"+p.ID+"/keys", "Project “"+p.Name+"” created. Create its first API key below.")
}

// handleDashProjectRename renames a project (owners only).
func (s *Server) handleDashProjectRename(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	if err := d.requireOwner("rename it"); err != nil {
		return err
	}
	name, err := projectName(r.PostFormValue("name"))
	if err != nil {
		v := d.view("projects", "Projects", nil)
		v.Error = err.(*apierr.Error).Message
		return s.render(w, http.StatusUnprocessableEntity, "projects", v)
	}
	if err := s.store.RenameProject(r.Context(), d.project.ProjectID, name); errors.Is(err, store.ErrNotFound) {
		return apierr.New(apierr.NotFound, "project %s not found", d.project.ProjectID)
	} else if err != nil {
		return err
	}
	return s.redirectFlash(w, r, "/dashboard/projects", "Project renamed to “"+name+"”.")
}
