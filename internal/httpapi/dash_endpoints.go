package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/session"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// The MCP endpoints screen: a project's endpoints with their URLs and
// client configuration; create, edit (slug, scope, mode, policy, user
// rule) and delete, through session.EndpointRecord as the CLI does.

// endpointForm is the endpoint form's values.
type endpointForm struct {
	Slug, Mode, Connectors, Actions, MaxDataClass string
	ReadOnly, RequireUser, AllowGlobal            bool
}

func endpointFormOf(r *http.Request) endpointForm {
	return endpointForm{Slug: strings.TrimSpace(r.PostFormValue("slug")), Mode: r.PostFormValue("mode"),
		Connectors: r.PostFormValue("connectors"), Actions: r.PostFormValue("actions"), MaxDataClass: r.PostFormValue("maxDataClass"),
		ReadOnly: r.PostFormValue("readOnly") != "", RequireUser: r.PostFormValue("requireUser") != "",
		AllowGlobal: r.PostFormValue("allowGlobalAccounts") != ""}
}

func (f endpointForm) request(projectID string) session.EndpointRequest {
	return session.EndpointRequest{ProjectID: projectID, Slug: f.Slug, Connectors: splitList(f.Connectors), Actions: splitList(f.Actions),
		Mode: f.Mode, ReadOnly: f.ReadOnly, MaxDataClass: f.MaxDataClass, RequireUser: f.RequireUser, AllowGlobalAccounts: f.AllowGlobal}
}

// splitList splits a comma- or space-separated list; an empty one is nil
// (left out: all).
func splitList(s string) []string {
	out := strings.Fields(strings.ReplaceAll(s, ",", " "))
	if len(out) == 0 {
		return nil
	}
	return out
}

// endpointFormFrom fills the form from a stored endpoint.
func endpointFormFrom(e store.Endpoint) endpointForm {
	var spec session.Spec
	_ = json.Unmarshal(e.Spec, &spec)
	return endpointForm{Slug: e.Slug, Mode: e.Mode, Connectors: strings.Join(spec.Connectors, ", "), Actions: strings.Join(spec.Actions, ", "),
		MaxDataClass: spec.Policy.MaxDataClass, ReadOnly: spec.Policy.ReadOnly, RequireUser: e.RequireUser, AllowGlobal: spec.AllowGlobalAccounts}
}

// endpointView is one endpoint on the screen: its settings, its URLs and
// configuration for MCP clients.
type endpointView struct {
	Form    endpointForm
	URLs    []endpointURL
	Clients []clientConfig
}

type endpointURL struct{ Label, ID, URL string }

type clientConfig struct{ Name, ID, Text string }

func (s *Server) endpointView(e store.Endpoint) endpointView {
	v := endpointView{Form: endpointFormFrom(e)}
	// {mcp_url}/:slug/:userId, and the same under {base_url}/v1/mcp.
	mcp := s.mcpURL
	if mcp == "" {
		mcp = s.baseURL + "/v1/mcp"
	}
	perUser := mcp + "/" + e.Slug + "/<userId>"
	v.URLs = []endpointURL{{"For one user, on the MCP host", "url-user-" + e.Slug, perUser}}
	if v1 := s.baseURL + "/v1/mcp/" + e.Slug + "/<userId>"; v1 != perUser {
		v.URLs = append(v.URLs, endpointURL{"For one user, under the REST API", "url-v1-" + e.Slug, v1})
	}
	if !e.RequireUser {
		v.URLs = append(v.URLs, endpointURL{"For the default user (no user in the path)", "url-default-" + e.Slug, mcp + "/" + e.Slug})
	}
	auth := map[string]string{"Authorization": "Bearer <API key>"}
	name := "switchboard-" + e.Slug
	indent := func(x any) string {
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false) // the template escapes; <API key> stays readable
		enc.SetIndent("", "  ")
		_ = enc.Encode(x)
		return strings.TrimSpace(b.String())
	}
	v.Clients = []clientConfig{
		{"Cursor (.cursor/mcp.json)", "cfg-cursor-" + e.Slug, indent(map[string]any{"mcpServers": map[string]any{name: map[string]any{"url": perUser, "headers": auth}}})},
		{"VS Code (.vscode/mcp.json)", "cfg-vscode-" + e.Slug, indent(map[string]any{"servers": map[string]any{name: map[string]any{"type": "http", "url": perUser, "headers": auth}}})},
		{"Claude Desktop (claude_desktop_config.json, through mcp-remote)", "cfg-claude-" + e.Slug, indent(map[string]any{"mcpServers": map[string]any{name: map[string]any{
			"command": "npx", "args": []string{"-y", "mcp-remote", perUser, "--header", "Authorization: Bearer <API key>"}}}})},
		{"Claude Code (command line)", "cfg-claudecode-" + e.Slug, "claude mcp add --transport http " + name + " " + perUser + " --header \"Authorization: Bearer <API key>\""},
	}
	return v
}

