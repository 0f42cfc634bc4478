package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/switchboard-gw/switchboard/internal/execlog"
	"github.com/switchboard-gw/switchboard/internal/execute"
)

// handleExecute is POST /v1/tools/execute.
func (s *Server) handleExecute(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		ToolID              string          `json:"toolId"`
		Input               json.RawMessage `json:"input"`
		UserID              *string         `json:"userId"`
		ConnectionID        string          `json:"connectionId"`
		AllowGlobalAccounts bool            `json:"allowGlobalAccounts"`
	}
	issues := s.decodeBody(w, r, &body)
	userID := "default" // the project-level user (docs/execution.md)
	if body.UserID != nil {
		userID = *body.UserID
	}
	tn := tenantOf(r)
	rec := origin(r).Entry(tn.ProjectID, userID)
	rec.Tool = body.ToolID
	if rec.Payloads = s.execlog.Payloads(tn.ProjectID); rec.Payloads {
		rec.Input = body.Input
	}
	call := execute.Call{
		ToolID: body.ToolID, Input: body.Input, UserID: userID,
		ConnectionID: body.ConnectionID, AllowGlobal: body.AllowGlobalAccounts,
	}
	if call.Check(&issues); issues.Err() != nil {
		s.logCall(&rec, nil, issues.Err())
		return issues.Err()
	}
	result, err := s.executor.ExecuteLogged(r.Context(), tn, call, &rec)
	s.logCall(&rec, result, err)
	if err != nil {
		return err
	}
	respond(w, http.StatusOK, result)
	return nil
}

// handleProxy is POST /v1/tools/proxy.
func (s *Server) handleProxy(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		ConnectorID         string            `json:"connectorId"`
		UserID              string            `json:"userId"`
		Endpoint            string            `json:"endpoint"`
		Method              string            `json:"method"`
		Query               map[string]any    `json:"query"`
		Body                json.RawMessage   `json:"body"`
		Headers             map[string]string `json:"headers"`
		ConnectionID        string            `json:"connectionId"`
		AllowGlobalAccounts bool              `json:"allowGlobalAccounts"`
	}
	issues := s.decodeBody(w, r, &body)
	tn := tenantOf(r)
	rec := origin(r).Entry(tn.ProjectID, body.UserID)
	rec.ConnectorID = body.ConnectorID
	if rec.Payloads = s.execlog.Payloads(tn.ProjectID); rec.Payloads {
		// The request as sent, without its headers (never logged).
		rec.Input = proxyInput{Method: body.Method, Endpoint: body.Endpoint, Query: body.Query, Body: body.Body}
	}
	call := execute.ProxyCall{
		ConnectorID: body.ConnectorID, UserID: body.UserID, Endpoint: body.Endpoint,
		Method: body.Method, Query: body.Query, Body: body.Body, Headers: body.Headers,
		ConnectionID: body.ConnectionID, AllowGlobal: body.AllowGlobalAccounts,
	}
	call.Check(&issues)
	rec.Tool = execlog.ProxyTool(call.Method, call.Endpoint)
	if issues.Err() != nil {
		s.logCall(&rec, nil, issues.Err())
		return issues.Err()
	}
	result, err := s.executor.ProxyLogged(r.Context(), tn, call, &rec)
	s.logCall(&rec, result, err)
	if err != nil {
		return err
	}
	respond(w, http.StatusOK, result)
	return nil
}
