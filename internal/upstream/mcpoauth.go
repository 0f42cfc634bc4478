package upstream

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// MCPOAuth is what an MCP server says about signing in to it: the
// resource its tokens are for (RFC 9728 protected-resource metadata) and
// its authorization server's metadata (RFC 8414, or OpenID Connect
// discovery).
type MCPOAuth struct {
	// Resource is the resource indicator (RFC 8707) tokens are asked for.
	Resource string
	// Server is the authorization server's metadata.
	Server *oauthex.AuthServerMeta
	// Scopes are the scopes a sign-in asks for: those the server's 401
	// challenge names, else those its metadata supports.
	Scopes []string
}

// ErrNoOAuth says an MCP server declares no OAuth at all.
var ErrNoOAuth = errors.New("the MCP server declares no OAuth: it did not answer 401 with a WWW-Authenticate challenge and publishes no protected-resource metadata")

// DiscoverOAuth learns how users sign in to an MCP server: it sends the
// server an unauthenticated initialize request and reads the 401
// challenge's resource_metadata (and scope), fetches the
// protected-resource metadata there or, without one, at the well-known
// URLs (path-inserted, then the root), then the metadata of the first
// authorization server it names. Every request goes through client (the
// server's outbound scope); the probe keeps to the server's origin with
// the static headers, the metadata requests carry no credential.
func DiscoverOAuth(ctx context.Context, client *http.Client, serverURL string, headers map[string]string) (*MCPOAuth, error) {
	origin, err := url.Parse(serverURL)
	if err != nil || (origin.Scheme != "https" && origin.Scheme != "http") || origin.Host == "" {
		return nil, fmt.Errorf("the MCP server URL %q must be an http(s) URL", serverURL)
	}
	challenges, err := probe(ctx, client, origin, headers)
	if err != nil {
		return nil, err
	}
	var metaURL string
	var scopes []string
	for _, c := range challenges {
		metaURL = cmp.Or(metaURL, c.Params["resource_metadata"])
		if c.Scheme == "bearer" && c.Params["scope"] != "" && scopes == nil {
			scopes = strings.Fields(c.Params["scope"])
		}
	}
	prm, err := protectedResource(ctx, client, metaURL, origin)
	if err != nil {
		return nil, err
	}
	if prm == nil {
		if challenges == nil { // no 401: the server asks for no sign-in
			return nil, ErrNoOAuth
		}
		// The 2025-03-26 revision of MCP: the server's origin is its own
		// authorization server.
		root := *origin
		root.Path, root.RawQuery, root.Fragment = "", "", ""
		prm = &oauthex.ProtectedResourceMetadata{Resource: serverURL, AuthorizationServers: []string{root.String()}}
	}
	if len(prm.AuthorizationServers) == 0 {
		return nil, errors.New("the MCP server's protected-resource metadata names no authorization server")
	}
	issuer := prm.AuthorizationServers[0]
	meta, err := auth.GetAuthServerMetadata(ctx, issuer, client)
	if err != nil {
		return nil, fmt.Errorf("the authorization server %s: %s", issuer, Describe(err))
	}
	if meta == nil {
		return nil, fmt.Errorf("the authorization server %s publishes no metadata (RFC 8414 or OpenID Connect discovery)", issuer)
	}
	if !slices.Contains(meta.CodeChallengeMethodsSupported, "S256") {
		return nil, fmt.Errorf("the authorization server %s does not support PKCE with S256, which Switchboard requires", issuer)
	}
	if meta.AuthorizationEndpoint == "" || meta.TokenEndpoint == "" {
		return nil, fmt.Errorf("the authorization server %s names no authorization or token endpoint", issuer)
	}
	if len(meta.ResponseTypesSupported) > 0 && !slices.Contains(meta.ResponseTypesSupported, "code") {
		return nil, fmt.Errorf("the authorization server %s does not offer the authorization code flow", issuer)
	}
	if scopes == nil {
		scopes = prm.ScopesSupported
	}
	return &MCPOAuth{Resource: prm.Resource, Server: meta, Scopes: scopes}, nil
}

// probe sends an unauthenticated initialize request and returns the
// challenges of a 401 answer (none for any other answer).
func probe(ctx context.Context, client *http.Client, origin *url.URL, headers map[string]string) ([]oauthex.Challenge, error) {
	body := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},` +
		`"clientInfo":{"name":"switchboard","version":"1.0.0"}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, origin.String(), bytes.NewReader([]byte(body)))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	hc := &http.Client{Transport: headerTransport{origin: origin, headers: headers, next: client.Transport},
		Timeout: client.Timeout, CheckRedirect: client.CheckRedirect}
	resp, err := hc.Do(req)
	if err != nil {
		return nil, fmt.Errorf("could not reach the MCP server: %s", Describe(err))
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		return nil, nil
	}
	cs, err := oauthex.ParseWWWAuthenticate(resp.Header.Values("WWW-Authenticate"))
	if err != nil {
		return nil, fmt.Errorf("the MCP server's WWW-Authenticate challenge cannot be read: %w", err)
	}
	if cs == nil {
		cs = []oauthex.Challenge{} // a 401 without a challenge still asks for a sign-in
	}
	return cs, nil
}

