package httpapi

import (
	"encoding/base64"
	"net/url"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-gw/switchboard/internal/apierr"
)

// queryBool reads a boolean query parameter: absent is nil, `true` and
// `false` are the only values accepted (docs/README.md, "Conventions of the API").
func queryBool(q url.Values, name string, issues *apierr.Issues) *bool {
	if !q.Has(name) {
		return nil
	}
	switch q.Get(name) {
	case "true":
		v := true
		return &v
	case "false":
		v := false
		return &v
	}
	issues.Add(apierr.IssueInvalidType, []any{name}, "must be true or false")
	return nil
}

// queryText reads a string query parameter of min to max characters;
// absent is "".
func queryText(q url.Values, name string, min, max int, issues *apierr.Issues) string {
	if !q.Has(name) {
		return ""
	}
	v := q.Get(name)
	if n := utf8.RuneCountInString(v); n < min || n > max {
		issues.Add(apierr.IssueInvalidValue, []any{name}, "must be %d to %d characters", min, max)
		return ""
	}
	return v
}

// Page is the position and size of one page of a list (docs/README.md, "Conventions of the API").
type Page struct {
	Limit int
	// After is the sort key of the last item of the previous page, or "".
	After string
}

// Pagination limits (docs/README.md, "Limits").
const (
	defaultLimit   = 100
	maxLimit       = 500
	maxCursorChars = 300
)

// cursorVersion starts every cursor, so that its layout can change.
const cursorVersion = "c1"

// parsePage reads limit and cursor. A cursor must be one that this list
// (kind) returned to this project (scope); any other is a validation issue.
func parsePage(q url.Values, kind, scope string, issues *apierr.Issues) Page {
	p := Page{Limit: defaultLimit}
	if q.Has("limit") {
		n, err := strconv.Atoi(q.Get("limit"))
		switch {
		case err != nil:
			issues.Add(apierr.IssueInvalidType, []any{"limit"}, "must be an integer from 1 to %d", maxLimit)
		case n < 1 || n > maxLimit:
			issues.Add(apierr.IssueInvalidValue, []any{"limit"}, "must be from 1 to %d", maxLimit)
		default:
			p.Limit = n
		}
	}
	if q.Has("cursor") {
		c := q.Get("cursor")
		after, ok := decodeCursor(c, kind, scope)
		switch {
		case len(c) < 1 || len(c) > maxCursorChars:
			issues.Add(apierr.IssueInvalidValue, []any{"cursor"}, "must be 1 to %d characters", maxCursorChars)
		case !ok:
			issues.Add(apierr.IssueInvalidValue, []any{"cursor"}, "is not a cursor this list returned; pass the nextCursor of the previous page, or start again without one")
		default:
			p.After = after
		}
	}
	return p
}

// encodeCursor returns the opaque cursor that continues list kind of scope
// after the item whose sort key is after.
func encodeCursor(kind, scope, after string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(cursorVersion + "\x00" + kind + "\x00" + scope + "\x00" + after))
}

func decodeCursor(c, kind, scope string) (string, bool) {
	raw, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil {
		return "", false
	}
	parts := strings.SplitN(string(raw), "\x00", 4)
	if len(parts) != 4 || parts[0] != cursorVersion || parts[1] != kind || parts[2] != scope || parts[3] == "" {
		return "", false
	}
	return parts[3], true
}

// queryEnum reads a query parameter that must be one of allowed; absent is "".
func queryEnum(q url.Values, name string, allowed []string, issues *apierr.Issues) string {
	if !q.Has(name) {
		return ""
	}
	v := q.Get(name)
	for _, a := range allowed {
		if v == a {
			return v
		}
	}
	issues.Add(apierr.IssueInvalidValue, []any{name}, "must be one of %s", strings.Join(allowed, ", "))
	return ""
}
