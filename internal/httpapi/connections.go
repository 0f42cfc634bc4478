package httpapi

import (
	"encoding/json"
	"net/http"
	"time"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// connectionItem is a connection (account) as the API shows it (openapi.json, schema Connection). It
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

// handleConnectionList is GET /v1/connections?userId=.
func (s *Server) handleConnectionList(w http.ResponseWriter, r *http.Request) error {
	var issues apierr.Issues
	q := r.URL.Query()
	userID := q.Get("userId")
	account.CheckUserID(userID, "userId", true, &issues)
	if err := issues.Err(); err != nil {
		return err
	}
	conns, err := s.accounts.List(r.Context(), tenantOf(r).ProjectID, userID)
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
	c, err := s.accounts.Create(r.Context(), tenantOf(r), account.CreateRequest{
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
	if err := issues.Err(); err != nil {
		return err
	}
	u, err := s.accounts.Update(r.Context(), tenantOf(r), r.PathValue("id"), account.UpdateRequest{
		Name: body.Name, Credential: body.Credential, ExpectedRevision: body.ExpectedRevision,
	})
	if err != nil {
		return err
	}
	out := map[string]any{"id": u.ID}
	if u.Revision != nil {
		out["revision"] = *u.Revision
	}
	if u.Name != nil {
		out["name"] = *u.Name
	}
	respond(w, http.StatusOK, out)
	return nil
}

// handleConnectionDefault is POST /v1/connections/:id/default.
func (s *Server) handleConnectionDefault(w http.ResponseWriter, r *http.Request) error {
	c, err := s.accounts.SetDefault(r.Context(), tenantOf(r).ProjectID, r.PathValue("id"))
	if err != nil {
		return err
	}
	respond(w, http.StatusOK, map[string]any{"id": c.ID, "connectorId": c.ConnectorID, "isDefault": c.IsDefault})
	return nil
}

// handleConnectionDelete is DELETE /v1/connections/:id.
func (s *Server) handleConnectionDelete(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if err := s.accounts.Delete(r.Context(), tenantOf(r).ProjectID, id); err != nil {
		return err
	}
	respond(w, http.StatusOK, map[string]any{"id": id, "erased": true})
	return nil
}
