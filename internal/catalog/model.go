// Package catalog holds the built-in connectors, their tools and triggers:
// definitions written as YAML under catalog/connectors, loaded and
// validated strictly at start, and the search index over them.
package catalog

import (
	"encoding/json"
	"regexp"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Categories are the ten connector categories (openapi.json, schema Category).
var Categories = []string{
	"communication", "developer-tools", "crm", "productivity", "marketing",
	"analytics", "finance", "storage", "security", "commerce",
}

// Effects a tool can have.
const (
	EffectRead        = "read"
	EffectWrite       = "write"
	EffectDestructive = "destructive"
)

// Data classes, least to most sensitive (docs/sessions.md, maxDataClass).
const (
	ClassStandard = "standard"
	ClassPII      = "pii"
	ClassPHI      = "phi"
)

// ClassRank orders data classes: standard < pii < phi.
func ClassRank(class string) int {
	switch class {
	case ClassStandard:
		return 0
	case ClassPII:
		return 1
	case ClassPHI:
		return 2
	}
	return -1
}

// Auth method types (docs/connections.md).
const (
	AuthOAuth2                  = "oauth2"
	AuthOAuth2ClientCredentials = "oauth2_client_credentials"
	AuthAPIKey                  = "api_key"
	AuthBasic                   = "basic"
	AuthAWSIAM                  = "aws_iam"
	AuthCustom                  = "custom"
	AuthNone                    = "none"
	// AuthJWTBearer is the JWT bearer grant of RFC 7523: the account holds
	// a private key and the gateway trades a signed assertion for an access
	// token (Salesforce connected apps).
	AuthJWTBearer = "oauth2_jwt_bearer"
	// AuthServiceAccount is a Google service account: the JWT bearer grant
	// with the account's JSON key, optionally impersonating a user of the
	// domain (domain-wide delegation).
	AuthServiceAccount = "google_service_account"
	// AuthGitHubApp is a GitHub App installation: the gateway signs a short
	// JWT as the app and trades it for an installation access token.
	AuthGitHubApp = "github_app"
)

// Connector is one built-in integration, as written in its YAML file.
type Connector struct {
	ID          string `yaml:"id" json:"id"`
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description" json:"description"`
	Category    string `yaml:"category" json:"category"`
	// Popularity is a rank (1 = most popular); 0 means not ranked.
	Popularity int `yaml:"popularity" json:"popularity,omitempty"`
	// Verification is "verified" or "unverified" (the default).
	Verification string `yaml:"verification" json:"verification"`
	// Docs links the provider's API reference.
	Docs string `yaml:"docs" json:"docs,omitempty"`
	API  API    `yaml:"api" json:"api"`
	// ConnectionFields are per-account values that fill {placeholders} of
	// API.BaseURL (a Shopify shop, a Zendesk subdomain, a Salesforce instance).
	ConnectionFields []ConnectionField `yaml:"connectionFields" json:"connectionFields,omitempty"`
	AuthMethods      []AuthMethod      `yaml:"authMethods" json:"authMethods"`
	Identity         *Identity         `yaml:"identity" json:"identity,omitempty"`
	Tools            []*Tool           `yaml:"tools" json:"tools"`
	Triggers         []*Trigger        `yaml:"triggers" json:"triggers,omitempty"`
	// Origin is "" for a built-in connector, "mcp" for a project's MCP
	// server and "openapi" for a project's imported REST API.
	Origin string `yaml:"-" json:"origin,omitempty"`
	// ToolDataClass is the data classification a project's MCP server
	// gives every tool it lists, kept for a server whose tools come later
	// (one that lists them only to a signed-in user).
	ToolDataClass string `yaml:"-" json:"toolDataClass,omitempty"`
}

// Builtin reports whether the connector ships with Switchboard.
func (c *Connector) Builtin() bool { return c.Origin == "" }

// MCP reports whether the connector is a project's MCP server.
func (c *Connector) MCP() bool { return c.Origin == OriginMCP }

// OAuthMCP reports whether the connector is a project's MCP server whose
// users sign in with the OAuth the server itself declares (its only
// method is oauth2 with a resource indicator).
func (c *Connector) OAuthMCP() bool {
	return c.MCP() && len(c.AuthMethods) == 1 && c.AuthMethods[0].Type == AuthOAuth2 && c.AuthMethods[0].OAuth2 != nil &&
		c.AuthMethods[0].OAuth2.Resource != ""
}

// AuthMethod returns the connector's auth method with id, or nil.
func (c *Connector) AuthMethod(id string) *AuthMethod {
	for i := range c.AuthMethods {
		if c.AuthMethods[i].ID == id {
			return &c.AuthMethods[i]
		}
	}
	return nil
}

// Field returns the connection field named name, or nil.
func (c *Connector) Field(name string) *ConnectionField {
	for i := range c.ConnectionFields {
		if c.ConnectionFields[i].Name == name {
			return &c.ConnectionFields[i]
		}
	}
	return nil
}

// Origins of a project's own connectors.
const (
	OriginMCP     = "mcp"
	OriginOpenAPI = "openapi"
	// OriginExtension is not a connector of its own: it holds tools a
	// project adds to the built-in connector of the same id, imported from
	// the provider's API description (With merges them in).
	OriginExtension = "extension"
)

// API is where a connector's tools and the raw proxy send requests.
type API struct {
	// BaseURL is the https base of tool paths; it may hold {field}
	// placeholders filled from ConnectionFields.
	BaseURL string `yaml:"baseUrl" json:"baseUrl"`
	// Proxy says whether POST /v1/tools/proxy accepts this connector.
	Proxy bool `yaml:"proxy" json:"proxy"`
	// Headers are sent with every tool and proxy request.
	Headers map[string]string `yaml:"headers" json:"headers,omitempty"`
	// Transport is how a project's MCP server is reached: empty for
	// Streamable HTTP, TransportSSE for the older HTTP+SSE transport.
	Transport string `yaml:"transport" json:"transport,omitempty"`
	// PropagateTrace sends the W3C traceparent of the provider call's span
	// with every tool and proxy request, when tracing is on. Off unless the
	// provider documents that it accepts the header.
	PropagateTrace bool `yaml:"propagateTrace" json:"propagateTrace,omitempty"`
	// Omit lists dotted paths of fields removed from every JSON answer of
	// the raw proxy, as a tool's request.omit does for its answers: fields
	// in which the API hands back a credential (Twilio's account
	// auth_token). With it, the proxy refuses answers that are not JSON.
	Omit []string `yaml:"omit" json:"omit,omitempty"`
}

// TransportSSE marks an MCP server that speaks only the HTTP+SSE transport
// of protocol version 2024-11-05.
const TransportSSE = "sse"

// ConnectionField is a per-account value a connection's credential carries.
type ConnectionField struct {
	Name        string `yaml:"name" json:"name"`
	Label       string `yaml:"label" json:"label"`
	Description string `yaml:"description" json:"description,omitempty"`
	// Pattern is a regular expression the value must match in full.
	Pattern string `yaml:"pattern" json:"pattern,omitempty"`
	// Example is shown as a placeholder on the Connect page.
	Example string `yaml:"example" json:"example,omitempty"`
	// Default fills the field when the credential leaves it out.
	Default string `yaml:"default" json:"default,omitempty"`
	// FromToken names the OAuth token response field that supplies the
	// value (Salesforce instance_url), instead of the user.
	FromToken string `yaml:"fromToken" json:"fromToken,omitempty"`
	// AuthMethods lists the ids of the auth methods whose accounts use the
	// field (a Jira site for API tokens, a cloud id for OAuth); empty
	// means every method.
	AuthMethods []string `yaml:"authMethods" json:"authMethods,omitempty"`

	re *regexp.Regexp // Pattern compiled by validation
}

// Matches reports whether v matches the field's pattern in full (true
// when the field has none).
func (f *ConnectionField) Matches(v string) bool {
	if f.Pattern == "" {
		return true
	}
	re := f.re
	if re == nil {
		var err error
		if re, err = regexp.Compile("^(?:" + f.Pattern + ")$"); err != nil {
			return false
		}
	}
	return re.MatchString(v)
}

// AuthMethod is one way to connect an account.
type AuthMethod struct {
	ID          string `yaml:"id" json:"id"`
	Type        string `yaml:"type" json:"type"`
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description" json:"description,omitempty"`
	// BaseURL replaces api.baseUrl for accounts of this method, where the
	// provider serves them elsewhere (Atlassian OAuth apps call
	// api.atlassian.com/ex/jira/{cloudId}, API tokens the site's host).
	BaseURL string `yaml:"baseUrl" json:"baseUrl,omitempty"`
	// OAuth2 configures oauth2 and oauth2_client_credentials.
	OAuth2 *OAuth2 `yaml:"oauth2" json:"oauth2,omitempty"`
	// Identity replaces the connector's identity call for this method's
	// accounts, where the provider answers them elsewhere (a GitHub App
	// installation token has no /user).
	Identity *Identity `yaml:"identity" json:"identity,omitempty"`
	// APIKey says where an api_key credential goes.
	APIKey *Placement `yaml:"apiKey" json:"apiKey,omitempty"`
	// Basic labels the fields of a basic credential.
	Basic *Basic `yaml:"basic" json:"basic,omitempty"`
	// AWS configures SigV4 signing for aws_iam.
	AWS *AWS `yaml:"aws" json:"aws,omitempty"`
	// Fields are the named fields of a custom credential, each with where it goes.
	Fields []CustomField `yaml:"fields" json:"fields,omitempty"`
	// PathPrefixes rewrite the start of a request path for accounts of this
	// method ({"/me": "/users/{userId}"}: Microsoft Graph app-only tokens
	// have no signed-in user); the values may take {connection field}
	// placeholders.
	PathPrefixes map[string]string `yaml:"pathPrefixes" json:"pathPrefixes,omitempty"`
	// ExcludeTools are tools that accounts of this method cannot run (the
	// provider refuses them for this kind of credential); a call answers
	// 403 ACTION_DISABLED before any provider request.
	ExcludeTools []string `yaml:"excludeTools" json:"excludeTools,omitempty"`
}

// Excludes reports whether accounts of the method cannot run tool id.
func (m *AuthMethod) Excludes(id string) bool {
	for _, t := range m.ExcludeTools {
		if t == id {
			return true
		}
	}
	return false
}

// TokenGrant reports whether the method's accounts hold a key or client
// credential that the gateway trades for short-lived access tokens itself
// (no user sign-in, no refresh token).
func (m *AuthMethod) TokenGrant() bool {
	switch m.Type {
	case AuthOAuth2ClientCredentials, AuthJWTBearer, AuthServiceAccount, AuthGitHubApp:
		return true
	}
	return false
}

// OAuth2 is the provider side of an OAuth 2.0 flow. The token grants the
// gateway runs itself (client credentials, JWT bearer, service account,
// GitHub App) use TokenURL, Scopes and the fields named for them.
type OAuth2 struct {
	AuthorizeURL string `yaml:"authorizeUrl" json:"authorizeUrl,omitempty"`
	// TokenURL may take {connection field} placeholders; for github_app it
	// takes {installationId}, from the credential.
	TokenURL string   `yaml:"tokenUrl" json:"tokenUrl"`
	Scopes   []string `yaml:"scopes" json:"scopes,omitempty"`
	// ScopeSeparator joins scopes in the authorize URL; a space by default.
	ScopeSeparator string `yaml:"scopeSeparator" json:"scopeSeparator,omitempty"`
	// ScopeParam is the authorize URL parameter the scopes go in, when the
	// provider names it otherwise than scope (Slack's user_scope, which
	// asks for a token acting as the signed-in user).
	ScopeParam string `yaml:"scopeParam" json:"scopeParam,omitempty"`
	// TokenPath is the dotted path of the object in the token answer that
	// holds the token's fields (access_token, scope, refresh_token,
	// expires_in), when they are not at its top (Slack's authed_user).
	TokenPath string `yaml:"tokenPath" json:"tokenPath,omitempty"`
	PKCE      bool   `yaml:"pkce" json:"pkce"`
	// TokenAuthStyle is "header" (HTTP basic) or "body" (client id and
	// secret as form fields) for the token endpoint.
	TokenAuthStyle string `yaml:"tokenAuthStyle" json:"tokenAuthStyle"`
	// TokenBodyType is how the token request's fields are sent: "form"
	// (application/x-www-form-urlencoded, RFC 6749; the default) or "json"
	// (a JSON object: Square, Zendesk).
	TokenBodyType string `yaml:"tokenBodyType" json:"tokenBodyType,omitempty"`
	// TokenScope sends the scopes the sign-in asked for as the scope field
	// of the code exchange too (Zendesk requires it there).
	TokenScope bool `yaml:"tokenScope" json:"tokenScope,omitempty"`
	// Refresh says whether access tokens expire and are refreshed.
	Refresh bool `yaml:"refresh" json:"refresh"`
	// RefreshURL is where a refresh token is traded, when the provider
	// names another URL than TokenURL for it (Figma); it may take
	// {connection field} placeholders like TokenURL.
	RefreshURL string `yaml:"refreshUrl" json:"refreshUrl,omitempty"`
	// AuthorizeParams are extra authorize URL parameters (access_type=offline).
	AuthorizeParams map[string]string `yaml:"authorizeParams" json:"authorizeParams,omitempty"`
	// IncrementalParams are added to the authorize URL of a sign-in that
	// asks an account for more scopes (Google's include_granted_scopes);
	// without them that sign-in asks for the union of the scopes.
	IncrementalParams map[string]string `yaml:"incrementalParams" json:"incrementalParams,omitempty"`
	// Placement overrides how the access token is sent; Bearer by default.
	Placement *Placement `yaml:"placement" json:"placement,omitempty"`
	// AllowedHosts are the hosts a templated authorize or token URL may be
	// filled to ("*.okta.com", "gitlab.com"), since the project's client
	// secret goes there; required when either URL has a placeholder. An
	// auth config's own hosts, set by the operator, replace them.
	AllowedHosts []string `yaml:"allowedHosts" json:"allowedHosts,omitempty"`
	// RedirectParams are query parameters of the provider's redirect to
	// the callback that are copied into the connection fields of the same
	// name (Intuit's realmId).
	RedirectParams []string `yaml:"redirectParams" json:"redirectParams,omitempty"`
	// AfterToken is a call made with the new access token, right after the
	// code exchange, whose answer supplies connection fields (an Atlassian
	// cloud id, a Xero tenant id).
	AfterToken *AfterToken `yaml:"afterToken" json:"afterToken,omitempty"`
	// TokenParams are extra form fields of a client-credentials token
	// request; values may take {connection field} placeholders, and
	// grant_type replaces client_credentials (Zoom Server-to-Server OAuth:
	// grant_type=account_credentials, account_id={accountId}).
	TokenParams map[string]string `yaml:"tokenParams" json:"tokenParams,omitempty"`
	// Audience is the aud claim of a JWT bearer assertion (RFC 7523); the
	// token URL when empty. It may take {connection field} placeholders.
	Audience string `yaml:"audience" json:"audience,omitempty"`
	// Resource is the resource indicator (RFC 8707) sent with the
	// authorization request, the code exchange and every refresh, so the
	// tokens are bound to one server: a project's MCP server that
	// declares OAuth sets it to the resource its metadata names.
	Resource string `yaml:"resource" json:"resource,omitempty"`
}

// AfterToken is a provider call made with a new access token that
// supplies connection fields. When the answer is a JSON array (sites,
// tenants), one element is chosen: the first that Match accepts; the
// Select paths are then read in that element.
type AfterToken struct {
	// Method is GET (default) or POST; URL is an absolute https URL.
	Method string `yaml:"method" json:"method"`
	URL    string `yaml:"url" json:"url"`
	// Select maps a connection field to the dotted path of its value.
	Select map[string]string `yaml:"select" json:"select"`
	// Match maps a dotted path to the value a chosen element must have
	// there; the value may take {connection field} placeholders, and an
	// entry whose fields the user left empty does not apply (a Jira site
	// the user may type before signing in, to choose among several).
	Match map[string]string `yaml:"match" json:"match,omitempty"`
	// TokenFormat is the Authorization header of the call, {value}
	// standing for the access token: "Bearer {value}" when empty
	// (Mailchimp's metadata call documents "OAuth {value}").
	TokenFormat string `yaml:"tokenFormat" json:"tokenFormat,omitempty"`
}

// Placement says where a secret value goes in a request: a header with a
// format ("Bearer {value}"), or a query parameter.
type Placement struct {
	// In is "header" or "query".
	In   string `yaml:"in" json:"in"`
	Name string `yaml:"name" json:"name"`
	// Format wraps the value in a header, with {value} standing for it.
	Format string `yaml:"format" json:"format,omitempty"`
}

// Basic labels the two fields of an HTTP basic credential.
type Basic struct {
	UsernameLabel string `yaml:"usernameLabel" json:"usernameLabel"`
	PasswordLabel string `yaml:"passwordLabel" json:"passwordLabel"`
}

// AWS configures SigV4 request signing.
type AWS struct {
	Service string `yaml:"service" json:"service"`
	// Region is the default region; a connection may name its own.
	Region string `yaml:"region" json:"region"`
}

// CustomField is one named field of a custom credential.
type CustomField struct {
	Name   string `yaml:"name" json:"name"`
	Label  string `yaml:"label" json:"label"`
	Secret bool   `yaml:"secret" json:"secret"`
	// Placement is where the value goes; nil means it only fills the base URL.
	Placement *Placement `yaml:"placement" json:"placement,omitempty"`
}

// IdentityFor is the identity call for an account of the method with this
// id (or, for a credential that names none, the first method of its type):
// the method's own, else the connector's; nil when there is none.
func (c *Connector) IdentityFor(methodID, credType string) *Identity {
	m := c.AuthMethod(methodID)
	if m == nil {
		for i := range c.AuthMethods {
			if c.AuthMethods[i].Type == credType {
				m = &c.AuthMethods[i]
				break
			}
		}
	}
	if m != nil && m.Identity != nil {
		return m.Identity
	}
	return c.Identity
}

// Identity is the call that labels an account with the provider-side login
// or e-mail.
type Identity struct {
	Method string `yaml:"method" json:"method"`
	Path   string `yaml:"path" json:"path"`
	// Label is the dotted path of the label in the response (login, user.email).
	Label string `yaml:"label" json:"label"`
	// GraphQL is a query document for GraphQL APIs.
	GraphQL string `yaml:"graphql" json:"graphql,omitempty"`
}

// Tool is one operation of a connector.
type Tool struct {
	ID          string `yaml:"id" json:"id"`
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description" json:"description"`
	Effect      string `yaml:"effect" json:"effect"`
	// Irreversible marks a write or destructive tool whose effect cannot be
	// called back once the call returns: it reaches people outside (an
	// e-mail, a message, a campaign, a page to the on-call), moves money
	// (a charge, a refund), or removes what the provider keeps no trash or
	// restore for. Policies and the approval flow target it beyond Effect.
	Irreversible bool `yaml:"irreversible" json:"irreversible,omitempty"`
	// DataClassification is standard, pii or phi; empty reads as pii.
	DataClassification string   `yaml:"dataClassification" json:"dataClassification"`
	RequiredScopes     []string `yaml:"requiredScopes" json:"requiredScopes"`
	InputSchema        Schema   `yaml:"inputSchema" json:"inputSchema"`
	OutputSchema       Schema   `yaml:"outputSchema" json:"outputSchema,omitempty"`
	// Request maps the input to one HTTP request. Handler names a Go
	// handler registered in code for what a mapping cannot express (a MIME
	// message, a multipart upload); with a Handler, Request still names the
	// method and path the handler calls.
	Request *Request `yaml:"request" json:"request,omitempty"`
	Handler string   `yaml:"handler" json:"handler,omitempty"`
	// Keywords are extra search terms (synonyms people use for this tool).
	Keywords []string `yaml:"keywords" json:"keywords,omitempty"`
	// UpstreamName is the tool's name on a project's MCP server.
	UpstreamName string `yaml:"-" json:"upstreamName,omitempty"`
	// Extended marks a tool a project added to a built-in connector from
	// the provider's own API description (OriginExtension); set when the
	// project's catalog is built.
	Extended bool `yaml:"-" json:"-"`

	connector *Connector
	input     *jsonschema.Schema
	// pathFields are the request path's placeholders that name a
	// connection field, not an input property (set by the loader).
	pathFields []string
}

// PathFields are the placeholders of the tool's request path that name a
// connection field rather than an input property: the account fills them
// (Twilio's {accountSid}).
func (t *Tool) PathFields() []string { return t.pathFields }

// Request maps a tool's input to an HTTP request.
type Request struct {
	Method string `yaml:"method" json:"method"`
	// Path is relative to the connector's base URL; {name} takes the input
	// field name, percent-encoded as one segment ({+name} keeps slashes).
	Path string `yaml:"path" json:"path"`
	// Query lists input fields sent as query parameters. For GET and DELETE
	// every input field not used elsewhere goes to the query by default.
	Query []string `yaml:"query" json:"query,omitempty"`
	// Headers maps input fields to request header names.
	Headers map[string]string `yaml:"headers" json:"headers,omitempty"`
	// Body lists input fields sent in the body. For POST, PUT and PATCH every
	// input field not used elsewhere goes to the body by default.
	Body []string `yaml:"body" json:"body,omitempty"`
	// Rename maps input fields to the provider's parameter names where those
	// are not valid tool parameter names (statuses[] , $top), for the query
	// and the body.
	Rename map[string]string `yaml:"rename" json:"rename,omitempty"`
	// BodyType is json (default) or form.
	BodyType string `yaml:"bodyType" json:"bodyType,omitempty"`
	// BodyWrap puts the body fields inside an envelope key ({"data": {...}}).
	BodyWrap string `yaml:"bodyWrap" json:"bodyWrap,omitempty"`
	// StaticQuery and StaticBody are constants sent with every call.
	StaticQuery map[string]string `yaml:"staticQuery" json:"staticQuery,omitempty"`
	StaticBody  map[string]any    `yaml:"staticBody" json:"staticBody,omitempty"`
	// StaticHeaders are header constants sent with every call of the tool,
	// for a version a provider pins per endpoint (Cal.com's cal-api-version);
	// one replaces a connector header of the same name.
	StaticHeaders map[string]string `yaml:"staticHeaders" json:"staticHeaders,omitempty"`
	// GraphQL is the document of a GraphQL API call; the input fields are
	// its variables and the request is POSTed to Path.
	GraphQL string `yaml:"graphql" json:"graphql,omitempty"`
	// Response is the dotted path of the part of the response to return
	// (data.issues.nodes); empty returns the whole body.
	Response string `yaml:"response" json:"response,omitempty"`
	// Omit lists dotted paths of fields removed from the answer before
	// anything else reads it: credentials a provider sends back (Twilio's
	// account auth_token). Through a list, the field goes from every element.
	Omit []string `yaml:"omit" json:"omit,omitempty"`
}

// Trigger is one provider event a connection can subscribe to.
type Trigger struct {
	ID          string `yaml:"id" json:"id"`
	Name        string `yaml:"name" json:"name"`
	Description string `yaml:"description" json:"description"`
	// Kind is webhook (the default: the provider sends deliveries) or poll
	// (Switchboard calls a list endpoint on a schedule; see Poll).
	Kind string `yaml:"kind" json:"kind,omitempty"`
	// Poll is the list call of a poll trigger; a webhook trigger has none.
	Poll *Poll `yaml:"poll" json:"poll,omitempty"`
	// Match selects the deliveries that are this event.
	Match Match `yaml:"match" json:"match"`
	// Verification names the scheme that proves the provider sent a delivery.
	Verification string `yaml:"verification" json:"verification"`
	Setup        Setup  `yaml:"setup" json:"setup"`
	ConfigSchema Schema `yaml:"configSchema" json:"configSchema,omitempty"`

	connector *Connector
	config    *jsonschema.Schema
}

// Match selects deliveries: every header must equal its value and every
// dotted body path must equal its value.
type Match struct {
	Headers map[string]string `yaml:"headers" json:"headers,omitempty"`
	Body    map[string]string `yaml:"body" json:"body,omitempty"`
}

// Setup says how a trigger is put in place at the provider.
type Setup struct {
	// Manual means the user pastes our URL and the signing secret.
	Manual bool `yaml:"manual" json:"manual"`
	// Register and Unregister are the API calls of automatic setup; their
	// paths take {config fields} and Unregister also {hookId}.
	Register   *HookCall `yaml:"register" json:"register,omitempty"`
	Unregister *HookCall `yaml:"unregister" json:"unregister,omitempty"`
}

// HookCall is one API call of automatic trigger setup.
type HookCall struct {
	Method string         `yaml:"method" json:"method"`
	Path   string         `yaml:"path" json:"path"`
	Body   map[string]any `yaml:"body" json:"body,omitempty"`
	// BodyType is json (default) or form.
	BodyType string `yaml:"bodyType" json:"bodyType,omitempty"`
	// HookID is the dotted path of the created webhook's id in the response.
	HookID string `yaml:"hookId" json:"hookId,omitempty"`
	// Secret is the dotted path of a signing secret the provider returns.
	Secret string `yaml:"secret" json:"secret,omitempty"`
}

// Schema is a JSON Schema kept as JSON text, converted from YAML at load.
type Schema json.RawMessage

// UnmarshalJSON keeps the schema as it is.
func (s *Schema) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*s = nil
		return nil
	}
	*s = append((*s)[:0], b...)
	return nil
}

// MarshalJSON writes the schema as it is.
func (s Schema) MarshalJSON() ([]byte, error) {
	if len(s) == 0 {
		return []byte("null"), nil
	}
	return s, nil
}
