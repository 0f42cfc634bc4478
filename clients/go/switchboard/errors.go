package switchboard

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"
)

// Code is an API error code (ErrorCode in openapi.json). Branch on it,
// never on Message.
type Code string

// The API's error codes.
const (
	CodeValidationError       Code = "VALIDATION_ERROR"
	CodeMissingConnection     Code = "MISSING_CONNECTION"
	CodeReauthRequired        Code = "REAUTH_REQUIRED"
	CodeConnectionNotFound    Code = "CONNECTION_NOT_FOUND"
	CodeExecutionError        Code = "EXECUTION_ERROR"
	CodeUnauthorized          Code = "UNAUTHORIZED"
	CodeForbidden             Code = "FORBIDDEN"
	CodeActionDisabled        Code = "ACTION_DISABLED"
	CodeForbiddenEndpoint     Code = "FORBIDDEN_ENDPOINT"
	CodePolicyDenied          Code = "POLICY_DENIED"
	CodeApprovalDenied        Code = "APPROVAL_DENIED"
	CodeNotFound              Code = "NOT_FOUND"
	CodeToolNotFound          Code = "TOOL_NOT_FOUND"
	CodeConnectorNotFound     Code = "CONNECTOR_NOT_FOUND"
	CodeSessionNotFound       Code = "SESSION_NOT_FOUND"
	CodeAmbiguousConnection   Code = "AMBIGUOUS_CONNECTION"
	CodeConflict              Code = "CONFLICT"
	CodeNameTaken             Code = "NAME_TAKEN"
	CodeConnectorUnavailable  Code = "CONNECTOR_UNAVAILABLE"
	CodeLinkUsed              Code = "LINK_USED"
	CodeLinkExpired           Code = "LINK_EXPIRED"
	CodeInternalError         Code = "INTERNAL_ERROR"
	CodeUpstreamError         Code = "UPSTREAM_ERROR"
	CodeCredentialUnavailable Code = "CREDENTIAL_UNAVAILABLE"
	CodeRateLimited           Code = "RATE_LIMITED"
)

// Issue is one problem of a VALIDATION_ERROR.
type Issue struct {
	Code    string `json:"code"`
	Path    []any  `json:"path"`
	Message string `json:"message"`
}

// Choice is one of the user's accounts offered by AMBIGUOUS_CONNECTION.
type Choice struct {
	ID          string `json:"id"`
	DisplayName string `json:"displayName"`
}

// Upstream is the provider's answer carried by an UPSTREAM_ERROR.
type Upstream struct {
	Status int             `json:"status"`
	Body   json.RawMessage `json:"body"`
}

// Error is a failed API call: the HTTP status and the error envelope.
// Use errors.As, or IsCode.
type Error struct {
	Status   int
	Code     Code
	Message  string
	Issues   []Issue
	Choices  []Choice
	Upstream *Upstream
	// RetryAfter is the answer's Retry-After header, when it had one: with
	// RATE_LIMITED, how long until the quota's window ends; with a
	// provider's 429, the provider's wait.
	RetryAfter time.Duration
}

// Error implements error.
func (e *Error) Error() string {
	return fmt.Sprintf("switchboard: %d %s: %s", e.Status, e.Code, e.Message)
}

// IsCode reports whether err is an API error with code.
func IsCode(err error, code Code) bool {
	var e *Error
	return errors.As(err, &e) && e.Code == code
}

// decodeError reads an error envelope. An answer without one (a proxy's
// page, an empty 405) gives an Error with the status and an empty Code.
func decodeError(status int, raw []byte) *Error {
	var env struct {
		Error struct {
			Code     Code      `json:"code"`
			Message  string    `json:"message"`
			Issues   []Issue   `json:"issues"`
			Choices  []Choice  `json:"choices"`
			Upstream *Upstream `json:"upstream"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &env) != nil || env.Error.Code == "" {
		return &Error{Status: status, Message: http.StatusText(status)}
	}
	e := env.Error
	return &Error{Status: status, Code: e.Code, Message: e.Message, Issues: e.Issues, Choices: e.Choices, Upstream: e.Upstream}
}
