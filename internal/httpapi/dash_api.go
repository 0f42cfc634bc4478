package httpapi

import (
	"net/http"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// The dashboard's JSON backend, /api/dashboard/*: the same rules as the
// pages (dashAuth, and the screens' shared functions), for scripts in the
// dashboard's own pages and for tests.

func (s *Server) handleDashAPIMe(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	writeJSON(w, http.StatusOK, struct {
		OperatorID string                  `json:"operatorId"`
		Email      string                  `json:"email"`
		ExpiresAt  time.Time               `json:"expiresAt"`
		Projects   []store.OperatorProject `json:"projects"`
	}{d.sess.OperatorID, d.sess.Email, d.sess.ExpiresAt, d.projects})
	return nil
}

func (s *Server) handleDashAPIKeys(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	rows, err := s.projectKeys(r, d.project.ProjectID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"data": rows})
	return nil
}

func (s *Server) handleDashAPIKeyCreate(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	var body struct {
		Name      string `json:"name"`
		ExpiresIn string `json:"expiresIn"`
	}
	if err := s.decodeBody(w, r, &body).Err(); err != nil {
		return err
	}
	var lifetime time.Duration
	if body.ExpiresIn != "" {
		var err error
		if lifetime, err = time.ParseDuration(body.ExpiresIn); err != nil || lifetime <= 0 {
			return apierr.New(apierr.ValidationError, "expiresIn is a positive duration such as 720h")
		}
	}
	k, err := s.createKey(r, d, body.Name, lifetime)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, k)
	return nil
}

func (s *Server) handleDashAPIKeyRevoke(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	k, err := s.revokeKey(r, d, r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, k)
	return nil
}
