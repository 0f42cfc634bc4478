package switchboard

import "encoding/json"

// AuthMethod is one way to connect a connector.
type AuthMethod struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Name string `json:"name"`
}

// Connector is an item of ListConnectors.
type Connector struct {
	ID          string       `json:"id"`
	Name        string       `json:"name"`
	Description string       `json:"description"`
	Category    string       `json:"category"`
	Logo        string       `json:"logo"`
	AuthMethods []AuthMethod `json:"authMethods"`
	MCP         bool         `json:"mcp"`
}

// ConnectorDetail is GetConnector's answer. ToolIDs is nil for an MCP server.
type ConnectorDetail struct {
	ID          string       `json:"id"`
	Name        string       `json:"name"`
	Category    string       `json:"category"`
	AuthMethods []AuthMethod `json:"authMethods"`
	ToolIDs     []string     `json:"toolIds"`
}

// Tool is one operation of a connector. RequiredScopes, InputSchema and
// OutputSchema are present in view "full" only.
type Tool struct {
	ID                 string          `json:"id"`
	Name               string          `json:"name"`
	Description        string          `json:"description"`
	ConnectorID        string          `json:"connectorId"`
	Effect             string          `json:"effect"`
	Category           string          `json:"category"`
	DataClassification string          `json:"dataClassification"`
	Irreversible       bool            `json:"irreversible,omitempty"`
	RequiredScopes     []string        `json:"requiredScopes,omitempty"`
	InputSchema        json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema       json.RawMessage `json:"outputSchema,omitempty"`
}

// Page is one page of a paged list; NextCursor is empty on the last page.
type Page[T any] struct {
	Data       []T                       `json:"data"`
	NextCursor *string                   `json:"nextCursor"`
	Facets     map[string]map[string]int `json:"facets,omitempty"`
}

// ListParams filter and page ListConnectors and ListTools; zero fields are
// left out.
type ListParams struct {
	Query    string
	Category string
	Limit    int
	Cursor   string
	Facets   bool
	// Popular (connectors) keeps only the most popular connectors.
	Popular bool
	// ConnectorID, DataClassification and View ("full" or "index") filter tools.
	ConnectorID        string
	DataClassification string
	View               string
}

// ExecuteRequest is the body of ExecuteTool.
type ExecuteRequest struct {
	ToolID              string         `json:"toolId"`
	Input               map[string]any `json:"input,omitempty"`
	UserID              string         `json:"userId,omitempty"`
	ConnectionID        string         `json:"connectionId,omitempty"`
	AllowGlobalAccounts bool           `json:"allowGlobalAccounts,omitempty"`
}

// ProxyRequest is the body of Proxy.
type ProxyRequest struct {
	ConnectorID         string            `json:"connectorId"`
	UserID              string            `json:"userId"`
	Endpoint            string            `json:"endpoint"`
	Method              string            `json:"method,omitempty"`
	Query               map[string]string `json:"query,omitempty"`
	Body                any               `json:"body,omitempty"`
	Headers             map[string]string `json:"headers,omitempty"`
	ConnectionID        string            `json:"connectionId,omitempty"`
	AllowGlobalAccounts bool              `json:"allowGlobalAccounts,omitempty"`
}

// Credential is a credential the caller already holds. Type is one of
// oauth2, oauth2_client_credentials, api_key, basic, aws_iam, custom,
// none; Fields carries the type's own fields (apiKey for api_key, and any
// connection fields the connector asks for).
type Credential struct {
	Type   string
	Fields map[string]any
}

// MarshalJSON flattens Fields next to type, as the API expects.
func (c Credential) MarshalJSON() ([]byte, error) {
	m := make(map[string]any, len(c.Fields)+1)
	for k, v := range c.Fields {
		m[k] = v
	}
	m["type"] = c.Type
	return json.Marshal(m)
}

// APIKeyCredential is an api_key credential with extra connection fields.
func APIKeyCredential(key string, fields map[string]any) Credential {
	f := map[string]any{"apiKey": key}
	for k, v := range fields {
		f[k] = v
	}
	return Credential{Type: "api_key", Fields: f}
}

// CreateConnectionRequest is the body of CreateConnection. Give UserID or
// Global.
type CreateConnectionRequest struct {
	ConnectorID string     `json:"connectorId"`
	UserID      string     `json:"userId,omitempty"`
	Global      bool       `json:"global,omitempty"`
	Credential  Credential `json:"credential"`
	AuthConfig  string     `json:"authConfig,omitempty"`
	Name        string     `json:"name,omitempty"`
}

