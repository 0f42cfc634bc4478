package execute

import (
	"context"
	"encoding/json"
	"errors"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/upstream"
)

// callMCP runs a tool of a project's MCP server through the go-sdk client:
// the server's static headers, and the user's credential (when they
// connected one) as Authorization. A tool error is EXECUTION_ERROR, an
// unreachable server UPSTREAM_ERROR.
func (e *Executor) callMCP(ctx context.Context, c Call, tool *catalog.Tool, input map[string]any) (any, error) {
	con := tool.Connector()
	conn, err := e.accounts.Resolve(ctx, account.Use{ProjectID: c.ProjectID, UserID: c.UserID, ConnectorID: con.ID,
		ConnectionID: c.ConnectionID, Preferred: c.Preferred, AllowGlobal: c.AllowGlobal, ToolID: tool.ID})
	var ae *apierr.Error
	switch {
	case errors.As(err, &ae) && ae.Code == apierr.MissingConnection && hasNoneMethod(con):
		conn = store.Connection{} // the server takes calls without a user account
	case err != nil:
		return nil, err
	}
	pc, err := e.store.GetProjectConnector(ctx, c.ProjectID, con.ID)
	if err != nil {
		return nil, err
	}
	headers, err := upstream.OpenHeaders(e.keyring, c.ProjectID, con.ID, pc.Headers)
	if err != nil {
		return nil, apierr.New(apierr.CredentialUnavailable, "the static headers of MCP server %s cannot be read; add the server again", con.ID)
	}
	if conn.ID != "" {
		cred, err := e.accounts.Open(conn)
		if err != nil {
			return nil, err
		}
		switch {
		case cred.APIKey != "":
			headers["Authorization"] = "Bearer " + cred.APIKey
		case cred.AccessToken != "":
			headers["Authorization"] = "Bearer " + cred.AccessToken
		}
	}
	cs, err := upstream.Connect(ctx, e.client, con.API.BaseURL, con.API.Transport, headers)
	if err != nil {
		return nil, &apierr.Error{Code: apierr.UpstreamError, Upstream: &apierr.Upstream{}, Message: "could not reach MCP server " + con.ID}
	}
	defer cs.Close()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.UpstreamName, Arguments: input})
	if err != nil {
		return nil, &apierr.Error{Code: apierr.UpstreamError, Upstream: &apierr.Upstream{}, Message: "MCP server " + con.ID + " failed: " + err.Error()}
	}
	if conn.ID != "" {
		e.used.touch(conn.ID, e.now())
	}
	text := contentText(res.Content)
	if res.IsError {
		return nil, &apierr.Error{Code: apierr.ExecutionError, Upstream: &apierr.Upstream{Body: truncate([]byte(text), maxErrorBody)},
			Message: "MCP server " + con.ID + " reported an error from " + tool.UpstreamName + "; see error.upstream"}
	}
	if res.StructuredContent != nil {
		return res.StructuredContent, nil
	}
	if json.Valid([]byte(text)) && strings.TrimSpace(text) != "" {
		return json.RawMessage(text), nil
	}
	return text, nil
}

func hasNoneMethod(con *catalog.Connector) bool {
	for _, m := range con.AuthMethods {
		if m.Type == catalog.AuthNone {
			return true
		}
	}
	return false
}

// contentText joins the text parts of an MCP result.
func contentText(content []mcp.Content) string {
	var parts []string
	for _, c := range content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}
