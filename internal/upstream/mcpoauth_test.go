package upstream

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/netguard"
)

// oauthFake is an MCP server whose discovery documents each case sets.
type oauthFake struct {
	srv *httptest.Server
	// challenge is the 401's WWW-Authenticate ("" answers 401 without one;
	// "-" answers 200, no sign-in asked).
	challenge string
	// docs are the JSON documents served by path.
	docs map[string]any
}

func newOAuthFake(t *testing.T) *oauthFake {
	t.Helper()
	f := &oauthFake{docs: map[string]any{}}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/mcp" {
			if f.challenge == "-" {
				w.WriteHeader(http.StatusOK)
				return
			}
			if f.challenge != "" {
				w.Header().Set("WWW-Authenticate", strings.ReplaceAll(f.challenge, "{url}", f.srv.URL))
			}
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		doc, ok := f.docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		b, _ := json.Marshal(doc)
		_, _ = w.Write([]byte(strings.ReplaceAll(string(b), "{url}", f.srv.URL)))
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func asMeta(extra map[string]any) map[string]any {
	m := map[string]any{"issuer": "{url}/as", "authorization_endpoint": "{url}/as/authorize", "token_endpoint": "{url}/as/token",
		"response_types_supported": []string{"code"}, "code_challenge_methods_supported": []string{"S256"}}
	for k, v := range extra {
		m[k] = v
	}
	return m
}

// TestDiscoverOAuth_FindsTheAuthorizationServer: the protected-resource
// metadata comes from the challenge, else from the path-inserted or the
// root well-known URL, else the server's origin is its own authorization
// server (the 2025-03-26 revision); scopes come from the challenge, else
// the metadata; a server that asks for no sign-in, or an authorization
// server without S256, is refused with a reason.
func TestDiscoverOAuth_FindsTheAuthorizationServer(t *testing.T) {
	t.Parallel()
	client := netguard.New(netguard.Options{AllowLoopback: true}).Client()
	for _, c := range []struct {
		name      string
		challenge string
		docs      map[string]any
		resource  string // with {url}
		issuer    string
		scopes    []string
		err       string
	}{{
		name: "challenge", challenge: `Bearer resource_metadata="{url}/meta", scope="a b"`,
		docs: map[string]any{"/meta": map[string]any{"resource": "{url}/mcp", "authorization_servers": []string{"{url}/as"}, "scopes_supported": []string{"c"}},
			"/.well-known/oauth-authorization-server/as": asMeta(nil)},
		resource: "{url}/mcp", issuer: "{url}/as", scopes: []string{"a", "b"},
	}, {
		name: "path-inserted well-known", challenge: `Bearer`,
		docs: map[string]any{"/.well-known/oauth-protected-resource/mcp": map[string]any{"resource": "{url}/mcp", "authorization_servers": []string{"{url}/as"},
			"scopes_supported": []string{"c"}},
			"/.well-known/openid-configuration/as": asMeta(nil)},
		resource: "{url}/mcp", issuer: "{url}/as", scopes: []string{"c"},
	}, {
		name: "root well-known", challenge: ``,
		docs: map[string]any{"/.well-known/oauth-protected-resource": map[string]any{"resource": "{url}", "authorization_servers": []string{"{url}/as"}},
			"/as/.well-known/openid-configuration": asMeta(nil)},
		resource: "{url}", issuer: "{url}/as",
	}, {
		name: "the origin is the authorization server", challenge: `Bearer`,
		docs:     map[string]any{"/.well-known/oauth-authorization-server": asMeta(map[string]any{"issuer": "{url}"})},
		resource: "{url}/mcp", issuer: "{url}",
	}, {
		name: "a bare 401, the origin is the authorization server", challenge: ``,
		docs:     map[string]any{"/.well-known/openid-configuration": asMeta(map[string]any{"issuer": "{url}"})},
		resource: "{url}/mcp", issuer: "{url}",
	}, {
		name: "metadata for another resource", challenge: `Bearer resource_metadata="{url}/meta"`,
		docs: map[string]any{"/meta": map[string]any{"resource": "https://elsewhere.example/mcp", "authorization_servers": []string{"{url}/as"}}},
		err:  "protected-resource metadata the MCP server names cannot be used",
	}, {
		name: "no sign-in asked", challenge: "-",
		err: "declares no OAuth",
	}, {
		name: "no S256", challenge: `Bearer resource_metadata="{url}/meta"`,
		docs: map[string]any{"/meta": map[string]any{"resource": "{url}/mcp", "authorization_servers": []string{"{url}/as"}},
			"/.well-known/oauth-authorization-server/as": asMeta(map[string]any{"code_challenge_methods_supported": []string{"plain", "S384"}})},
		err: "does not support PKCE with S256",
	}, {
		name: "no authorization server metadata", challenge: `Bearer resource_metadata="{url}/meta"`,
		docs: map[string]any{"/meta": map[string]any{"resource": "{url}/mcp", "authorization_servers": []string{"{url}/as"}}},
		err:  "publishes no metadata",
	}} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			f := newOAuthFake(t)
			f.challenge, f.docs = c.challenge, c.docs
			got, err := DiscoverOAuth(context.Background(), client, f.srv.URL+"/mcp", nil)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			fill := func(s string) string { return strings.ReplaceAll(s, "{url}", f.srv.URL) }
			if got.Resource != fill(c.resource) || got.Server.Issuer != fill(c.issuer) || !slices.Equal(got.Scopes, c.scopes) {
				t.Fatalf("resource %s, issuer %s, scopes %v", got.Resource, got.Server.Issuer, got.Scopes)
			}
		})
	}
}

// TestOAuthClient_AuthStyle: a configured client authenticates at the
// token endpoint as the authorization server supports; a public client
// (no secret) sends its id in the body; the sealed secret's purpose is the
// account service's, so the Connect page and refreshes can open it.
func TestOAuthClient_AuthStyle(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		supported []string
		secret    string
		want      string
	}{{nil, "s", "header"}, {[]string{"client_secret_basic", "client_secret_post"}, "s", "header"},
		{[]string{"client_secret_post"}, "s", "body"}, {nil, "", "body"}} {
		o := &MCPOAuth{Server: asServer(c.supported)}
		if got := o.Configured("id", c.secret).AuthStyle; got != c.want {
			t.Errorf("%v with secret %q: %s, want %s", c.supported, c.secret, got, c.want)
		}
	}
	if PurposeClientSecret != account.PurposeClientSecret {
		t.Fatalf("PurposeClientSecret %q, account's %q", PurposeClientSecret, account.PurposeClientSecret)
	}
}

// TestRegister_NoEndpoint: without a registration endpoint the operator
// is told to configure a client, with the redirect URI to register.
func TestRegister_NoEndpoint(t *testing.T) {
	t.Parallel()
	o := &MCPOAuth{Server: asServer(nil)}
	_, err := o.Register(context.Background(), http.DefaultClient, "https://sb.example/api/oauth/callback", "Switchboard")
	if err == nil || !strings.Contains(err.Error(), "does not offer dynamic client registration") ||
		!strings.Contains(err.Error(), "https://sb.example/api/oauth/callback") {
		t.Fatalf("error %v", err)
	}
}

func asServer(supported []string) *oauthex.AuthServerMeta {
	return &oauthex.AuthServerMeta{Issuer: "https://as.example", TokenEndpointAuthMethodsSupported: supported}
}