// Connection is a stored account. UserID is nil for a global account.
type Connection struct {
	ID           string          `json:"id"`
	ConnectorID  string          `json:"connectorId"`
	AuthConfigID string          `json:"authConfigId,omitempty"`
	UserID       *string         `json:"userId"`
	Name         string          `json:"name"`
	Label        *string         `json:"label"`
	IsDefault    bool            `json:"isDefault"`
	Status       string          `json:"status"`
	Scopes       []string        `json:"scopes,omitempty"`
	LastUsedAt   *string         `json:"lastUsedAt,omitempty"`
	CreatedAt    string          `json:"createdAt,omitempty"`
	Global       bool            `json:"global"`
	Revision     json.RawMessage `json:"revision,omitempty"`
}

// Policy limits what a session's model may do.
type Policy struct {
	ReadOnly        bool   `json:"readOnly,omitempty"`
	MaxDataClass    string `json:"maxDataClass,omitempty"`
	AllowDisconnect bool   `json:"allowDisconnect,omitempty"`
	AllowProxy      bool   `json:"allowProxy,omitempty"`
}

// SessionRequest is the body of CreateSession.
type SessionRequest struct {
	UserID              string            `json:"userId"`
	Connectors          []string          `json:"connectors,omitempty"`
	Actions             []string          `json:"actions,omitempty"`
	Pinned              []string          `json:"pinned,omitempty"`
	Accounts            map[string]string `json:"accounts,omitempty"`
	AllowGlobalAccounts bool              `json:"allowGlobalAccounts,omitempty"`
	Policy              *Policy           `json:"policy,omitempty"`
	TTLMinutes          int               `json:"ttlMinutes,omitempty"`
}

// SessionConnector is a connector in a session's scope.
type SessionConnector struct {
	ID         string `json:"id"`
	Name       string `json:"name"`
	Actions    int    `json:"actions"`
	Connection struct {
		// Status is connected, missing or reauth_required.
		Status string `json:"status"`
	} `json:"connection"`
}

// Session is a scoped, policy-limited view of a user's tools for a model.
type Session struct {
	ID                  string             `json:"id"`
	UserID              string             `json:"userId"`
	ExpiresAt           string             `json:"expiresAt"`
	ScopeHash           string             `json:"scopeHash"`
	ActionCount         int                `json:"actionCount"`
	Pinned              []string           `json:"pinned"`
	Policy              Policy             `json:"policy"`
	AllowGlobalAccounts bool               `json:"allowGlobalAccounts"`
	Connectors          []SessionConnector `json:"connectors"`
	MCPURL              string             `json:"mcpUrl"`
}

// ConnectLinkRequest is the body of CreateConnectLink.
type ConnectLinkRequest struct {
	UserID           string   `json:"userId"`
	Connectors       []string `json:"connectors,omitempty"`
	AuthConfigs      []string `json:"authConfigs,omitempty"`
	RedirectURL      string   `json:"redirectUrl,omitempty"`
	ExpiresInMinutes int      `json:"expiresInMinutes,omitempty"`
	ConnectionID     string   `json:"connectionId,omitempty"`
}

// ConnectLink is a single-use link to the hosted Connect page.
type ConnectLink struct {
	ID          string   `json:"id"`
	URL         string   `json:"url"`
	UserID      string   `json:"userId"`
	AuthConfigs []string `json:"authConfigs"`
	ExpiresAt   string   `json:"expiresAt"`
}

// TriggerRequest is the body of CreateTrigger. Secret is for manual setup.
type TriggerRequest struct {
	ConnectionID string         `json:"connectionId"`
	Event        string         `json:"event"`
	Secret       string         `json:"secret,omitempty"`
	Config       map[string]any `json:"config,omitempty"`
}

// Trigger is a subscription to one provider event on one connection. URL
// is set only on create, for manual setup.
type Trigger struct {
	ID           string  `json:"id"`
	ConnectionID string  `json:"connectionId,omitempty"`
	ConnectorID  string  `json:"connectorId"`
	Event        string  `json:"event"`
	UserID       *string `json:"userId,omitempty"`
	FireCount    int     `json:"fireCount"`
	LastFiredAt  *string `json:"lastFiredAt,omitempty"`
	CreatedAt    string  `json:"createdAt,omitempty"`
	URL          string  `json:"url,omitempty"`
}

// Webhook is an endpoint that receives trigger.fired events. Secret (the
// whsec_ signing secret) is set only on create.
type Webhook struct {
	ID          string   `json:"id"`
	URL         string   `json:"url"`
	Events      []string `json:"events"`
	Description string   `json:"description"`
	Disabled    bool     `json:"disabled"`
	CreatedAt   string   `json:"createdAt"`
	Secret      string   `json:"secret,omitempty"`
}

// Deleted is the answer of a removal.
type Deleted struct {
	ID     string `json:"id"`
	Erased bool   `json:"erased,omitempty"`
}
