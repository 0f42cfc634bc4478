package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// PurposeClientSecret binds a sealed OAuth client secret to its auth
// config, as account.Service.SealClientSecret seals it.
const PurposeClientSecret = "auth_config.client_secret"

// OAuthServer is an MCP server to add whose users sign in with the OAuth
// it declares.
type OAuthServer struct {
	Store   *store.Store
	Keyring *secret.Keyring
	// Scope is the server's outbound scope (netguard.Guard.MCPServer):
	// discovery and registration go through it.
	Scope     *netguard.Scope
	ProjectID string
	URL       string
	// Headers are the server's static headers; SealedHeaders the same,
	// sealed (SealHeaders).
	Headers       map[string]string
	SealedHeaders []byte
	Options       MCPOptions
	// RedirectURI is the Connect page's callback ({base_url}/api/oauth/callback).
	RedirectURI string
	// ClientID and ClientSecret are a client the operator registered; an
	// empty ClientID registers one dynamically, unless the project has
	// one for the server already.
	ClientID, ClientSecret string
}

// OAuthAdded is what adding an OAuth MCP server did.
type OAuthAdded struct {
	Connector  *catalog.Connector
	AuthConfig store.AuthConfig
	// Registered: the client was registered dynamically now; Reused: the
	// project's existing client for the server was kept.
	Registered, Reused bool
	// ToolsPending: the server lists its tools only to a signed-in user.
	ToolsPending bool
}

// AuthConfigKey is the key of the auth config holding Switchboard's
// client at an MCP server's authorization server.
func AuthConfigKey(connectorID string) string { return connectorID + "_" + MethodID }

// AddOAuthMCP adds (or adds again) a project's MCP server that declares
// OAuth: it discovers the server's authorization server, registers a
// client there (RFC 7591) or takes the configured one, stores the client
// as the connector's auth config (the secret sealed), and stores the
// connector, with the tools the server lists without a token, if any.
func AddOAuthMCP(ctx context.Context, o OAuthServer) (OAuthAdded, error) {
	client := o.Scope.Client()
	disc, err := DiscoverOAuth(ctx, client, o.URL, o.Headers)
	if err != nil {
		return OAuthAdded{}, err
	}
	key := AuthConfigKey(o.Options.ID)
	old, err := o.Store.AuthConfigByKey(ctx, o.ProjectID, key)
	switch {
	case err == nil && old.ConnectorID != o.Options.ID:
		return OAuthAdded{}, fmt.Errorf("the project's auth config %q belongs to connector %s; choose another --id", key, old.ConnectorID)
	case err == nil && o.ClientID != "" && o.ClientID != old.ClientID:
		return OAuthAdded{}, fmt.Errorf("the server already has the OAuth client %s (auth config %s); delete it with 'switchboard admin authconfig delete' to configure another",
			old.ClientID, old.ID)
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return OAuthAdded{}, err
	}
	out := OAuthAdded{Reused: err == nil}
	var oc OAuthClient
	switch {
	case out.Reused:
		// The stored client stays; only how it authenticates is read again.
		oc = OAuthClient{ID: old.ClientID, AuthStyle: "header"}
		if len(old.ClientSecret) == 0 {
			oc.AuthStyle = "body"
		} else if plain, err := o.Keyring.Open(old.ClientSecret, secret.AAD(PurposeClientSecret, old.ID)); err == nil {
			oc = disc.Configured(old.ClientID, string(plain))
		}
	case o.ClientID != "":
		oc = disc.Configured(o.ClientID, o.ClientSecret)
	default:
		if oc, err = disc.Register(ctx, client, o.RedirectURI, "Switchboard"); err != nil {
			return OAuthAdded{}, err
		}
		out.Registered = true
	}
	// A server may list its tools without a token; most list them only
	// to a signed-in user, and then the first user's token lists them.
	discovered, derr := DiscoverMCP(ctx, client, o.URL, o.Headers, o.Options)
	out.ToolsPending = derr != nil
	name := o.Options.Name
	if discovered != nil {
		name = discovered.Name
	}
	if name == "" {
		name = o.Options.ID
	}
	con, err := NewOAuthMCP(o.URL, o.Options, disc.Method(oc, name), discovered)
	if err != nil {
		return OAuthAdded{}, err
	}
	if out.ToolsPending {
		// Keep the tools a user's token listed before, when the server is
		// added again.
		if pc, err := o.Store.GetProjectConnector(ctx, o.ProjectID, con.ID); err == nil && pc.Origin == catalog.OriginMCP {
			var prev catalog.Connector
			if json.Unmarshal(pc.Definition, &prev) == nil && len(prev.Tools) > 0 {
				con.Tools = prev.Tools
				con.Name, con.Description = prev.Name, prev.Description
				if err := catalog.CheckOwn(con); err != nil {
					return OAuthAdded{}, err
				}
			}
		}
	}
	def, err := json.Marshal(con)
	if err != nil {
		return OAuthAdded{}, err
	}
	if !out.Reused {
		ac := store.AuthConfig{ID: store.NewID(), ProjectID: o.ProjectID, ConnectorID: con.ID, Key: key, AuthMethodID: MethodID,
			AuthType: catalog.AuthOAuth2, ClientID: oc.ID}
		if oc.Secret != "" {
			if ac.ClientSecret, err = o.Keyring.Seal([]byte(oc.Secret), secret.AAD(PurposeClientSecret, ac.ID)); err != nil {
				return OAuthAdded{}, err
			}
		}
		if old, err = o.Store.CreateAuthConfig(ctx, ac); err != nil {
			return OAuthAdded{}, fmt.Errorf("store the server's OAuth client: %w", err)
		}
	}
	if err := o.Store.PutProjectConnector(ctx, store.ProjectConnector{ProjectID: o.ProjectID, ConnectorID: con.ID, Origin: catalog.OriginMCP,
		Source: o.URL, Definition: def, Headers: o.SealedHeaders}); err != nil {
		return OAuthAdded{}, err
	}
	out.Connector, out.AuthConfig = con, old
	return out, nil
}
