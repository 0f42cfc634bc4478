package execute

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// outgoing is a provider request before authentication: kept as parts so
// that it can be rebuilt for a retry after a token refresh.
type outgoing struct {
	Method string
	URL    *url.URL
	Header http.Header
	Body   []byte
	// status and took are the provider's last status and the time of
	// every attempt, for the execution log (noteProvider); when
	// keepSecrets is set (the call's payloads are logged), secrets gathers
	// the credential values the requests were sent with, to be redacted.
	status      int
	took        time.Duration
	keepSecrets bool
	secrets     []string
}

// newOutgoing starts a request to a connector's API with the headers its
// definition sends with every request.
func newOutgoing(con *catalog.Connector, method string, u *url.URL) *outgoing {
	out := &outgoing{Method: method, URL: u, Header: make(http.Header, len(con.API.Headers)+2)}
	for k, v := range con.API.Headers {
		if strings.Contains(v, "{") {
			continue // filled from the account's fields when sent (fieldHeaders)
		}
		out.Header.Set(k, v)
	}
	return out
}

var placeholder = regexp.MustCompile(`\{(\+?)([A-Za-z0-9_]+)\}`)

// fillPlaceholders replaces {field} placeholders with the fields' values
// and names a field that was missing, if any.
func fillPlaceholders(tmpl string, fields map[string]string) (out, missing string) {
	if !strings.Contains(tmpl, "{") {
		return tmpl, ""
	}
	out = placeholder.ReplaceAllStringFunc(tmpl, func(m string) string {
		name := placeholder.FindStringSubmatch(m)[2]
		v, ok := fields[name]
		if !ok {
			missing = name
		}
		return v
	})
	return out, missing
}

// fieldDefaults gives an account that lacks a connection field with a
// default (one stored before its connector gained the field: Intercom's
// region host, a Microsoft tenant) that default, so it keeps calling where
// it called before; an account that has the field keeps its own value.
func fieldDefaults(con *catalog.Connector, cred *account.Credential) {
	m := method(con, *cred)
	for _, f := range con.ConnectionFields {
		if f.Default == "" || (m != nil && !f.UsedBy(m.ID)) {
			continue
		}
		if _, ok := cred.Connection[f.Name]; ok {
			continue
		}
		if cred.Connection == nil {
			cred.Connection = map[string]string{}
		}
		cred.Connection[f.Name] = f.Default
	}
}

// urlFields returns the values that fill a base URL template for an
// account of method m: its connection fields and, for a custom method, the
// secret fields without a placement, which exist only to fill the base URL
// (Telegram's bot token in its API path). The secrets are path-escaped so
// that a value cannot change the URL's host or add segments.
func urlFields(m *catalog.AuthMethod, cred account.Credential) map[string]string {
	if m == nil || m.Type != catalog.AuthCustom {
		return cred.Connection
	}
	var out map[string]string
	for _, f := range m.Fields {
		if f.Placement != nil {
			continue
		}
		v, ok := cred.Fields[f.Name]
		if !ok {
			continue
		}
		if out == nil {
			out = maps.Clone(cred.Connection)
			if out == nil {
				out = map[string]string{}
			}
		}
		out[f.Name] = url.PathEscape(v)
	}
	if out == nil {
		return cred.Connection
	}
	return out
}

// baseURL fills connector conID's base URL template from connection fields.
func baseURL(conID, tmpl string, fields map[string]string) (*url.URL, error) {
	raw, missing := fillPlaceholders(tmpl, fields)
	if missing != "" {
		return nil, missingField(conID, missing)
	}
	u, err := url.Parse(strings.TrimRight(raw, "/"))
	if err != nil || u.Host == "" {
		return nil, apierr.New(apierr.ExecutionError, "the %s account's connection fields do not make a valid API address", conID)
	}
	return u, nil
}

func missingField(conID, field string) error {
	return apierr.New(apierr.ExecutionError, "the %s account has no %s; reconnect it with that field", conID, field)
}

// withPathFields returns input with the tool's path placeholders that name
// connection fields (Twilio's {accountSid}) set from the account's
// fields; input itself is not modified. A field the account lacks, or whose
// value does not fit its pattern, is an error: the call would go to
// another path.
func withPathFields(con *catalog.Connector, tool *catalog.Tool, input map[string]any, fields map[string]string) (map[string]any, error) {
	names := tool.PathFields()
	if len(names) == 0 {
		return input, nil
	}
	out := make(map[string]any, len(input)+len(names))
	maps.Copy(out, input)
	for _, n := range names {
		v := fields[n]
		if f := con.Field(n); v == "" || f == nil || !f.Matches(v) {
			return nil, missingField(con.ID, n)
		}
		out[n] = v
	}
	return out, nil
}

