package switchboard

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
)

// Tool formats of ListSessionTools.
const (
	FormatJSONSchema   = "json-schema"
	FormatOpenAIStrict = "openai-strict"
)

// SessionTool is a tool definition for a model: a meta tool, or a pinned tool.
type SessionTool struct {
	Kind        string          `json:"kind"`
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	Annotations struct {
		ReadOnlyHint    bool `json:"readOnlyHint"`
		DestructiveHint bool `json:"destructiveHint"`
	} `json:"annotations"`
	Strict *bool `json:"strict,omitempty"`
}

// SessionTools is a session's tool listing.
type SessionTools struct {
	ScopeHash string        `json:"scopeHash"`
	Tools     []SessionTool `json:"tools"`
}

// Refusal is a session tool's refusal, meant for the model to act on
// (lowercase codes such as connection_required or not_in_scope).
type Refusal struct {
	Code       string    `json:"code"`
	Message    string    `json:"message"`
	Connector  string    `json:"connector,omitempty"`
	ConnectURL string    `json:"connectUrl,omitempty"`
	Issues     []Issue   `json:"issues,omitempty"`
	Choices    []Choice  `json:"choices,omitempty"`
	Upstream   *Upstream `json:"upstream,omitempty"`
	// Approval is set with approval_required: the model should make the
	// same call again once a person approves it.
	Approval *RefusalApproval `json:"approval,omitempty"`
	// RetryAfter is set with rate_limited when the wait is known: seconds
	// before trying again.
	RetryAfter *int `json:"retryAfter,omitempty"`
}

// RefusalApproval is the approval an approval_required refusal waits on.
type RefusalApproval struct {
	ID        string `json:"id"`
	Status    string `json:"status"`
	URL       string `json:"url"`
	ExpiresAt string `json:"expiresAt"`
}

// ToolOutcome is the answer of CallSessionTool: OK with Result, or a Refusal.
type ToolOutcome struct {
	OK     bool            `json:"ok"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *Refusal        `json:"error,omitempty"`
}

// ForModel is the outcome as the text a model should read next: the
// result, or the refusal.
func (o ToolOutcome) ForModel() string {
	if o.OK {
		return string(o.Result)
	}
	b, _ := json.Marshal(map[string]any{"error": o.Error})
	return string(b)
}

// CreateSession creates a session for one user.
func (c *Client) CreateSession(ctx context.Context, r SessionRequest) (Session, error) {
	return post[Session](ctx, c, "/v1/sessions", r)
}

// GetSession reads a session with its current connection states.
func (c *Client) GetSession(ctx context.Context, id string) (Session, error) {
	return get[Session](ctx, c, "/v1/sessions/"+seg(id), nil)
}

// ListSessionTools lists a session's tools in format (FormatJSONSchema
// when empty, or FormatOpenAIStrict).
func (c *Client) ListSessionTools(ctx context.Context, sessionID, format string) (SessionTools, error) {
	var q url.Values
	if format != "" {
		q = url.Values{"format": {format}}
	}
	return get[SessionTools](ctx, c, "/v1/sessions/"+seg(sessionID)+"/tools", q)
}

// CallSessionTool runs one session tool with the model's arguments. A
// refusal is an outcome, not an error; an unknown tool is TOOL_NOT_FOUND.
func (c *Client) CallSessionTool(ctx context.Context, sessionID, name string, arguments json.RawMessage) (ToolOutcome, error) {
	if len(arguments) == 0 {
		arguments = json.RawMessage("{}")
	}
	var out ToolOutcome
	err := c.do(ctx, http.MethodPost, "/v1/sessions/"+seg(sessionID)+"/tools/"+seg(name), nil,
		map[string]json.RawMessage{"arguments": arguments}, &out)
	return out, err
}

// OpenAIFunction is a tool in OpenAI Chat Completions' function-calling
// shape: {"type": "function", "function": {...}}.
type OpenAIFunction struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
		Strict      *bool           `json:"strict,omitempty"`
	} `json:"function"`
}

// OpenAITools turns session tools into OpenAI function-calling tools
// (list them with FormatOpenAIStrict to get strict schemas).
func OpenAITools(tools []SessionTool) []OpenAIFunction {
	out := make([]OpenAIFunction, len(tools))
	for i, t := range tools {
		out[i].Type = "function"
		out[i].Function.Name = t.Name
		out[i].Function.Description = t.Description
		out[i].Function.Parameters = t.InputSchema
		out[i].Function.Strict = t.Strict
	}
	return out
}
