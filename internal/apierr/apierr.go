// Package apierr defines the error model of the HTTP API: the codes of
// section 7, the one table that maps a code to its HTTP status, and the JSON
// envelope every failed response carries.
package apierr

import (
	"errors"
	"fmt"
	"net/http"
)

// Code is one of the error codes (openapi.json, schema ErrorCode).
type Code string

// The error codes (openapi.json, schema ErrorCode).
const (
	ValidationError       Code = "VALIDATION_ERROR"
	MissingConnection     Code = "MISSING_CONNECTION"
	ReauthRequired        Code = "REAUTH_REQUIRED"
	ConnectionNotFound    Code = "CONNECTION_NOT_FOUND"
	ExecutionError        Code = "EXECUTION_ERROR"
	Unauthorized          Code = "UNAUTHORIZED"
	Forbidden             Code = "FORBIDDEN"
	ActionDisabled        Code = "ACTION_DISABLED"
	ForbiddenEndpoint     Code = "FORBIDDEN_ENDPOINT"
	PolicyDenied          Code = "POLICY_DENIED"
	ApprovalDenied        Code = "APPROVAL_DENIED"
	NotFound              Code = "NOT_FOUND"
	ToolNotFound          Code = "TOOL_NOT_FOUND"
	ConnectorNotFound     Code = "CONNECTOR_NOT_FOUND"
	SessionNotFound       Code = "SESSION_NOT_FOUND"
	AmbiguousConnection   Code = "AMBIGUOUS_CONNECTION"
	Conflict              Code = "CONFLICT"
	NameTaken             Code = "NAME_TAKEN"
	ConnectorUnavailable  Code = "CONNECTOR_UNAVAILABLE"
	LinkUsed              Code = "LINK_USED"
	LinkExpired           Code = "LINK_EXPIRED"
	InternalError         Code = "INTERNAL_ERROR"
	UpstreamError         Code = "UPSTREAM_ERROR"
	CredentialUnavailable Code = "CREDENTIAL_UNAVAILABLE"
	// RateLimited is a call refused by one of the project's quotas
	// (docs/quotas.md); the answer carries Retry-After.
	RateLimited Code = "RATE_LIMITED"
)

// statuses is the one table from a code to its HTTP status. Two codes have a
// second status that depends on where they occur (CONNECTION_NOT_FOUND is 404
// for an id in the path, EXECUTION_ERROR is 500 for a failed rotation); those
// callers set Error.Status explicitly.
var statuses = map[Code]int{
	ValidationError:       http.StatusBadRequest,
	MissingConnection:     http.StatusBadRequest,
	ReauthRequired:        http.StatusBadRequest,
	ConnectionNotFound:    http.StatusNotFound,
	ExecutionError:        http.StatusBadRequest,
	Unauthorized:          http.StatusUnauthorized,
	Forbidden:             http.StatusForbidden,
	ActionDisabled:        http.StatusForbidden,
	ForbiddenEndpoint:     http.StatusForbidden,
	PolicyDenied:          http.StatusForbidden,
	ApprovalDenied:        http.StatusForbidden,
	NotFound:              http.StatusNotFound,
	ToolNotFound:          http.StatusNotFound,
	ConnectorNotFound:     http.StatusNotFound,
	SessionNotFound:       http.StatusNotFound,
	AmbiguousConnection:   http.StatusConflict,
	Conflict:              http.StatusConflict,
	NameTaken:             http.StatusConflict,
	ConnectorUnavailable:  http.StatusConflict,
	LinkUsed:              http.StatusGone,
	LinkExpired:           http.StatusGone,
	InternalError:         http.StatusInternalServerError,
	UpstreamError:         http.StatusBadGateway,
	CredentialUnavailable: http.StatusServiceUnavailable,
	RateLimited:           http.StatusTooManyRequests,
}

// Status returns the HTTP status of code, or 500 for a code not in the table.
func (c Code) Status() int {
	if s, ok := statuses[c]; ok {
		return s
	}
	return http.StatusInternalServerError
}

// Choice is one account offered with AMBIGUOUS_CONNECTION.
type Choice struct {
	ID          string `json:"id"`
	DisplayName string `json:"displayName"`
}

// Upstream describes a provider's failed answer (docs/execution.md).
type Upstream struct {
	Status int    `json:"status"`
	Body   string `json:"body"`
}

// Error is an error a caller can act on. Its Message is shown to the caller,
// so it must never contain a credential, token or secret.
type Error struct {
	Code     Code
	Message  string
	Issues   []Issue
	Choices  []Choice
	Upstream *Upstream
	// Status overrides Code.Status() where one code has two statuses.
	Status int
	// RetryAfter is sent as the Retry-After header (a provider's 429, or
	// a quota's RATE_LIMITED): delay-seconds or an HTTP date.
	RetryAfter string
}

// Error implements error.
func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// HTTPStatus returns the status the error is answered with.
func (e *Error) HTTPStatus() int {
	if e.Status != 0 {
		return e.Status
	}
	return e.Code.Status()
}

// New returns an Error with a formatted message.
func New(code Code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// WithStatus returns e answered with status instead of its code's default.
func (e *Error) WithStatus(status int) *Error {
	e.Status = status
	return e
}

// As returns the *Error in err's chain, if any.
func As(err error) (*Error, bool) {
	var e *Error
	ok := errors.As(err, &e)
	return e, ok
}

// Envelope is the JSON body of a failed response:
// { "error": { "code", "message", "issues"?, "choices"?, "upstream"? } }.
type Envelope struct {
	Error EnvelopeError `json:"error"`
}

// EnvelopeError is the inner object of Envelope.
type EnvelopeError struct {
	Code     Code      `json:"code"`
	Message  string    `json:"message"`
	Issues   []Issue   `json:"issues,omitempty"`
	Choices  []Choice  `json:"choices,omitempty"`
	Upstream *Upstream `json:"upstream,omitempty"`
}

// Envelope returns the JSON envelope of e.
func (e *Error) Envelope() Envelope {
	return Envelope{Error: EnvelopeError{
		Code: e.Code, Message: e.Message, Issues: e.Issues,
		Choices: e.Choices, Upstream: e.Upstream,
	}}
}