// protectedResource fetches the server's protected-resource metadata: at
// the challenge's URL, else at the path-inserted and the root well-known
// URLs, as the MCP authorization specification orders them. The metadata
// must name the resource it was fetched for (RFC 9728, section 3.3). It
// returns nil when none of them has any.
func protectedResource(ctx context.Context, client *http.Client, metaURL string, server *url.URL) (*oauthex.ProtectedResourceMetadata, error) {
	type candidate struct{ url, resource string }
	var tries []candidate
	if metaURL != "" {
		tries = append(tries, candidate{metaURL, server.String()})
	}
	u := *server
	u.RawQuery, u.Fragment = "", ""
	if p := strings.TrimLeft(server.Path, "/"); p != "" {
		u.Path = "/.well-known/oauth-protected-resource/" + p
		tries = append(tries, candidate{u.String(), server.String()})
	}
	root := u
	root.Path = ""
	u.Path = "/.well-known/oauth-protected-resource"
	tries = append(tries, candidate{u.String(), root.String()})
	var firstErr error
	for _, c := range tries {
		prm, err := oauthex.GetProtectedResourceMetadata(ctx, c.url, c.resource, client)
		if err == nil && prm != nil {
			return prm, nil
		}
		if err != nil && firstErr == nil && c.url == metaURL {
			firstErr = err
		}
	}
	if firstErr != nil {
		return nil, fmt.Errorf("the protected-resource metadata the MCP server names cannot be used: %s", Describe(firstErr))
	}
	return nil, nil
}

// OAuthClient is Switchboard's client at an MCP server's authorization
// server: registered dynamically (RFC 7591) or configured by the operator.
type OAuthClient struct {
	ID     string
	Secret string
	// AuthStyle is how the token endpoint takes the client: "header"
	// (client_secret_basic) or "body" (client_secret_post, or a public
	// client's id alone).
	AuthStyle string
	// Registered says the client was registered now, dynamically.
	Registered bool
}

// Configured returns the operator's client, with the token endpoint
// authentication the server supports: a client without a secret is
// public (its id goes in the body, PKCE protects the code).
func (o *MCPOAuth) Configured(id, secret string) OAuthClient {
	c := OAuthClient{ID: id, Secret: secret, AuthStyle: "header"}
	supported := o.Server.TokenEndpointAuthMethodsSupported
	if secret == "" || len(supported) > 0 && !slices.Contains(supported, "client_secret_basic") && slices.Contains(supported, "client_secret_post") {
		c.AuthStyle = "body"
	}
	return c
}

// Register registers Switchboard as a client of the authorization server
// (RFC 7591) with the Connect page's callback as its only redirect URI.
// A server without a registration endpoint, or one that refuses, is an
// error that tells the operator to configure a client instead.
func (o *MCPOAuth) Register(ctx context.Context, client *http.Client, redirectURI, clientName string) (OAuthClient, error) {
	if o.Server.RegistrationEndpoint == "" {
		return OAuthClient{}, fmt.Errorf("the authorization server %s does not offer dynamic client registration; "+
			"register a client there with the redirect URI %s and add the server with --client-id (and --client-secret)", o.Server.Issuer, redirectURI)
	}
	method := "client_secret_basic"
	if supported := o.Server.TokenEndpointAuthMethodsSupported; len(supported) > 0 && !slices.Contains(supported, method) {
		switch {
		case slices.Contains(supported, "client_secret_post"):
			method = "client_secret_post"
		case slices.Contains(supported, "none"):
			method = "none"
		default:
			return OAuthClient{}, fmt.Errorf("the authorization server %s authenticates clients only with %s, which Switchboard does not support; "+
				"add the server with --client-id and --client-secret", o.Server.Issuer, strings.Join(supported, ", "))
		}
	}
	meta := &oauthex.ClientRegistrationMetadata{RedirectURIs: []string{redirectURI}, TokenEndpointAuthMethod: method,
		GrantTypes: []string{"authorization_code", "refresh_token"}, ResponseTypes: []string{"code"}, ClientName: clientName,
		Scope: strings.Join(o.Scopes, " ")}
	resp, err := oauthex.RegisterClient(ctx, o.Server.RegistrationEndpoint, meta, client)
	if err != nil {
		var re *oauthex.ClientRegistrationError
		if errors.As(err, &re) {
			msg := re.ErrorCode
			if re.ErrorDescription != "" {
				msg += ": " + re.ErrorDescription
			}
			return OAuthClient{}, fmt.Errorf("the authorization server %s refused to register Switchboard as a client (%s); "+
				"register a client there with the redirect URI %s and add the server with --client-id (and --client-secret)", o.Server.Issuer, msg, redirectURI)
		}
		// The SDK's other errors may quote the answer, which can hold a
		// client secret: only the request's failure is said.
		var ue *url.Error
		if errors.As(err, &ue) {
			return OAuthClient{}, fmt.Errorf("dynamic client registration at %s failed: %s", o.Server.RegistrationEndpoint, Describe(ue))
		}
		return OAuthClient{}, fmt.Errorf("dynamic client registration at %s failed: the authorization server's answer was not a usable registration", o.Server.RegistrationEndpoint)
	}
	c := OAuthClient{ID: resp.ClientID, Secret: resp.ClientSecret, AuthStyle: "header", Registered: true}
	if method != "client_secret_basic" || c.Secret == "" {
		c.AuthStyle = "body"
	}
	return c, nil
}

// MethodID is the id of the auth method of an MCP server that declares OAuth.
const MethodID = "oauth"

// Method is the auth method users of the server sign in with: the
// authorization code flow with PKCE (S256) at the server's authorization
// server, tokens bound to its resource and refreshed when they expire.
func (o *MCPOAuth) Method(c OAuthClient, serverName string) catalog.AuthMethod {
	return catalog.AuthMethod{ID: MethodID, Type: catalog.AuthOAuth2, Name: "Sign in to " + serverName,
		Description: "Signs you in at the server's own authorization server; the server's tools then run as you.",
		OAuth2: &catalog.OAuth2{AuthorizeURL: o.Server.AuthorizationEndpoint, TokenURL: o.Server.TokenEndpoint, Scopes: o.Scopes,
			PKCE: true, Refresh: true, TokenAuthStyle: c.AuthStyle, Resource: o.Resource}}
}
