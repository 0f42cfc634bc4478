package httpapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/google/uuid"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// connectionItem is a connection (account) as SPEC.md 2.5 shows it. It
// never carries the credential.
type connectionItem struct {
	ID           string     `json:"id"`
	ConnectorID  string     `json:"connectorId"`
	AuthConfigID string     `json:"authConfigId"`
	UserID       *string    `json:"userId"`
	Name         string     `json:"name"`
	Label        *string    `json:"label"`
	IsDefault    bool       `json:"isDefault"`
	Status       string     `json:"status"`
	Scopes       []string   `json:"scopes"`
	LastUsedAt   *time.Time `json:"lastUsedAt"`
	CreatedAt    time.Time  `json:"createdAt"`
	Global       bool       `json:"global"`
	Revision     int64      `json:"revision"`
}

func newConnectionItem(c store.Connection) connectionItem {
	it := connectionItem{
		ID: c.ID, ConnectorID: c.ConnectorID, AuthConfigID: c.AuthConfigID, Name: c.Name, Label: c.Label,
		IsDefault: c.IsDefault, Status: c.Status, Scopes: c.Scopes, LastUsedAt: c.LastUsedAt, CreatedAt: c.CreatedAt,
		Global: c.Global, Revision: c.Revision,
	}
	if !c.Global {
		u := c.UserID
		it.UserID = &u
	}
	return it
}

// checkUUID records an issue for a value that is set but not a UUID.
func checkUUID(v, field string, issues *apierr.Issues) {
	if v != "" && uuid.Validate(v) != nil {
		issues.Add(apierr.IssueInvalidValue, []any{field}, "must be a UUID")
	}
}

// handleConnectionList is GET /v1/connections?userId=.
func (s *Server) handleConnectionList(w http.ResponseWriter, r *http.Request) error {
	var issues apierr.Issues
	q := r.URL.Query()
	userID := q.Get("userId")
	account.CheckUserID(userID, "userId", true, &issues)
	if err := issues.Err(); err != nil {
		return err
	}
	conns, err := s.accounts.List(r.Context(), projectID(r.Context()), userID)
	if err != nil {
		return err
	}
	items := make([]connectionItem, len(conns))
	for i, c := range conns {
		items[i] = newConnectionItem(c)
	}
	respond(w, http.StatusOK, items)
	return nil
}

// handleConnectionCreate is POST /v1/connections.
func (s *Server) handleConnectionCreate(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		ConnectorID string          `json:"connectorId"`
		UserID      string          `json:"userId"`
		Global      bool            `json:"global"`
		Credential  json.RawMessage `json:"credential"`
		AuthConfig  string          `json:"authConfig"`
		Name        string          `json:"name"`
	}
	issues := s.decodeBody(w, r, &body)
	if err := issues.Err(); err != nil {
		return err
	}
	c, err := s.accounts.Create(r.Context(), projectID(r.Context()), account.CreateRequest{
		ConnectorID: body.ConnectorID, UserID: body.UserID, Global: body.Global, Credential: body.Credential,
		AuthConfigKey: body.AuthConfig, Name: body.Name,
	})
	if err != nil {
		return err
	}
	it := newConnectionItem(c)
	respond(w, http.StatusOK, map[string]any{
		"id": it.ID, "connectorId": it.ConnectorID, "userId": it.UserID, "global": it.Global, "name": it.Name,
		"label": it.Label, "isDefault": it.IsDefault, "status": it.Status,
	})
	return nil
}

// handleConnectionPatch is PATCH /v1/connections/:id: rename, rotate, or both.
func (s *Server) handleConnectionPatch(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		Name             *string         `json:"name"`
		Credential       json.RawMessage `json:"credential"`
		ExpectedRevision *int64          `json:"expectedRevision"`
	}
	issues := s.decodeBody(w, r, &body)
	rotate := len(body.Credential) > 0 && string(body.Credential) != "null"
	if body.Name == nil && !rotate {
		issues.Add(apierr.IssueRequired, []any{}, "give name to rename, or credential (and optionally expectedRevision) to rotate")
	}
	// Checked before a rotation in the same request changes anything.
	if body.Name != nil {
		account.CheckName(*body.Name, true, &issues)
	}
	if err := issues.Err(); err != nil {
		return err
	}
	ctx, pid, id := r.Context(), projectID(r.Context()), r.PathValue("id")
	if _, err := s.accounts.Get(ctx, pid, id); err != nil {
		return err
	}
	out := map[string]any{"id": id}
	if rotate {
		// expectedRevision is optional (SPEC.md 4.5 lists it without
		// requiring it): given, a stale one is 409 CONFLICT.
		var rev int64
		var err error
		if body.ExpectedRevision != nil {
			rev, err = s.accounts.Rotate(ctx, pid, id, body.Credential, *body.ExpectedRevision)
		} else {
			rev, err = s.accounts.RotateCurrent(ctx, pid, id, body.Credential)
		}
		if err != nil {
			return err
		}
		out["revision"] = rev
	}
	if body.Name != nil {
		if err := s.accounts.Rename(ctx, pid, id, *body.Name); err != nil {
			return err
		}
		out["name"] = *body.Name
	}
	respond(w, http.StatusOK, out)
	return nil
}

// handleConnectionDefault is POST /v1/connections/:id/default.
func (s *Server) handleConnectionDefault(w http.ResponseWriter, r *http.Request) error {
	c, err := s.accounts.SetDefault(r.Context(), projectID(r.Context()), r.PathValue("id"))
	if err != nil {
		return err
	}
	respond(w, http.StatusOK, map[string]any{"id": c.ID, "connectorId": c.ConnectorID, "isDefault": c.IsDefault})
	return nil
}

// handleConnectionDelete is DELETE /v1/connections/:id.
func (s *Server) handleConnectionDelete(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if err := s.accounts.Delete(r.Context(), projectID(r.Context()), id); err != nil {
		return err
	}
	respond(w, http.StatusOK, map[string]any{"id": id, "erased": true})
	return nil
}
