package upstream

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/secret"
)

// MCPOptions describe a project's MCP server.
type MCPOptions struct {
	ID          string
	Name        string
	Description string
	Category    string
	// DataClass classifies every tool; pii when empty.
	DataClass string
}

// headerTransport adds fixed headers (the operator's static headers, the
// user's token) to the requests of an MCP client, and refuses any request
// to an origin other than the server's: neither a redirect nor an HTTP+SSE
// endpoint event may send the credential, or the user's tool arguments,
// anywhere else. Redirects follow netguard's rules (no https to http), and
// every hop is dialled through the guarded transport.
type headerTransport struct {
	origin  *url.URL
	headers map[string]string
	next    http.RoundTripper
	// refuse401 turns a 401 answer into ErrUnauthorized, so a caller can
	// tell a refused (or missing) credential from other failures.
	refuse401 bool
}

// ErrUnauthorized is an MCP server's 401 answer: the credential the
// request carried was refused (an expired or revoked token), or the
// server wants one.
var ErrUnauthorized = errors.New("the MCP server answered 401 Unauthorized")

// errOtherOrigin refuses a request an MCP server sent elsewhere.
var errOtherOrigin = errors.New("the MCP server sent the client to another origin, which Switchboard does not follow")

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	if !netguard.SameOrigin(r.URL, h.origin) {
		if r.Body != nil {
			_ = r.Body.Close()
		}
		return nil, errOtherOrigin
	}
	r = r.Clone(r.Context())
	for k, v := range h.headers {
		r.Header.Set(k, v)
	}
	resp, err := h.next.RoundTrip(r)
	if err == nil && h.refuse401 && resp.StatusCode == http.StatusUnauthorized {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		_ = resp.Body.Close()
		return nil, ErrUnauthorized
	}
	return resp, err
}

// Describe is an MCP client error without the URLs it may carry (a
// server URL can hold a token in its query), for logs and responses.
func Describe(err error) string {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Op + " request failed: " + ue.Err.Error()
	}
	return err.Error()
}

// Connect opens a client session to an MCP server with the shared
// (guarded) client and the given headers, over Streamable HTTP or, when
// transport is catalog.TransportSSE, the older HTTP+SSE transport.
func Connect(ctx context.Context, client *http.Client, serverURL, transport string, headers map[string]string) (*mcp.ClientSession, error) {
	origin, err := url.Parse(serverURL)
	if err != nil {
		return nil, errors.New("the MCP server URL is not a valid URL")
	}
	hc := &http.Client{Transport: headerTransport{origin: origin, headers: headers, next: client.Transport, refuse401: true},
		Timeout: client.Timeout, CheckRedirect: client.CheckRedirect}
	c := mcp.NewClient(&mcp.Implementation{Name: "switchboard", Version: "1.0.0"}, nil)
	if transport == catalog.TransportSSE {
		return c.Connect(ctx, &mcp.SSEClientTransport{Endpoint: serverURL, HTTPClient: hc}, nil)
	}
	return c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: serverURL, HTTPClient: hc, MaxRetries: -1,
		DisableStandaloneSSE: true}, nil)
}

// connectAny tries Streamable HTTP and then, as the MCP specification's
// backwards-compatibility rule says, the HTTP+SSE transport. It returns
// the transport that worked.
func connectAny(ctx context.Context, client *http.Client, serverURL string, headers map[string]string) (*mcp.ClientSession, string, error) {
	cs, err := Connect(ctx, client, serverURL, "", headers)
	if err == nil {
		return cs, "", nil
	}
	if ctx.Err() != nil {
		return nil, "", err
	}
	cs, sseErr := Connect(ctx, client, serverURL, catalog.TransportSSE, headers)
	if sseErr != nil {
		return nil, "", err // the Streamable HTTP error says more
	}
	return cs, catalog.TransportSSE, nil
}

