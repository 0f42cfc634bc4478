package mcpauth

import "net/http"

// Error is an OAuth error response (RFC 6749 5.2, RFC 7591 3.2.2): an
// error code, a description that says what to fix, and the HTTP status.
type Error struct {
	Code        string `json:"error"`
	Description string `json:"error_description,omitempty"`
	Status      int    `json:"-"`
}

func (e *Error) Error() string { return e.Code + ": " + e.Description }

func oauthErr(status int, code, desc string) *Error {
	return &Error{Code: code, Description: desc, Status: status}
}

func invalidRequest(desc string) *Error {
	return oauthErr(http.StatusBadRequest, "invalid_request", desc)
}
func invalidGrant(desc string) *Error { return oauthErr(http.StatusBadRequest, "invalid_grant", desc) }
