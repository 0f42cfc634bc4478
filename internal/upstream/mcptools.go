package upstream

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// NewOAuthMCP is the connector of an MCP server whose users sign in with
// the OAuth it declares, before any user has: method m is its only auth
// method, and it has no tools until the first user's token lists them
// (ToolFetcher). Discovered tools, when the server lists them without a
// token, are kept.
func NewOAuthMCP(serverURL string, o MCPOptions, m catalog.AuthMethod, discovered *catalog.Connector) (*catalog.Connector, error) {
	if !catalog.ValidID(o.ID) {
		return nil, fmt.Errorf("the id %q must be lowercase letters and digits joined by underscores", o.ID)
	}
	con := discovered
	if con == nil {
		name := cmp.Or(o.Name, o.ID)
		if u, err := url.Parse(serverURL); err == nil && o.Name == "" {
			name = u.Host
		}
		con = &catalog.Connector{ID: o.ID, Name: name, Category: cmp.Or(o.Category, "developer-tools"), Origin: catalog.OriginMCP,
			API: catalog.API{BaseURL: serverURL}, Description: cmp.Or(o.Description, name) + " — a project's MCP server."}
		if len(con.Description) < 20 {
			con.Description = name + " — a project's MCP server."
		}
	}
	con.AuthMethods = []catalog.AuthMethod{m}
	con.ToolDataClass = cmp.Or(o.DataClass, catalog.ClassPII)
	if err := catalog.CheckOwn(con); err != nil {
		return nil, err
	}
	return con, nil
}

// Rediscover lists a stored MCP server's tools again and returns its new
// definition; the OAuth method of a server that declares one is kept
// (discovery does not learn it again).
func Rediscover(ctx context.Context, scope *netguard.Scope, pc store.ProjectConnector, headers map[string]string) (*catalog.Connector, error) {
	var old catalog.Connector
	_ = json.Unmarshal(pc.Definition, &old)
	old.Origin = catalog.OriginMCP
	con, err := DiscoverMCP(ctx, scope.Client(), pc.Source, headers, OptionsOf(pc.ConnectorID, pc.Definition))
	if err != nil {
		return nil, err
	}
	if old.OAuthMCP() {
		con.AuthMethods, con.ToolDataClass = old.AuthMethods, old.ToolDataClass
		if err := catalog.CheckOwn(con); err != nil {
			return nil, err
		}
	}
	return con, nil
}

// ToolFetcher lists the tools of a project's MCP server that declares
// OAuth with a user's token: such a server may list its tools only to a
// signed-in user, so its list is fetched each time a user connects.
type ToolFetcher struct {
	Store   *store.Store
	Keyring *secret.Keyring
	Guard   *netguard.Guard
}

// ErrNotOAuthMCP is returned for a connector that is not a project's MCP
// server declaring OAuth.
var ErrNotOAuthMCP = errors.New("upstream: not an MCP server that declares OAuth")

// Fetch lists the tools of the project's server connectorID with the
// access token and stores a changed list (which bumps the project's
// catalog version). The token goes only to the server's origin.
func (f *ToolFetcher) Fetch(ctx context.Context, projectID, connectorID, accessToken string) error {
	pc, err := f.Store.GetProjectConnector(ctx, projectID, connectorID)
	if err != nil {
		return err
	}
	var old catalog.Connector
	_ = json.Unmarshal(pc.Definition, &old)
	old.Origin = pc.Origin
	if !old.OAuthMCP() {
		return ErrNotOAuthMCP
	}
	headers, err := OpenHeaders(f.Keyring, projectID, connectorID, pc.Headers)
	if err != nil {
		return fmt.Errorf("upstream: open the headers of MCP server %s: %w", connectorID, err)
	}
	headers["Authorization"] = "Bearer " + accessToken
	con, err := Rediscover(ctx, f.Guard.MCPServer(connectorID), pc, headers)
	if err != nil {
		return err
	}
	def, err := json.Marshal(con)
	if err != nil {
		return err
	}
	if SameJSON(pc.Definition, def) {
		return nil
	}
	pc.Definition = def
	return f.Store.PutProjectConnector(ctx, pc)
}