// fieldHeaders sets the connector's headers that take connection fields
// (Xero's xero-tenant-id: {tenantId}), unless the request already has
// them (a tool input or a proxy caller may name another value).
func fieldHeaders(h http.Header, con *catalog.Connector, fields map[string]string) error {
	for k, v := range con.API.Headers {
		if !strings.Contains(v, "{") || h.Get(k) != "" {
			continue
		}
		filled, missing := fillPlaceholders(v, fields)
		if missing != "" || filled == "" {
			if missing == "" {
				missing = strings.Trim(v, "{}")
			}
			return missingField(con.ID, missing)
		}
		h.Set(k, filled)
	}
	return nil
}

// buildRequest maps a tool's input onto its HTTP request (catalog README,
// "request").
func buildRequest(tool *catalog.Tool, input map[string]any, base *url.URL) (*outgoing, error) {
	r := tool.Request
	split := tool.Split()
	path, err := expandPath(r.Path, input)
	if err != nil {
		return nil, err
	}
	u := *base
	u.Path = strings.TrimRight(base.Path, "/") + path
	u.RawPath = strings.TrimRight(base.EscapedPath(), "/") + escapedPath(r.Path, input)

	q := url.Values{}
	for k, v := range r.StaticQuery {
		q.Set(k, v)
	}
	for _, name := range split.Query {
		if v, ok := input[name]; ok && v != nil {
			addQuery(q, r.APIName(name), v)
		}
	}
	u.RawQuery = q.Encode()

	out := newOutgoing(tool.Connector(), r.Method, &u)
	if out.Header.Get("Accept") == "" {
		out.Header.Set("Accept", "application/json")
	}
	for header, v := range r.StaticHeaders {
		out.Header.Set(header, v)
	}
	for field, header := range split.Headers {
		if v, ok := input[field]; ok && v != nil {
			out.Header.Set(header, scalar(v))
		}
	}

	if r.GraphQL != "" {
		body, err := json.Marshal(map[string]any{"query": r.GraphQL, "variables": input})
		if err != nil {
			return nil, err
		}
		out.Body = body
		out.Header.Set("Content-Type", "application/json")
		return out, nil
	}
	fields := map[string]any{}
	for k, v := range r.StaticBody {
		fields[k] = v
	}
	for _, name := range split.Body {
		if v, ok := input[name]; ok {
			fields[r.APIName(name)] = v
		}
	}
	if len(fields) == 0 && r.Method != "POST" && r.Method != "PUT" && r.Method != "PATCH" {
		return out, nil
	}
	var body any = fields
	if r.BodyWrap != "" {
		body = map[string]any{r.BodyWrap: fields}
	}
	if r.BodyType == "form" {
		form := url.Values{}
		flattenForm(form, "", body)
		out.Body = []byte(form.Encode())
		out.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		return out, nil
	}
	b, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	out.Body = b
	out.Header.Set("Content-Type", "application/json")
	return out, nil
}

// expandPath fills path placeholders with input values (unescaped form).
// A value that a server could read as or with a dot segment (see climbs) is
// refused: it would climb out of the tool's path.
func expandPath(tmpl string, input map[string]any) (string, error) {
	var bad error
	out := placeholder.ReplaceAllStringFunc(tmpl, func(m string) string {
		sub := placeholder.FindStringSubmatch(m)
		v := scalar(input[sub[2]])
		if climbs(v) {
			bad = apierr.Validation(apierr.Issue{Code: apierr.IssueInvalidValue, Path: []any{"input", sub[2]},
				Message: "must not be or contain a . or .. path segment"})
		}
		return v
	})
	return out, bad
}

// escapedPath fills placeholders percent-encoding each value as one path
// segment ({name}) or keeping its slashes ({+name}).
func escapedPath(tmpl string, input map[string]any) string {
	return placeholder.ReplaceAllStringFunc(tmpl, func(m string) string {
		sub := placeholder.FindStringSubmatch(m)
		v := scalar(input[sub[2]])
		if sub[1] == "+" {
			segs := strings.Split(v, "/")
			for i, s := range segs {
				segs[i] = url.PathEscape(s)
			}
			return strings.Join(segs, "/")
		}
		return url.PathEscape(v)
	})
}

// scalar renders a JSON scalar as text.
func scalar(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case json.Number:
		return x.String()
	case bool:
		return strconv.FormatBool(x)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

// addQuery adds one query parameter: arrays repeat the key, objects become
// name[key]=value, scalars are plain.
func addQuery(q url.Values, name string, v any) {
	switch x := v.(type) {
	case []any:
		for _, item := range x {
			q.Add(name, scalar(item))
		}
	case map[string]any:
		flattenForm(q, name, x)
	default:
		q.Add(name, scalar(v))
	}
}

// flattenForm encodes nested values the way form APIs (Stripe) read them:
// a[b]=c for objects and a[0]=c for arrays.
func flattenForm(form url.Values, prefix string, v any) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			name := k
			if prefix != "" {
				name = prefix + "[" + k + "]"
			}
			flattenForm(form, name, x[k])
		}
	case []any:
		for i, item := range x {
			flattenForm(form, fmt.Sprintf("%s[%d]", prefix, i), item)
		}
	case nil:
	default:
		form.Add(prefix, scalar(v))
	}
}
