package apierr

import (
	"fmt"
	"strings"
)

// Issue is one problem found in a request, reported with VALIDATION_ERROR.
// Path locates the offending value: object keys as strings, array indexes as
// integers.
type Issue struct {
	Code    string `json:"code"`
	Path    []any  `json:"path"`
	Message string `json:"message"`
}

// Issue codes used across the API.
const (
	IssueRequired     = "required"
	IssueInvalidType  = "invalid_type"
	IssueInvalidValue = "invalid_value"
	IssueTooSmall     = "too_small"
	IssueTooBig       = "too_big"
	IssueUnknownField = "unrecognized_keys"
	IssueInvalidJSON  = "invalid_json"
)

// Issues collects every problem of a request so that one answer lists them
// all, not only the first.
type Issues []Issue

// Add records one problem at path.
func (is *Issues) Add(code string, path []any, format string, args ...any) {
	if path == nil {
		path = []any{}
	}
	*is = append(*is, Issue{Code: code, Path: path, Message: fmt.Sprintf(format, args...)})
}

// Err returns nil when no problem was recorded, else a VALIDATION_ERROR
// carrying every issue.
func (is Issues) Err() error {
	if len(is) == 0 {
		return nil
	}
	return Validation(is...)
}

// Validation returns a VALIDATION_ERROR whose message summarises issues.
func Validation(issues ...Issue) *Error {
	var b strings.Builder
	b.WriteString("request is invalid: ")
	for i, is := range issues {
		if i == 3 {
			fmt.Fprintf(&b, "; and %d more", len(issues)-3)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		if len(is.Path) > 0 {
			b.WriteString(PathString(is.Path))
			b.WriteString(": ")
		}
		b.WriteString(is.Message)
	}
	return &Error{Code: ValidationError, Message: b.String(), Issues: issues}
}

// PathString renders a path as dotted keys with bracketed indexes
// (policy.maxDataClass, actions[3]).
func PathString(path []any) string {
	var b strings.Builder
	for _, p := range path {
		switch v := p.(type) {
		case int:
			fmt.Fprintf(&b, "[%d]", v)
		default:
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			fmt.Fprint(&b, v)
		}
	}
	return b.String()
}
