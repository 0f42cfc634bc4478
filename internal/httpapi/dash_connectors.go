package httpapi

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"path"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/upstream"
)

// The own connectors screen: the project's imported OpenAPI documents, MCP
// servers and extensions (as `admin connectors list`), an OpenAPI import
// by upload or URL with its added/changed/removed report (upstream.ImportIntoProject,
// as `admin openapi import`), and remove. Members and owners alike.

// maxDocument bounds an uploaded OpenAPI document (the request body limit
// applies first).
const maxDocument = 20 << 20

type connectorsData struct {
	Connectors []store.ProjectConnector
	Imported   *upstream.ProjectImport
	// Form is what was submitted, shown again with a problem.
	Form struct{ ID, Name, BaseURL, URL string }
}

func (s *Server) renderConnectors(w http.ResponseWriter, r *http.Request, d *dashReq, status int, data connectorsData, problem string) error {
	list, err := s.store.ListProjectConnectors(r.Context(), d.project.ProjectID)
	if err != nil {
		return err
	}
	data.Connectors = list
	v := d.view("connectors", "Own connectors", data)
	v.Flash, v.Error = s.takeFlash(w, r), problem
	return s.render(w, status, "connectors", v)
}

func (s *Server) handleDashConnectors(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	return s.renderConnectors(w, r, d, 0, connectorsData{}, "")
}

// handleDashOpenAPIImport imports an uploaded document (multipart field
// document) and shows the report in its answer.
func (s *Server) handleDashOpenAPIImport(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	var data connectorsData
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		return s.renderConnectors(w, r, d, http.StatusUnprocessableEntity, data, "the upload did not arrive whole; the dashboard takes documents up to the request body limit (1 MiB by default)")
	}
	data.Form.ID, data.Form.Name = strings.TrimSpace(r.FormValue("id")), strings.TrimSpace(r.FormValue("name"))
	data.Form.BaseURL = strings.TrimSpace(r.FormValue("baseUrl"))
	data.Form.URL = strings.TrimSpace(r.FormValue("url"))
	opts := upstream.ImportOptions{ID: data.Form.ID, Name: data.Form.Name, BaseURL: data.Form.BaseURL}
	var doc []byte
	var source, shown string
	if file, hdr, err := r.FormFile("document"); err == nil {
		doc, err = io.ReadAll(io.LimitReader(file, maxDocument))
		file.Close()
		if err != nil {
			return err
		}
		shown = path.Base(hdr.Filename)
		source = "upload: " + shown
	} else if data.Form.URL != "" && s.guard != nil {
		u, perr := url.Parse(data.Form.URL)
		if perr != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return s.renderConnectors(w, r, d, http.StatusUnprocessableEntity, data, "the document's URL must be an absolute http(s) URL")
		}
		if !catalog.ValidID(data.Form.ID) {
			return s.renderConnectors(w, r, d, http.StatusUnprocessableEntity, data, "the connector ID must be lowercase letters and digits joined by underscores")
		}
		// Fetched, and its plain-http base URL accepted, only in the
		// connector's outbound scope, as `admin openapi import URL`.
		scope := s.guard.Connector(data.Form.ID)
		if doc, err = upstream.FetchDocument(r.Context(), data.Form.URL, scope); err != nil {
			return s.renderConnectors(w, r, d, http.StatusUnprocessableEntity, data, "the document could not be fetched: "+err.Error())
		}
		opts.PlainHTTPFunc = func(ctx context.Context, host string) error { return scope.OpenedHost(ctx, host, nil) }
		source, shown = data.Form.URL, data.Form.URL
	} else {
		return s.renderConnectors(w, r, d, http.StatusUnprocessableEntity, data, "choose an OpenAPI document (JSON or YAML) to upload, or give its URL")
	}
	imp, err := upstream.ImportIntoProject(r.Context(), s.store, d.project.ProjectID, source, doc, opts)
	if ie, ok := errors.AsType[*upstream.ImportError](err); ok {
		return s.renderConnectors(w, r, d, http.StatusUnprocessableEntity, data, shown+" was not imported: "+ie.Error())
	}
	if err != nil {
		return err
	}
	return s.renderConnectors(w, r, d, http.StatusOK, connectorsData{Imported: &imp}, "")
}

func (s *Server) handleDashConnectorRemove(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	id := r.PathValue("id")
	err := s.store.DeleteProjectConnector(r.Context(), d.project.ProjectID, id)
	if errors.Is(err, store.ErrNotFound) {
		return apierr.New(apierr.NotFound, "the project has no connector %q", id)
	}
	if err != nil {
		return err
	}
	return s.redirectFlash(w, r, "/dashboard/p/"+d.project.ProjectID+"/connectors", "Connector "+id+" removed; its tools are gone from the project's catalog.")
}

// handleDashMCPAdd adds an MCP server (URL, name, static headers as
// "Name: value" lines, sealed) or, with refresh=1, discovers a stored one
// again, through its outbound scope, and shows the report.
func (s *Server) handleDashMCPAdd(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	var data connectorsData
	if s.guard == nil || s.keyring == nil {
		return apierr.New(apierr.NotFound, "adding MCP servers is not available on this server")
	}
	refresh := r.PathValue("id") != ""
	id := r.PathValue("id")
	if !refresh {
		id = strings.TrimSpace(r.PostFormValue("id"))
		data.Form.ID, data.Form.Name, data.Form.URL = id, strings.TrimSpace(r.PostFormValue("name")), strings.TrimSpace(r.PostFormValue("url"))
		if !catalog.ValidID(id) {
			return s.renderConnectors(w, r, d, http.StatusUnprocessableEntity, data, "the connector ID must be lowercase letters and digits joined by underscores")
		}
	}
	headers, err := upstream.ParseHeaders(strings.Split(r.PostFormValue("headers"), "\n"))
	if err == nil {
		client := s.guard.MCPServer(id).Client()
		var imp upstream.ProjectImport
		imp, err = upstream.AddMCPServer(r.Context(), s.store, s.keyring, client, d.project.ProjectID, upstream.MCPServerRequest{
			URL: data.Form.URL, Headers: headers, Refresh: refresh, Options: upstream.MCPOptions{ID: id, Name: data.Form.Name}})
		if err == nil {
			return s.renderConnectors(w, r, d, http.StatusOK, connectorsData{Imported: &imp}, "")
		}
	}
	if ie, ok := errors.AsType[*upstream.ImportError](err); ok {
		return s.renderConnectors(w, r, d, http.StatusUnprocessableEntity, data, "the MCP server "+id+" was not added: "+ie.Error())
	}
	return err
}
