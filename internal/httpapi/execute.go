package httpapi

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/execlog"
	"github.com/switchboard-gw/switchboard/internal/execute"
	"github.com/switchboard-gw/switchboard/internal/policy"
	"github.com/switchboard-gw/switchboard/internal/redact"
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
	if s.execlog.Open(&rec); rec.Payloads {
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
	call.Policy.APIKeyID = rec.APIKeyID
	result, err := s.executor.ExecuteLogged(r.Context(), tn, call, &rec)
	result, err = s.redactREST(r, &rec, result, err)
	if held, ok := errors.AsType[*policy.ApprovalRequiredError](err); ok {
		// An ask rule held the call (docs/policies.md): 202 with the
		// approval; the same call, sent again once it is approved, runs.
		respond(w, http.StatusAccepted, held.Approval)
		return nil
	}
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
	if s.execlog.Open(&rec); rec.Payloads {
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
	call.Policy.APIKeyID = rec.APIKeyID
	result, err := s.executor.ProxyLogged(r.Context(), tn, call, &rec)
	result, err = s.redactREST(r, &rec, result, err)
	if held, ok := errors.AsType[*policy.ApprovalRequiredError](err); ok {
		respond(w, http.StatusAccepted, held.Approval)
		return nil
	}
	if err != nil {
		return err
	}
	respond(w, http.StatusOK, result)
	return nil
}

// redactREST logs a direct REST call (execute, proxy) and returns what its
// caller is answered. With the project's redaction rules, the log keeps
// the redacted answer; the caller gets it redacted only when the rules
// say restExecute (docs/redaction.md): a direct call is the application's
// own, not a model's.
func (s *Server) redactREST(r *http.Request, rec *execlog.Entry, result any, err error) (any, error) {
	set, rerr := s.redact.For(r.Context(), tenantOf(r))
	if rerr != nil {
		s.logCall(rec, nil, rerr)
		return nil, rerr
	}
	if set == nil {
		s.logCall(rec, result, err)
		return result, err
	}
	red, redErr := result, err
	if err == nil {
		if rec.Payloads || set.RESTExecute {
			red = set.Value(result)
		}
	} else {
		redErr = redactError(set, err)
	}
	s.logCall(rec, red, redErr)
	if set.RESTExecute {
		return red, redErr
	}
	return result, err
}

// redactError returns a copy of an API error with its message and quoted
// provider body redacted; other errors are shown as INTERNAL_ERROR anyway.
func redactError(set *redact.Set, err error) error {
	e, ok := apierr.As(err)
	if !ok {
		return err
	}
	c := *e
	c.Message = set.Text(e.Message)
	if e.Upstream != nil {
		up := *e.Upstream
		up.Body = set.Text(up.Body)
		c.Upstream = &up
	}
	return &c
}
