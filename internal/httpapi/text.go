package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/switchboard-gw/switchboard/internal/apierr"
)

// Every string a caller sends must be text both databases can hold:
// PostgreSQL refuses NUL characters and invalid UTF-8 in text columns, where
// SQLite stores them. So request strings are checked here, once, before any
// handler runs: JSON bodies (every string, however deeply nested) in
// decodeBody, path and query values in route. The database then never sees
// such a value and both dialects answer alike.

// textRule is the issue message for a string that is not such text.
const textRule = "must be valid UTF-8 text without NUL (U+0000) characters"

// validText reports whether s is UTF-8 without NUL characters.
func validText(s string) bool {
	return strings.IndexByte(s, 0) < 0 && utf8.ValidString(s)
}

// nulEscape is how a NUL character appears in JSON text.
var nulEscape = []byte(`\u0000`)

// bodyMayHoldBadText is the cheap test that lets almost every body skip the
// field-by-field scan: a body that is valid UTF-8 and has no \u0000 escape
// cannot hold a bad string.
func bodyMayHoldBadText(body []byte) bool {
	return bytes.Contains(body, nulEscape) || !utf8.Valid(body)
}

// findBadText returns the path, below the value's own, of the first string
// in the JSON value b that is not valid text; a bad object key is reported
// at its object, with inKey set. b must be valid JSON (it came out of
// json.Unmarshal).
func findBadText(b []byte) (path []any, inKey, bad bool) {
	sc := textScanner{b: b}
	path, bad = sc.value([]any{})
	return path, sc.badKey, bad
}

// textScanner walks the raw bytes of a JSON value: decoded strings would
// not do, since encoding/json quietly replaces invalid UTF-8 with U+FFFD.
type textScanner struct {
	b      []byte
	i      int
	badKey bool
}

func (sc *textScanner) skipSpace() {
	for sc.i < len(sc.b) {
		switch sc.b[sc.i] {
		case ' ', '\t', '\n', '\r':
			sc.i++
		default:
			return
		}
	}
}

func (sc *textScanner) value(path []any) ([]any, bool) {
	sc.skipSpace()
	if sc.i >= len(sc.b) {
		return nil, false
	}
	switch sc.b[sc.i] {
	case '{':
		sc.i++
		for {
			sc.skipSpace()
			if sc.i >= len(sc.b) || sc.b[sc.i] == '}' {
				sc.i++
				return nil, false
			}
			if sc.b[sc.i] == ',' {
				sc.i++
				continue
			}
			start := sc.i
			if !sc.str() {
				sc.badKey = true
				return path, true
			}
			var key string
			_ = json.Unmarshal(sc.b[start:sc.i], &key)
			sc.skipSpace()
			sc.i++ // the colon
			if p, bad := sc.value(append(path[:len(path):len(path)], key)); bad {
				return p, true
			}
		}
	case '[':
		sc.i++
		for n := 0; ; {
			sc.skipSpace()
			if sc.i >= len(sc.b) || sc.b[sc.i] == ']' {
				sc.i++
				return nil, false
			}
			if sc.b[sc.i] == ',' {
				sc.i++
				n++
				continue
			}
			if p, bad := sc.value(append(path[:len(path):len(path)], n)); bad {
				return p, true
			}
		}
	case '"':
		if !sc.str() {
			return path, true
		}
		return nil, false
	default: // a number, true, false or null
		for sc.i < len(sc.b) && !strings.ContainsRune(",}] \t\n\r", rune(sc.b[sc.i])) {
			sc.i++
		}
		return nil, false
	}
}

// str moves past the string at sc.i and reports whether it is valid text.
func (sc *textScanner) str() bool {
	sc.i++ // the opening quote
	start, ok := sc.i, true
	for sc.i < len(sc.b) && sc.b[sc.i] != '"' {
		if sc.b[sc.i] == '\\' {
			if bytes.HasPrefix(sc.b[sc.i:], nulEscape) {
				ok = false
			}
			sc.i++ // the escaped character; \uXXXX's hex digits are plain bytes
		}
		sc.i++
	}
	// Escapes are ASCII, so the raw bytes are valid UTF-8 exactly when the
	// string they encode is.
	ok = ok && utf8.Valid(sc.b[start:sc.i])
	sc.i++ // the closing quote
	return ok
}

