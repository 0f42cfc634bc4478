package httpapi

import (
	"net/http"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// The API keys screen: list (hint, last used, state), create (shown once),
// revoke. Only owners create and revoke.

// keyRow is a key as the screen and /api/dashboard list it.
type keyRow struct {
	store.APIKey
	LastUsed *time.Time `json:"lastUsedAt"`
	State    string     `json:"state"`
}

// newKey is a created key, shown once.
type newKey struct {
	store.APIKey
	Key string `json:"key"`
}

type keysData struct {
	Keys    []keyRow
	Created *newKey
}

func (s *Server) projectKeys(r *http.Request, projectID string) ([]keyRow, error) {
	keys, err := s.store.ListAPIKeys(r.Context(), projectID)
	if err != nil {
		return nil, err
	}
	used, err := s.store.APIKeysLastUsed(r.Context(), projectID)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	rows := make([]keyRow, len(keys))
	for i, k := range keys {
		rows[i] = keyRow{APIKey: k, State: "active"}
		if t, ok := used[k.ID]; ok {
			rows[i].LastUsed = &t
		}
		switch {
		case k.RevokedAt != nil:
			rows[i].State = "revoked"
		case k.ExpiresAt != nil && !k.ExpiresAt.After(now):
			rows[i].State = "expired"
		}
	}
	return rows, nil
}

// createKey makes a key for the current project (owners only), with the
// CLI's rules (apikey.CheckNew).
func (s *Server) createKey(r *http.Request, d *dashReq, name string, lifetime time.Duration) (*newKey, error) {
	if err := d.requireOwner("create API keys"); err != nil {
		return nil, err
	}
	if err := apikey.CheckNew(name, lifetime); err != nil {
		return nil, apierr.New(apierr.ValidationError, "%s", err.Error())
	}
	key, hash, hint, err := apikey.Generate()
	if err != nil {
		return nil, err
	}
	nk := store.NewAPIKey{ProjectID: d.project.ProjectID, Name: name, Hash: hash, Hint: hint}
	if lifetime > 0 {
		at := time.Now().Add(lifetime)
		nk.ExpiresAt = &at
	}
	k, err := s.store.CreateAPIKey(r.Context(), nk)
	if err != nil {
		return nil, err
	}
	return &newKey{APIKey: k, Key: key}, nil
}

// revokeKey revokes a key of the current project (owners only).
func (s *Server) revokeKey(r *http.Request, d *dashReq, id string) (store.APIKey, error) {
	if err := d.requireOwner("revoke API keys"); err != nil {
		return store.APIKey{}, err
	}
	keys, err := s.store.ListAPIKeys(r.Context(), d.project.ProjectID)
	if err != nil {
		return store.APIKey{}, err
	}
	for _, k := range keys {
		if k.ID == id {
			return s.store.RevokeAPIKey(r.Context(), id)
		}
	}
	return store.APIKey{}, apierr.New(apierr.NotFound, "API key %s not found in this project", id)
}

func (s *Server) renderKeys(w http.ResponseWriter, r *http.Request, d *dashReq, status int, created *newKey, problem string) error {
	rows, err := s.projectKeys(r, d.project.ProjectID)
	if err != nil {
		return err
	}
	v := d.view("keys", "API keys", keysData{Keys: rows, Created: created})
	v.Flash, v.Error = s.takeFlash(w, r), problem
	return s.render(w, status, "keys", v)
}

func (s *Server) handleDashKeys(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	return s.renderKeys(w, r, d, 0, nil, "")
}

// handleDashKeyCreate answers with the page showing the new key once (no
// redirect: the key is never put in a cookie or a URL).
func (s *Server) handleDashKeyCreate(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	var lifetime time.Duration
	if e := r.PostFormValue("expires"); e != "" {
		var err error
		if lifetime, err = time.ParseDuration(e); err != nil || lifetime <= 0 {
			return s.renderKeys(w, r, d, http.StatusUnprocessableEntity, nil, "choose when the key expires from the list")
		}
	}
	k, err := s.createKey(r, d, r.PostFormValue("name"), lifetime)
	if e, ok := apierr.As(err); ok && e.Code == apierr.ValidationError {
		return s.renderKeys(w, r, d, http.StatusUnprocessableEntity, nil, e.Message)
	}
	if err != nil {
		return err
	}
	return s.renderKeys(w, r, d, http.StatusOK, k, "")
}

func (s *Server) handleDashKeyRevoke(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	k, err := s.revokeKey(r, d, r.PathValue("id"))
	if err != nil {
		return err
	}
	return s.redirectFlash(w, r, "/dashboard/p/"+d.project.ProjectID+"/keys", "Key "+k.Hint+" revoked: it stops working with its next request.")
}
