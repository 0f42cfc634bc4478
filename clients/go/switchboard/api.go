package switchboard

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
)

func (p ListParams) values() url.Values {
	q := url.Values{}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("query", p.Query)
	set("category", p.Category)
	set("cursor", p.Cursor)
	set("connectorId", p.ConnectorID)
	set("dataClassification", p.DataClassification)
	set("view", p.View)
	if p.Limit > 0 {
		q.Set("limit", strconv.Itoa(p.Limit))
	}
	if p.Facets {
		q.Set("facets", "true")
	}
	if p.Popular {
		q.Set("popular", "true")
	}
	return q
}

// ListConnectors returns one page of the connectors the project can use.
// Popular, Query, Category, Facets, Limit and Cursor apply.
func (c *Client) ListConnectors(ctx context.Context, p ListParams) (Page[Connector], error) {
	p.ConnectorID, p.DataClassification, p.View = "", "", ""
	var page Page[Connector]
	err := c.do(ctx, http.MethodGet, "/v1/connectors", p.values(), nil, &page)
	return page, err
}

// GetConnector returns one connector; an unknown id is CONNECTOR_NOT_FOUND.
func (c *Client) GetConnector(ctx context.Context, id string) (ConnectorDetail, error) {
	return get[ConnectorDetail](ctx, c, "/v1/connectors/"+seg(id), nil)
}

// ListTools returns one page of the project's tools.
func (c *Client) ListTools(ctx context.Context, p ListParams) (Page[Tool], error) {
	p.Popular = false
	var page Page[Tool]
	err := c.do(ctx, http.MethodGet, "/v1/tools", p.values(), nil, &page)
	return page, err
}

// ExecuteTool runs one tool for one user outside any session and returns
// the tool's result. A call a policy holds for approval returns an
// *ApprovalRequiredError (see ExecuteToolWithApproval).
func (c *Client) ExecuteTool(ctx context.Context, r ExecuteRequest) (json.RawMessage, error) {
	return c.runCall(ctx, "/v1/tools/execute", r)
}

// Proxy sends a raw request to a connector's API with the user's
// credential and returns the provider's answer body. A call a policy
// holds for approval returns an *ApprovalRequiredError.
func (c *Client) Proxy(ctx context.Context, r ProxyRequest) (json.RawMessage, error) {
	return c.runCall(ctx, "/v1/tools/proxy", r)
}

// runCall posts a tool call: 200 is its result, 202 an approval to wait for.
func (c *Client) runCall(ctx context.Context, path string, body any) (json.RawMessage, error) {
	var d data[json.RawMessage]
	status, err := c.doStatus(ctx, http.MethodPost, path, nil, body, &d)
	if err != nil {
		return nil, err
	}
	if status == http.StatusAccepted {
		var held ApprovalRequiredError
		if err := json.Unmarshal(d.Data, &held.Approval); err != nil || held.Approval.ID == "" {
			return nil, fmt.Errorf("switchboard: POST %s: 202 without an approval: %s", path, d.Data)
		}
		return nil, &held
	}
	return d.Data, nil
}

// ListConnections returns the user's accounts and the project's global
// accounts, oldest first.
func (c *Client) ListConnections(ctx context.Context, userID string) ([]Connection, error) {
	return get[[]Connection](ctx, c, "/v1/connections", url.Values{"userId": {userID}})
}

// CreateConnection stores a credential the caller already holds as a new
// account.
func (c *Client) CreateConnection(ctx context.Context, r CreateConnectionRequest) (Connection, error) {
	return post[Connection](ctx, c, "/v1/connections", r)
}

// RenameConnection renames an account (NAME_TAKEN when the user has the name).
func (c *Client) RenameConnection(ctx context.Context, id, name string) (Connection, error) {
	return patch[Connection](ctx, c, "/v1/connections/"+seg(id), map[string]string{"name": name})
}

// RotateConnection replaces an account's credential; expectedRevision is
// the Revision being replaced (CONFLICT when stale).
func (c *Client) RotateConnection(ctx context.Context, id string, cred Credential, expectedRevision json.RawMessage) (Connection, error) {
	body := map[string]any{"credential": cred}
	if len(expectedRevision) > 0 {
		body["expectedRevision"] = expectedRevision
	}
	return patch[Connection](ctx, c, "/v1/connections/"+seg(id), body)
}

// SetDefaultConnection makes the account its user's default for its connector.
func (c *Client) SetDefaultConnection(ctx context.Context, id string) (Connection, error) {
	return post[Connection](ctx, c, "/v1/connections/"+seg(id)+"/default", nil)
}

// DeleteConnection removes an account, its credential and its triggers.
func (c *Client) DeleteConnection(ctx context.Context, id string) (Deleted, error) {
	return del[Deleted](ctx, c, "/v1/connections/"+seg(id))
}

// CreateConnectLink makes a single-use link to the hosted Connect page.
func (c *Client) CreateConnectLink(ctx context.Context, r ConnectLinkRequest) (ConnectLink, error) {
	return post[ConnectLink](ctx, c, "/v1/connect-links", r)
}

// ListTriggers returns the project's triggers.
func (c *Client) ListTriggers(ctx context.Context) ([]Trigger, error) {
	return get[[]Trigger](ctx, c, "/v1/triggers", nil)
}

// CreateTrigger subscribes to one event on one connection.
func (c *Client) CreateTrigger(ctx context.Context, r TriggerRequest) (Trigger, error) {
	return post[Trigger](ctx, c, "/v1/triggers", r)
}

// DeleteTrigger removes a trigger.
func (c *Client) DeleteTrigger(ctx context.Context, id string) (Deleted, error) {
	return del[Deleted](ctx, c, "/v1/triggers/"+seg(id))
}

// ListWebhooks returns the project's webhook endpoints.
func (c *Client) ListWebhooks(ctx context.Context) ([]Webhook, error) {
	return get[[]Webhook](ctx, c, "/v1/webhooks", nil)
}

// CreateWebhook registers an endpoint for trigger.fired events; the answer
// carries its signing secret, shown only this once.
func (c *Client) CreateWebhook(ctx context.Context, endpoint, description string) (Webhook, error) {
	return post[Webhook](ctx, c, "/v1/webhooks", map[string]string{"url": endpoint, "description": description})
}

// DeleteWebhook removes an endpoint.
func (c *Client) DeleteWebhook(ctx context.Context, id string) (Deleted, error) {
	return del[Deleted](ctx, c, "/v1/webhooks/"+seg(id))
}