// DiscoverMCP lists an MCP server's tools and returns the connector they
// make: tool ids <connector>_<tool name> in snake case, effects from the
// tools' annotations, every tool classified as the options say.
func DiscoverMCP(ctx context.Context, client *http.Client, serverURL string, headers map[string]string, o MCPOptions) (*catalog.Connector, error) {
	if !catalog.ValidID(o.ID) {
		return nil, fmt.Errorf("the id %q must be lowercase letters and digits joined by underscores", o.ID)
	}
	u, err := url.Parse(serverURL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
		return nil, fmt.Errorf("the MCP server URL %q must be an http(s) URL", serverURL)
	}
	cs, transport, err := connectAny(ctx, client, serverURL, headers)
	if err != nil {
		return nil, fmt.Errorf("could not connect to the MCP server: %w", err)
	}
	defer cs.Close()
	con := &catalog.Connector{
		ID: o.ID, Name: cmp.Or(o.Name, o.ID), Category: cmp.Or(o.Category, "developer-tools"), Origin: catalog.OriginMCP,
		API: catalog.API{BaseURL: serverURL, Transport: transport},
		AuthMethods: []catalog.AuthMethod{
			{ID: "api_key", Type: catalog.AuthAPIKey, Name: "Access token", Description: "Sent to the server as Authorization: Bearer.",
				APIKey: &catalog.Placement{In: "header", Name: "Authorization", Format: "Bearer {value}"}},
			{ID: "none", Type: catalog.AuthNone, Name: "No account"},
		},
	}
	if init := cs.InitializeResult(); init != nil && init.ServerInfo != nil {
		con.Name = cmp.Or(o.Name, init.ServerInfo.Title, init.ServerInfo.Name, o.ID)
		con.Description = cmp.Or(o.Description, init.Instructions)
	}
	if len(con.Description) < 20 {
		con.Description = cmp.Or(o.Description, con.Name) + " — a project's MCP server."
	}
	seen := map[string]bool{}
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("could not list the MCP server's tools: %w", err)
		}
		tool, err := mcpTool(o, t)
		if err != nil {
			return nil, err
		}
		for n := 2; seen[tool.ID]; n++ {
			tool.ID = truncateID(fmt.Sprintf("%s_%d", strings.TrimSuffix(tool.ID, fmt.Sprintf("_%d", n-1)), n))
		}
		seen[tool.ID] = true
		con.Tools = append(con.Tools, tool)
	}
	if len(con.Tools) == 0 {
		return nil, fmt.Errorf("the MCP server offers no tools")
	}
	if err := catalog.CheckOwn(con); err != nil {
		return nil, err
	}
	return con, nil
}

func mcpTool(o MCPOptions, t *mcp.Tool) (*catalog.Tool, error) {
	schema, err := json.Marshal(t.InputSchema)
	if err != nil || string(schema) == "null" {
		schema = []byte(`{"type":"object","properties":{}}`)
	}
	effect := catalog.EffectWrite
	if a := t.Annotations; a != nil {
		switch {
		case a.ReadOnlyHint:
			effect = catalog.EffectRead
		case a.DestructiveHint != nil && *a.DestructiveHint:
			effect = catalog.EffectDestructive
		}
	}
	desc := strings.TrimSpace(t.Description)
	if len(desc) < 30 { // the catalog wants a description a model can choose by
		if desc != "" && !strings.HasSuffix(desc, ".") {
			desc += "."
		}
		desc = strings.TrimSpace(desc + " Runs the " + t.Name + " tool of this MCP server.")
	}
	class := o.DataClass
	if class == "" {
		class = catalog.ClassPII
	}
	name := cmp.Or(t.Title, t.Name)
	if t.Annotations != nil && t.Annotations.Title != "" {
		name = t.Annotations.Title
	}
	return &catalog.Tool{ID: truncateID(o.ID + "_" + snake(t.Name)), Name: name, Description: desc, Effect: effect,
		DataClassification: class, InputSchema: schema, Handler: "mcp", UpstreamName: t.Name, RequiredScopes: []string{}}, nil
}

// PurposeHeaders binds an MCP server's sealed static headers to it.
const PurposeHeaders = "project_connector.headers"

// SealHeaders seals an MCP server's static headers for one project connector.
func SealHeaders(ring *secret.Keyring, projectID, connectorID string, headers map[string]string) ([]byte, error) {
	if len(headers) == 0 {
		return nil, nil
	}
	b, err := json.Marshal(headers)
	if err != nil {
		return nil, err
	}
	return ring.Seal(b, secret.AAD(PurposeHeaders, projectID+"/"+connectorID))
}

// OpenHeaders opens what SealHeaders sealed.
func OpenHeaders(ring *secret.Keyring, projectID, connectorID string, sealed []byte) (map[string]string, error) {
	out := map[string]string{}
	if len(sealed) == 0 {
		return out, nil
	}
	b, err := ring.Open(sealed, secret.AAD(PurposeHeaders, projectID+"/"+connectorID))
	if err != nil {
		return nil, err
	}
	return out, json.Unmarshal(b, &out)
}
