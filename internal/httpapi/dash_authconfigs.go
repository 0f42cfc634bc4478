package httpapi

import (
	"errors"
	"net/http"
	"sort"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/connect"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// The auth configs screen: a project's OAuth clients per connector
// (account.CreateAuthConfig, as admin authconfig create), the redirect URL
// to register at the provider, and delete. A client secret is sealed and
// never shown again.

type authConfigRow struct {
	ID, Key, ConnectorID, ConnectorName, Type, ClientID string
	HasSecret, Implicit                                 bool
	Scopes                                              []string
	CreatedAt                                           any
}

type connectorChoice struct{ ID, Name string }

type authConfigForm struct{ ConnectorID, Type, ClientID, Scopes, Key string }

type authConfigsData struct {
	RedirectURL string
	Configs     []authConfigRow
	Connectors  []connectorChoice
	Form        authConfigForm
	// Filter is the connector the list is limited to ("" for all).
	Filter string
}

func (s *Server) renderAuthConfigs(w http.ResponseWriter, r *http.Request, d *dashReq, status int, form authConfigForm, problem string) error {
	tn, err := s.catalogs.Load(r.Context(), d.project.ProjectID)
	if err != nil {
		return err
	}
	filter := r.URL.Query().Get("connector")
	list, err := s.store.ListAuthConfigs(r.Context(), d.project.ProjectID, filter)
	if err != nil {
		return err
	}
	data := authConfigsData{RedirectURL: s.baseURL + connect.CallbackPath, Form: form, Filter: filter}
	if data.Form.ConnectorID == "" {
		data.Form.ConnectorID = filter
	}
	for _, a := range list {
		name := a.ConnectorID
		if c, ok := tn.Catalog.Connector(a.ConnectorID); ok {
			name = c.Name
		}
		data.Configs = append(data.Configs, authConfigRow{ID: a.ID, Key: a.Key, ConnectorID: a.ConnectorID, ConnectorName: name, Type: a.AuthType,
			ClientID: a.ClientID, HasSecret: len(a.ClientSecret) > 0, Implicit: a.Implicit, Scopes: a.Scopes, CreatedAt: a.CreatedAt})
	}
	for _, c := range tn.Catalog.Connectors() {
		for _, m := range c.AuthMethods {
			if m.Type == catalog.AuthOAuth2 || m.Type == catalog.AuthOAuth2ClientCredentials {
				data.Connectors = append(data.Connectors, connectorChoice{ID: c.ID, Name: c.Name})
				break
			}
		}
	}
	sort.Slice(data.Connectors, func(i, j int) bool {
		return strings.ToLower(data.Connectors[i].Name) < strings.ToLower(data.Connectors[j].Name)
	})
	v := d.view("authconfigs", "OAuth clients", data)
	v.Flash, v.Error = s.takeFlash(w, r), problem
	return s.render(w, status, "authconfigs", v)
}

func (s *Server) handleDashAuthConfigs(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	return s.renderAuthConfigs(w, r, d, 0, authConfigForm{Type: catalog.AuthOAuth2}, "")
}

func (s *Server) handleDashAuthConfigCreate(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	form := authConfigForm{ConnectorID: r.PostFormValue("connector"), Type: r.PostFormValue("type"), ClientID: strings.TrimSpace(r.PostFormValue("clientId")),
		Scopes: r.PostFormValue("scopes"), Key: strings.TrimSpace(r.PostFormValue("key"))}
	tn, err := s.catalogs.Load(r.Context(), d.project.ProjectID)
	if err != nil {
		return err
	}
	ac, err := s.accounts.CreateAuthConfig(r.Context(), tn, account.AuthConfigRequest{ConnectorID: form.ConnectorID, Type: form.Type,
		ClientID: form.ClientID, ClientSecret: strings.TrimSpace(r.PostFormValue("clientSecret")), Scopes: splitList(form.Scopes), Key: form.Key})
	if e, ok := apierr.As(err); ok && e.Code != apierr.InternalError {
		return s.renderAuthConfigs(w, r, d, http.StatusUnprocessableEntity, form, e.Message)
	}
	if err != nil {
		return err
	}
	return s.redirectFlash(w, r, "/dashboard/p/"+d.project.ProjectID+"/authconfigs",
		"OAuth client “"+ac.Key+"” saved for "+ac.ConnectorID+". Register the redirect URL below at the provider.")
}

func (s *Server) handleDashAuthConfigDelete(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	err := s.store.DeleteAuthConfig(r.Context(), d.project.ProjectID, r.PathValue("id"))
	switch {
	case errors.Is(err, store.ErrNotFound):
		return apierr.New(apierr.NotFound, "no auth config %s in this project", r.PathValue("id"))
	case errors.Is(err, store.ErrConflict):
		return s.renderAuthConfigs(w, r, d, http.StatusConflict, authConfigForm{Type: catalog.AuthOAuth2},
			"this auth config is used by connections; delete them first")
	case err != nil:
		return err
	}
	return s.redirectFlash(w, r, "/dashboard/p/"+d.project.ProjectID+"/authconfigs", "Auth config deleted.")
}
