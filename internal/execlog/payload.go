package execlog

import (
	"bytes"
	"encoding/json"
	"strings"
)

// DefaultMaxPayload caps each stored input and output, in bytes.
const DefaultMaxPayload = 8 << 10

// minSecretLen is the shortest credential value redacted wherever it
// appears: shorter ones (a region, "x") would blank out ordinary text.
const minSecretLen = 6

// Redacted replaces a redacted value.
const Redacted = "[redacted]"

// sensitiveParts mark a field name as secret wherever they appear in it
// (case and separators ignored): apiKey, client_secret, X-Auth-Token,
// refreshToken, password, Authorization, private_key, cookie ...
var sensitiveParts = []string{"password", "passwd", "secret", "token", "apikey", "authorization", "privatekey",
	"credential", "cookie", "signature", "accesskey", "sessionkey"}

// redactor redacts one payload: the built-in secret field names, the
// project's own names (matched whole, case ignored) and the account's
// credential values wherever they appear.
type redactor struct {
	names   map[string]bool
	secrets []string
}

func newRedactor(names, secrets []string) redactor {
	r := redactor{secrets: secrets}
	if len(names) > 0 {
		r.names = make(map[string]bool, len(names))
		for _, n := range names {
			r.names[normalName(n)] = true
		}
	}
	return r
}

// normalName lowercases a field name and drops '_', '-' and '.'.
func normalName(s string) string {
	return strings.Map(func(c rune) rune {
		switch c {
		case '_', '-', '.', ' ':
			return -1
		}
		if c >= 'A' && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}, s)
}

func (r redactor) secretName(name string) bool {
	n := normalName(name)
	if r.names[n] {
		return true
	}
	for _, p := range sensitiveParts {
		if strings.Contains(n, p) {
			return true
		}
	}
	return false
}

// encode returns v as redacted JSON of at most max bytes, or nil for no
// value. Past the cap the value is replaced by {"truncated": true,
// "text": the start of the JSON text}, so the cut is marked and the
// stored text stays JSON.
func (r redactor) encode(v any, max int) *string {
	if v == nil {
		return nil
	}
	raw, err := marshal(v)
	if err != nil {
		s := `"[not encodable]"`
		return &s
	}
	if bytes.Equal(raw, []byte("null")) {
		return nil
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var tree any
	if d.Decode(&tree) == nil {
		if raw, err = marshal(r.walk(tree)); err != nil {
			s := `"[not encodable]"`
			return &s
		}
	}
	for _, s := range r.secrets {
		raw = bytes.ReplaceAll(raw, []byte(s), []byte(Redacted))
	}
	if len(raw) > max {
		raw, _ = marshal(map[string]any{"truncated": true, "size": len(raw), "text": cut(string(raw), max) + "…"})
	}
	s := string(raw)
	return &s
}

// walk redacts a decoded JSON value in place and returns it.
func (r redactor) walk(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, c := range x {
			if r.secretName(k) {
				x[k] = Redacted
				continue
			}
			x[k] = r.walk(c)
		}
	case []any:
		for i, c := range x {
			x[i] = r.walk(c)
		}
	case string:
		for _, s := range r.secrets {
			if strings.Contains(x, s) {
				return Redacted
			}
		}
		return r.walkEmbedded(x)
	}
	return v
}

// walkEmbedded redacts a string that holds a JSON object or array (a body
// an API echoes back as text, a form field carrying JSON) as that JSON, so
// that its secret-named fields are redacted too; any other string is
// returned as it is.
func (r redactor) walkEmbedded(s string) string {
	t := strings.TrimSpace(s)
	if len(t) < 2 || (t[0] != '{' || t[len(t)-1] != '}') && (t[0] != '[' || t[len(t)-1] != ']') {
		return s
	}
	d := json.NewDecoder(strings.NewReader(t))
	d.UseNumber()
	var tree any
	if d.Decode(&tree) != nil || d.More() {
		return s
	}
	raw, err := marshal(r.walk(tree))
	if err != nil {
		return s
	}
	return string(raw)
}

// marshal encodes v without HTML escaping, so that credential values are
// found in the text as they are.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(b.Bytes(), "\n"), nil
}
