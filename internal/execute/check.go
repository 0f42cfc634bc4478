package execute

import (
	"slices"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
)

// Check records the request rules of POST /v1/tools/execute that a call
// breaks, next to any the caller already found (a body's type errors), so
// one answer lists them all.
func (c *Call) Check(issues *apierr.Issues) {
	if c.ToolID == "" {
		issues.Add(apierr.IssueRequired, []any{"toolId"}, "is required")
	}
	account.CheckUserID(c.UserID, "userId", true, issues)
	account.CheckConnectionID(c.ConnectionID, "connectionId", issues)
}

// Check records the request rules of POST /v1/tools/proxy that a call
// breaks; an empty method becomes GET.
func (c *ProxyCall) Check(issues *apierr.Issues) {
	if c.ConnectorID == "" {
		issues.Add(apierr.IssueRequired, []any{"connectorId"}, "is required")
	}
	account.CheckUserID(c.UserID, "userId", true, issues)
	if c.Endpoint == "" {
		issues.Add(apierr.IssueRequired, []any{"endpoint"}, "is required: a path relative to the connector's API base URL")
	}
	if c.Method == "" {
		c.Method = "GET"
	}
	if !slices.Contains(ProxyMethods, c.Method) {
		issues.Add(apierr.IssueInvalidValue, []any{"method"}, "must be one of GET, POST, PUT, PATCH, DELETE")
	}
	account.CheckConnectionID(c.ConnectionID, "connectionId", issues)
}
