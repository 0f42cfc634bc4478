package httpapi

import (
	"encoding/json"
	"net/http"
	"slices"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
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
	if body.ToolID == "" {
		issues.Add(apierr.IssueRequired, []any{"toolId"}, "is required")
	}
	userID := "default"
	if body.UserID != nil {
		userID = *body.UserID
	}
	account.CheckUserID(userID, "userId", true, &issues)
	checkUUID(body.ConnectionID, "connectionId", &issues)
	if err := issues.Err(); err != nil {
		return err
	}
	result, err := s.executor.Execute(r.Context(), execute.Call{
		ProjectID: projectID(r.Context()), ToolID: body.ToolID, Input: body.Input, UserID: userID,
		ConnectionID: body.ConnectionID, AllowGlobal: body.AllowGlobalAccounts,
	})
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
	if body.ConnectorID == "" {
		issues.Add(apierr.IssueRequired, []any{"connectorId"}, "is required")
	}
	account.CheckUserID(body.UserID, "userId", true, &issues)
	if body.Endpoint == "" {
		issues.Add(apierr.IssueRequired, []any{"endpoint"}, "is required: a path relative to the connector's API base URL")
	}
	if body.Method == "" {
		body.Method = "GET"
	}
	if !slices.Contains(execute.ProxyMethods, body.Method) {
		issues.Add(apierr.IssueInvalidValue, []any{"method"}, "must be one of GET, POST, PUT, PATCH, DELETE")
	}
	checkUUID(body.ConnectionID, "connectionId", &issues)
	if err := issues.Err(); err != nil {
		return err
	}
	result, err := s.executor.Proxy(r.Context(), execute.ProxyCall{
		ProjectID: projectID(r.Context()), ConnectorID: body.ConnectorID, UserID: body.UserID, Endpoint: body.Endpoint,
		Method: body.Method, Query: body.Query, Body: body.Body, Headers: body.Headers,
		ConnectionID: body.ConnectionID, AllowGlobal: body.AllowGlobalAccounts,
	})
	if err != nil {
		return err
	}
	respond(w, http.StatusOK, result)
	return nil
}
