package httpapi

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// The catalog browser: the project's connectors (built-in and its own) by
// category with search; a connector's tools with effects, data classes,
// scopes and schemas; the project's tool switches (store.SetToolsEnabled,
// as admin tools enable|disable).

type connectorCard struct {
	ID, Name, Description, Category, Origin string
	Tools, Off                              int
}

type categoryGroup struct {
	Name       string
	Connectors []connectorCard
}

type catalogData struct {
	Query      string
	Results    []connectorCard
	Categories []categoryGroup
	Total      int
}

func (s *Server) dashTenant(r *http.Request, d *dashReq) (tenant.Tenant, map[string]bool, error) {
	tn, err := s.catalogs.Load(r.Context(), d.project.ProjectID)
	if err != nil {
		return tenant.Tenant{}, nil, err
	}
	off, err := s.store.DisabledTools(r.Context(), tn.ProjectID, tn.ToolsVersion)
	return tn, off, err
}

func card(c *catalog.Connector, off map[string]bool) connectorCard {
	cc := connectorCard{ID: c.ID, Name: c.Name, Description: c.Description, Category: c.Category, Origin: c.Origin, Tools: len(c.Tools)}
	for _, t := range c.Tools {
		if off[t.ID] {
			cc.Off++
		}
	}
	return cc
}

func (s *Server) handleDashCatalog(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	tn, off, err := s.dashTenant(r, d)
	if err != nil {
		return err
	}
	data := catalogData{Query: strings.TrimSpace(r.URL.Query().Get("q")), Total: len(tn.Catalog.Connectors())}
	if data.Query != "" {
		// Connectors by their own text, then those with tools that match
		// well (the catalog's search, as search_actions uses it).
		seen := map[string]bool{}
		for _, c := range tn.Catalog.SearchConnectors(data.Query, nil) {
			seen[c.ID] = true
			data.Results = append(data.Results, card(c, off))
		}
		for _, h := range tn.Catalog.SearchTools(data.Query, nil) {
			if c := h.Tool.Connector(); h.Relevance >= catalog.MatchThreshold && !seen[c.ID] {
				seen[c.ID] = true
				data.Results = append(data.Results, card(c, off))
			}
		}
	} else {
		byCat := map[string][]connectorCard{}
		for _, c := range tn.Catalog.Connectors() {
			cat := c.Category
			if cat == "" {
				cat = "other"
			}
			byCat[cat] = append(byCat[cat], card(c, off))
		}
		for name, list := range byCat {
			sort.Slice(list, func(i, j int) bool { return strings.ToLower(list[i].Name) < strings.ToLower(list[j].Name) })
			data.Categories = append(data.Categories, categoryGroup{Name: name, Connectors: list})
		}
		sort.Slice(data.Categories, func(i, j int) bool { return data.Categories[i].Name < data.Categories[j].Name })
	}
	v := d.view("catalog", "Catalog", data)
	v.Flash = s.takeFlash(w, r)
	return s.render(w, 0, "catalog", v)
}

type toolRow struct {
	ID, Name, Description, Effect, DataClass string
	Irreversible, On                         bool
	Scopes                                   []string
	Schema                                   string
}

type connectorData struct {
	Connector connectorCard
	Docs      string
	Methods   []string
	// OAuth is whether the connector has an OAuth method (an OAuth client
	// can be set up for it).
	OAuth bool
	Tools []toolRow
}

func (s *Server) handleDashConnector(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	tn, off, err := s.dashTenant(r, d)
	if err != nil {
		return err
	}
	c, ok := tn.Catalog.Connector(r.PathValue("connector"))
	if !ok {
		return apierr.New(apierr.ConnectorNotFound, "no connector %q in this project's catalog", r.PathValue("connector"))
	}
	data := connectorData{Connector: card(c, off), Docs: c.Docs}
	for _, m := range c.AuthMethods {
		data.Methods = append(data.Methods, m.Type)
		data.OAuth = data.OAuth || m.Type == catalog.AuthOAuth2 || m.Type == catalog.AuthOAuth2ClientCredentials
	}
	for _, t := range c.Tools {
		schema, _ := json.MarshalIndent(t.InputSchema, "", "  ")
		class := t.Classification()
		data.Tools = append(data.Tools, toolRow{ID: t.ID, Name: t.Name, Description: t.Description, Effect: t.Effect, DataClass: class,
			Irreversible: t.Irreversible, On: !off[t.ID], Scopes: t.RequiredScopes, Schema: string(schema)})
	}
	v := d.view("catalog", c.Name, data)
	v.Flash = s.takeFlash(w, r)
	return s.render(w, 0, "connector", v)
}

// handleDashToolSwitch turns one tool, or all of a connector's tools, on
// or off in the project.
func (s *Server) handleDashToolSwitch(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	tn, _, err := s.dashTenant(r, d)
	if err != nil {
		return err
	}
	c, ok := tn.Catalog.Connector(r.PathValue("connector"))
	if !ok {
		return apierr.New(apierr.ConnectorNotFound, "no connector %q in this project's catalog", r.PathValue("connector"))
	}
	enabled := r.PostFormValue("enabled") == "1"
	var ids []string
	if r.PostFormValue("all") == "1" {
		for _, t := range c.Tools {
			ids = append(ids, t.ID)
		}
	} else {
		id := r.PostFormValue("tool")
		for _, t := range c.Tools {
			if t.ID == id {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			return apierr.New(apierr.ToolNotFound, "%s has no tool %q", c.ID, id)
		}
	}
	if err := s.store.SetToolsEnabled(r.Context(), d.project.ProjectID, ids, enabled); err != nil {
		return err
	}
	state := "off"
	if enabled {
		state = "on"
	}
	msg := "Turned " + state + " " + ids[0] + "."
	if len(ids) > 1 {
		msg = "Turned " + state + " every tool of " + c.Name + "."
	}
	return s.redirectFlash(w, r, "/dashboard/p/"+d.project.ProjectID+"/catalog/"+c.ID, msg)
}