type endpointsData struct {
	Endpoints []endpointView
	// Form is the create form (refilled after a problem).
	Form endpointForm
}

func (s *Server) renderEndpoints(w http.ResponseWriter, r *http.Request, d *dashReq, status int, form endpointForm, problem string) error {
	list, err := s.store.ListEndpoints(r.Context(), d.project.ProjectID)
	if err != nil {
		return err
	}
	data := endpointsData{Form: form}
	for _, e := range list {
		data.Endpoints = append(data.Endpoints, s.endpointView(e))
	}
	v := d.view("endpoints", "MCP endpoints", data)
	v.Flash, v.Error = s.takeFlash(w, r), problem
	return s.render(w, status, "endpoints", v)
}

func (s *Server) handleDashEndpoints(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	return s.renderEndpoints(w, r, d, 0, endpointForm{Mode: session.ModeTools}, "")
}

// endpointProblem is the message of an error the operator can fix.
func endpointProblem(err error, slug string) (string, bool) {
	if errors.Is(err, store.ErrConflict) {
		return "the slug “" + slug + "” is taken; slugs are unique across the installation", true
	}
	if e, ok := apierr.As(err); ok && e.Code == apierr.ValidationError {
		return e.Message, true
	}
	return "", false
}

func (s *Server) handleDashEndpointCreate(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	form := endpointFormOf(r)
	tn, err := s.catalogs.Load(r.Context(), d.project.ProjectID)
	if err != nil {
		return err
	}
	rec, err := s.sessions.EndpointRecord(r.Context(), tn, form.request(d.project.ProjectID))
	if err == nil {
		_, err = s.store.CreateEndpoint(r.Context(), rec)
	}
	if msg, ok := endpointProblem(err, form.Slug); ok {
		return s.renderEndpoints(w, r, d, http.StatusUnprocessableEntity, form, msg)
	}
	if err != nil {
		return err
	}
	return s.redirectFlash(w, r, "/dashboard/p/"+d.project.ProjectID+"/endpoints#endpoint-"+form.Slug,
		"Endpoint “"+form.Slug+"” created. Its URLs and client configuration are below.")
}

// projectEndpoint returns the endpoint of slug if it is the project's.
func (s *Server) projectEndpoint(r *http.Request, d *dashReq, slug string) (store.Endpoint, error) {
	e, err := s.store.EndpointBySlug(r.Context(), slug)
	if errors.Is(err, store.ErrNotFound) || (err == nil && e.ProjectID != d.project.ProjectID) {
		return store.Endpoint{}, apierr.New(apierr.NotFound, "no MCP endpoint %q in this project", slug)
	}
	return e, err
}

type endpointEditData struct {
	Old  string
	Form endpointForm
	View endpointView
}

func (s *Server) handleDashEndpointEdit(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	e, err := s.projectEndpoint(r, d, r.PathValue("slug"))
	if err != nil {
		return err
	}
	ev := s.endpointView(e)
	v := d.view("endpoints", "Edit endpoint "+e.Slug, endpointEditData{Old: e.Slug, Form: ev.Form, View: ev})
	return s.render(w, 0, "endpoint", v)
}

// handleDashEndpointUpdate replaces an endpoint's settings and, when the
// slug changed, renames it.
func (s *Server) handleDashEndpointUpdate(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	old, err := s.projectEndpoint(r, d, r.PathValue("slug"))
	if err != nil {
		return err
	}
	form := endpointFormOf(r)
	tn, err := s.catalogs.Load(r.Context(), d.project.ProjectID)
	if err != nil {
		return err
	}
	rec, err := s.sessions.EndpointRecord(r.Context(), tn, form.request(d.project.ProjectID))
	if err == nil && form.Slug != old.Slug {
		err = s.store.RenameEndpoint(r.Context(), d.project.ProjectID, old.Slug, form.Slug)
	}
	if err == nil {
		err = s.store.UpdateEndpoint(r.Context(), rec)
	}
	if msg, ok := endpointProblem(err, form.Slug); ok {
		v := d.view("endpoints", "Edit endpoint "+old.Slug, endpointEditData{Old: old.Slug, Form: form, View: s.endpointView(old)})
		v.Error = msg
		return s.render(w, http.StatusUnprocessableEntity, "endpoint", v)
	}
	if err != nil {
		return err
	}
	return s.redirectFlash(w, r, "/dashboard/p/"+d.project.ProjectID+"/endpoints#endpoint-"+form.Slug, "Endpoint “"+form.Slug+"” saved.")
}

func (s *Server) handleDashEndpointDelete(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	e, err := s.projectEndpoint(r, d, r.PathValue("slug"))
	if err != nil {
		return err
	}
	if err := s.store.DeleteEndpoint(r.Context(), e.Slug); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return s.redirectFlash(w, r, "/dashboard/p/"+d.project.ProjectID+"/endpoints", "Endpoint “"+e.Slug+"” deleted.")
}