// badTextIssue records the issue for a bad string found at path.
func badTextIssue(issues *apierr.Issues, path []any, inKey bool) {
	if inKey {
		issues.Add(apierr.IssueInvalidValue, path, "has a key that "+textRule)
		return
	}
	issues.Add(apierr.IssueInvalidValue, path, textRule)
}

// queryMayHoldBadText reports whether a raw query might decode to a NUL or
// a non-ASCII byte: only then is it parsed and checked. Its escapes %00 and
// %80 to %FF, and raw bytes of those values, are the only ways to get one.
func queryMayHoldBadText(raw string) bool {
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if c == 0 || c >= utf8.RuneSelf {
			return true
		}
		if c == '%' && i+2 < len(raw) {
			h := raw[i+1]
			if (h == '0' && raw[i+2] == '0') || (h >= '8' && h <= '9') || (h >= 'a' && h <= 'f') || (h >= 'A' && h <= 'F') {
				return true
			}
		}
	}
	return false
}

// queryTextIssues records an issue for each query parameter whose name or
// value is not valid text.
func queryTextIssues(raw string, issues *apierr.Issues) {
	if !queryMayHoldBadText(raw) {
		return
	}
	q, _ := url.ParseQuery(raw)
	for name, values := range q {
		if !validText(name) {
			issues.Add(apierr.IssueInvalidValue, []any{}, "a query parameter name "+textRule)
			continue
		}
		for _, v := range values {
			if !validText(v) {
				issues.Add(apierr.IssueInvalidValue, []any{name}, textRule)
				break
			}
		}
	}
}

// pathParam is one wildcard of a route pattern and the error a value that
// is not text answers: a not-found code for an id (nothing can have such an
// id), VALIDATION_ERROR for a value the caller chooses (a user id).
type pathParam struct {
	name string
	code apierr.Code
}

// pathNotFound names the code an unknown id answers on the routes whose
// code is not the generic NOT_FOUND, keyed by the pattern's path up to and
// including the wildcard.
var pathNotFound = map[string]apierr.Code{
	"/v1/connectors/{id}":            apierr.ConnectorNotFound,
	"/v1/connections/{id}":           apierr.ConnectionNotFound,
	"/v1/sessions/{id}":              apierr.SessionNotFound,
	"/v1/sessions/{id}/tools/{name}": apierr.ToolNotFound,
}

// pathParams lists the wildcards of a route pattern ("METHOD /a/{id}/b").
func pathParams(pattern string) []pathParam {
	p := pattern
	if _, after, ok := strings.Cut(pattern, " "); ok {
		p = after
	}
	var out []pathParam
	for i := 0; ; {
		open := strings.IndexByte(p[i:], '{')
		if open < 0 {
			return out
		}
		open += i
		end := strings.IndexByte(p[open:], '}') + open
		name := strings.TrimSuffix(p[open+1:end], "...")
		code, ok := pathNotFound[p[:end+1]]
		switch {
		case name == "userId":
			code = apierr.ValidationError
		case !ok:
			code = apierr.NotFound
		}
		out = append(out, pathParam{name: name, code: code})
		i = end + 1
	}
}

// checkRequestText returns the error for the first path value, or every
// query value, that is not valid text; nil when all are.
func checkRequestText(r *http.Request, params []pathParam) *apierr.Error {
	for _, p := range params {
		if validText(r.PathValue(p.name)) {
			continue
		}
		if p.code == apierr.ValidationError {
			return apierr.Validation(apierr.Issue{Code: apierr.IssueInvalidValue, Path: []any{p.name}, Message: textRule})
		}
		return apierr.New(p.code, "the %s in the path is not valid UTF-8 text without NUL characters, so nothing has it", p.name)
	}
	var issues apierr.Issues
	queryTextIssues(r.URL.RawQuery, &issues)
	if len(issues) > 0 {
		return apierr.Validation(issues...)
	}
	return nil
}
