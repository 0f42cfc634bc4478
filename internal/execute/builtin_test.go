package execute

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/oauth2"

	builtin "github.com/switchboard-gw/switchboard/catalog"
	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// rewriter sends every request to the fake provider, keeping its path, so
// that each built-in tool can run against one loopback server.
type rewriter struct {
	host string
	next http.RoundTripper
}

func (r *rewriter) RoundTrip(req *http.Request) (*http.Response, error) {
	out := req.Clone(req.Context())
	// The host the executor chose, for the tests that pin it.
	out.Header.Set(originalHostHeader, req.URL.Host)
	out.URL.Scheme, out.URL.Host, out.Host = "https", r.host, ""
	return r.next.RoundTrip(out)
}

// ownPathHandlers send to an upload or ingestion endpoint whose path is
// not the tool's under the base URL; handler_test.go pins their URLs.
var ownPathHandlers = map[string]bool{"google_drive_upload_file": true, "box_upload_file": true, "mixpanel_track_event": true}

// originalHostHeader carries the provider host a request was meant for.
const originalHostHeader = "X-Test-Original-Host"

// preferredAuth is the order in which the test picks a connector's auth method.
var preferredAuth = []string{catalog.AuthAPIKey, catalog.AuthBasic, catalog.AuthCustom, catalog.AuthOAuth2, catalog.AuthNone, catalog.AuthAWSIAM,
	catalog.AuthOAuth2ClientCredentials}

func pickMethod(con *catalog.Connector) *catalog.AuthMethod {
	for _, typ := range preferredAuth {
		for i := range con.AuthMethods {
			if con.AuthMethods[i].Type == typ {
				return &con.AuthMethods[i]
			}
		}
	}
	return nil
}

func sampleCredential(con *catalog.Connector, m *catalog.AuthMethod) map[string]any {
	c := map[string]any{"type": m.Type}
	switch m.Type {
	case catalog.AuthAPIKey:
		c["apiKey"] = "key-" + con.ID
	case catalog.AuthBasic:
		c["username"], c["password"] = "user-"+con.ID, "pass-"+con.ID
	case catalog.AuthCustom:
		fields := map[string]any{}
		for _, f := range m.Fields {
			fields[f.Name] = "field-" + f.Name
		}
		c["fields"] = fields
	case catalog.AuthOAuth2:
		c["accessToken"] = "token-" + con.ID
	case catalog.AuthAWSIAM:
		c["accessKeyId"], c["secretAccessKey"] = "AKID"+strings.ToUpper(con.ID), "secret-"+con.ID
	case catalog.AuthOAuth2ClientCredentials:
		// The test puts the token in the executor's cache (ccTestToken), so
		// that each tool makes one request; grant_test.go and
		// greenhouse_test.go run the token request itself.
		c["clientId"], c["clientSecret"] = "cid-"+con.ID, "cs-"+con.ID
	}
	for _, f := range con.ConnectionFields {
		if !f.UsedBy(m.ID) {
			continue
		}
		if f.FromToken != "" && f.Example == "" && f.Default == "" {
			c[f.Name] = "acme"
			continue
		}
		switch {
		case f.Example != "":
			c[f.Name] = f.Example
		case f.Default != "":
			c[f.Name] = f.Default
		default:
			c[f.Name] = "acme"
		}
	}
	return c
}

// ccTestToken is the token a client-credentials account of con holds in
// the test.
func ccTestToken(con *catalog.Connector) string { return "cc-token-" + con.ID }

// defs holds the $defs of the schema being sampled.
type defs map[string]any

// sampleIn makes a value that satisfies a (simple) schema whose $refs
// point into d.
func sampleIn(d defs, name string, s map[string]any) any {
	if ref, ok := s["$ref"].(string); ok {
		if def, ok := d[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any); ok {
			return sampleIn(d, name, def)
		}
	}
	if enum, ok := s["enum"].([]any); ok && len(enum) > 0 {
		return enum[0]
	}
	if c, ok := s["const"]; ok {
		return c
	}
	for _, k := range []string{"anyOf", "oneOf"} {
		if alts, ok := s[k].([]any); ok && len(alts) > 0 {
			return sampleIn(d, name, alts[0].(map[string]any))
		}
	}
	typ, _ := s["type"].(string)
	if types, ok := s["type"].([]any); ok && len(types) > 0 {
		typ, _ = types[0].(string)
	}
	switch typ {
	case "integer", "number":
		if m, ok := s["minimum"].(float64); ok {
			return m
		}
		return 1.0
	case "boolean":
		return true
	case "array":
		item := map[string]any{"type": "string"}
		if it, ok := s["items"].(map[string]any); ok {
			item = it
		}
		n := 1
		if m, ok := s["minItems"].(float64); ok && m > 1 {
			n = int(m)
		}
		out := make([]any, n)
		for i := range out {
			out[i] = sampleIn(d, name, item)
		}
		return out
	case "object":
		return sampleObject(d, s)
	}
	switch s["format"] {
	case "email":
		return "ann@example.com"
	case "date-time":
		return "2026-01-02T03:04:05Z"
	case "date":
		return "2026-01-02"
	case "uri", "url":
		return "https://example.com/x"
	}
	if p, ok := s["pattern"].(string); ok {
		re, err := regexp.Compile(p)
		if err == nil {
			for _, c := range []string{"acme", "ACME-1", "abc123", "1", "a1", "123456789", "us1", "2026-01-02",
				"AC123456789012345678901234567890ab", "ACME", "appABC123", "recABC123", "tblABC123", "refs/heads/main", "#a1b2c3",
				"0123456789abcdef0123456789abcdef"} {
				if re.MatchString(c) {
					return c
				}
			}
		}
	}
	if m, ok := s["minLength"].(float64); ok && m > 3 {
		return strings.Repeat("x", int(m))
	}
	v := "v-" + strings.ToLower(regexp.MustCompile(`[^A-Za-z0-9]`).ReplaceAllString(name, ""))
	if m, ok := s["maxLength"].(float64); ok && int(m) < len(v) {
		v = v[len(v)-int(m):]
	}
	return v
}

func sampleObject(d defs, s map[string]any) map[string]any {
	if own, ok := s["$defs"].(map[string]any); ok {
		d = own
	}
	props, _ := s["properties"].(map[string]any)
	req, _ := s["required"].([]any)
	out := map[string]any{}
	for _, r := range req {
		name := r.(string)
		if ps, ok := props[name].(map[string]any); ok {
			out[name] = sampleIn(d, name, ps)
		}
	}
	return out
}

// allInput fills every property the schema names, so every mapping rule is exercised.
func allInput(tool *catalog.Tool) map[string]any {
	var s map[string]any
	_ = json.Unmarshal(tool.InputSchema, &s)
	out := sampleObject(nil, s)
	d, _ := s["$defs"].(map[string]any)
	props, _ := s["properties"].(map[string]any)
	for name, p := range props {
		if _, done := out[name]; done {
			continue
		}
		out[name] = sampleIn(d, name, p.(map[string]any))
	}
	return out
}

// newBuiltinEnv is an executor over the built-in catalog whose every
// request, whatever its host, reaches the fake provider (rewriter).
func newBuiltinEnv(t *testing.T) (*catalog.Catalog, *env) {
	t.Helper()
	cat, err := catalog.Load(builtin.FS)
	if err != nil {
		t.Fatal(err)
	}
	e := newEnv(t, cat)
	pool := x509.NewCertPool()
	pool.AddCert(e.fake.srv.Certificate())
	e.exec.client = &http.Client{Transport: &rewriter{host: e.fake.host(), next: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}}
	return cat, e
}

// TestBuiltInTools_EachRunsAgainstAFake executes every built-in tool once,
// with every input property set, against a fake provider that records the
// request, and checks the method, path, authentication, query and body the
// tool's definition says it produces.
func TestBuiltInTools_EachRunsAgainstAFake(t *testing.T) {
	t.Parallel()
	cat, e := newBuiltinEnv(t)

	creds := map[string]map[string]any{}
	for _, con := range cat.Connectors() {
		m := pickMethod(con)
		if m == nil {
			t.Errorf("%s: no auth method the test can use", con.ID)
			continue
		}
		cred := sampleCredential(con, m)
		raw, _ := json.Marshal(cred)
		conn, err := e.accounts.Create(context.Background(), e.tenant(), account.CreateRequest{
			ConnectorID: con.ID, UserID: "u1", Credential: raw, AuthConfigKey: "",
		})
		if err != nil {
			t.Errorf("%s: connect with %s: %v", con.ID, m.Type, err)
			continue
		}
		if m.Type == catalog.AuthOAuth2ClientCredentials {
			e.exec.tokens.put(tokenKey(conn), &oauth2.Token{AccessToken: ccTestToken(con), Expiry: time.Now().Add(24 * time.Hour)})
		}
		creds[con.ID] = cred
	}
	samples := loadSamples(t)
	for id := range samples {
		if _, ok := cat.Tool(id); !ok {
			t.Errorf("testdata/responses: no built-in tool %s", id)
		}
	}
	ran, refused, checked := 0, 0, 0
	for _, tool := range cat.Tools() {
		con := tool.Connector()
		cred, ok := creds[con.ID]
		if !ok {
			continue
		}
		input := allInput(tool)
		raw, _ := json.Marshal(input)
		if _, err := DecodeInput(tool, raw); err != nil {
			t.Errorf("%s: the sample input does not satisfy the schema: %v", tool.ID, err)
			continue
		}
		sample := samples[tool.ID]
		if sample == nil {
			t.Errorf("%s: no sample answer in testdata/responses/%s.yaml to hold its outputSchema to", tool.ID, con.ID)
		}
		e.fake.canned.Store(sample)
		before := len(e.fake.requests)
		result, err := e.exec.Execute(context.Background(), e.tenant(), Call{ToolID: tool.ID, Input: raw, UserID: "u1"})
		e.fake.canned.Store(nil)
		// A tool the account's auth method excludes (Zoom admin tools with
		// user OAuth) is refused before any provider request; grant_test.go
		// runs them with the method that allows them.
		if pickMethod(con).Excludes(tool.ID) {
			if ae, ok := apierr.As(err); !ok || ae.Code != apierr.ActionDisabled || len(e.fake.requests) != before {
				t.Errorf("%s: excluded by auth method %s, but %v (%d requests)", tool.ID, pickMethod(con).ID, err, len(e.fake.requests)-before)
			}
			refused++
			// Its answer is still held to its schema, read as the executor
			// would read it (grant_test.go runs it with its own method).
			if sample != nil && len(tool.OutputSchema) > 0 {
				if err := checkOutput(tool, sampleResult(tool, sample)); err != nil {
					t.Errorf("%s: %v", tool.ID, err)
				} else {
					checked++
				}
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tool.ID, err)
			continue
		}
		if len(e.fake.requests) != before+1 {
			t.Errorf("%s: the provider got %d requests", tool.ID, len(e.fake.requests)-before)
			continue
		}
		ran++
		checkRequest(t, tool, input, cred, e.fake.last())
		if sample != nil {
			// No credential a provider sends back reaches the model.
			var raw any
			b, _ := json.Marshal(result)
			_ = json.Unmarshal(b, &raw)
			var secrets []string
			var allowed map[string]bool
			if strings.HasPrefix(tool.ID, "zoom_") && strings.HasSuffix(tool.ID, "_meeting") {
				allowed = meetingPasscodes
			}
			secretKeys(raw, "", allowed, &secrets)
			if len(secrets) > 0 {
				t.Errorf("%s: the result carries secrets at %v; list them in request.omit", tool.ID, secrets)
			}
			if len(tool.OutputSchema) == 0 {
				t.Errorf("%s: has a sample response but no outputSchema", tool.ID)
			} else if err := checkOutput(tool, result); err != nil {
				t.Errorf("%s: %v", tool.ID, err)
			} else {
				checked++
			}
		}
	}
	t.Logf("%d of %d built-in tools executed and checked, %d refused for the auth method, %d results checked against their outputSchema",
		ran, len(cat.Tools()), refused, checked)
	if checked != len(cat.Tools()) {
		t.Errorf("only %d of %d results were checked against their outputSchema", checked, len(cat.Tools()))
	}
	if ran+refused != len(cat.Tools()) {
		t.Errorf("only %d of %d tools ran", ran+refused, len(cat.Tools()))
	}
}

func checkRequest(t *testing.T, tool *catalog.Tool, input map[string]any, cred map[string]any, got seen) {
	t.Helper()
	r := tool.Request
	con := tool.Connector()
	if got.Method != r.Method {
		t.Errorf("%s: method %s, want %s", tool.ID, got.Method, r.Method)
	}
	fields := stringFields(con, cred)
	base, _ := baseURL(con.ID, con.BaseURLFor(pickMethod(con).ID), fields)
	for k, v := range con.API.Headers {
		if !strings.Contains(v, "{") {
			continue
		}
		if want, _ := fillPlaceholders(v, fields); got.Header.Get(k) != want {
			t.Errorf("%s: header %s is %q, want %q", tool.ID, k, got.Header.Get(k), want)
		}
	}
	if !ownPathHandlers[tool.Handler] {
		// A path placeholder that names a connection field (Twilio's
		// {accountSid}) takes the account's value.
		pathInput := map[string]any{}
		for k, v := range input {
			pathInput[k] = v
		}
		for _, name := range tool.PathFields() {
			pathInput[name] = fields[name]
		}
		wantPath := strings.TrimRight(base.EscapedPath(), "/") + escapedPath(r.Path, pathInput)
		if got.Path != wantPath {
			t.Errorf("%s: path %s, want %s", tool.ID, got.Path, wantPath)
		}
	}
	checkAuth(t, tool, con, cred, got)
	split := tool.Split()
	for _, q := range split.Query {
		if _, ok := input[q]; ok && !hasQuery(got.Query, r.APIName(q)) {
			t.Errorf("%s: query %s missing from %s", tool.ID, r.APIName(q), got.Query.Encode())
		}
	}
	for field, header := range split.Headers {
		if _, ok := input[field]; ok && got.Header.Get(header) == "" {
			t.Errorf("%s: header %s missing", tool.ID, header)
		}
	}
	if tool.Handler != "" {
		return
	}
	if r.GraphQL != "" {
		var body struct {
			Query     string         `json:"query"`
			Variables map[string]any `json:"variables"`
		}
		if err := json.Unmarshal([]byte(got.Body), &body); err != nil || body.Query != r.GraphQL || len(body.Variables) != len(input) {
			t.Errorf("%s: graphql body %s", tool.ID, got.Body)
		}
		return
	}
	if len(split.Body) == 0 {
		return
	}
	if r.BodyType == "form" {
		form, _ := url.ParseQuery(got.Body)
		for _, b := range split.Body {
			if m, ok := input[b].(map[string]any); ok && len(m) == 0 {
				continue // an empty object has no form fields
			}
			name := r.APIName(b)
			if r.BodyWrap != "" {
				name = r.BodyWrap + "[" + name + "]"
			}
			if !hasQuery(form, name) {
				t.Errorf("%s: form field %s missing from %s", tool.ID, name, got.Body)
			}
		}
		return
	}
	var body map[string]any
	if err := json.Unmarshal([]byte(got.Body), &body); err != nil {
		t.Errorf("%s: body is not a JSON object: %q", tool.ID, got.Body)
		return
	}
	if r.BodyWrap != "" {
		body, _ = body[r.BodyWrap].(map[string]any)
	}
	for _, b := range split.Body {
		if _, ok := body[r.APIName(b)]; !ok {
			t.Errorf("%s: body field %s missing from %s", tool.ID, r.APIName(b), got.Body)
		}
	}
}

func hasQuery(q url.Values, name string) bool {
	for k := range q {
		if k == name || strings.HasPrefix(k, name+"[") {
			return true
		}
	}
	return false
}

func stringFields(con *catalog.Connector, cred map[string]any) map[string]string {
	out := map[string]string{}
	for _, f := range con.ConnectionFields {
		if v, ok := cred[f.Name].(string); ok {
			out[f.Name] = v
		}
	}
	// A custom field without a placement fills the base URL (Telegram's
	// bot token in its path): the request must carry it there.
	if m := pickMethod(con); m != nil && m.Type == catalog.AuthCustom {
		fields, _ := cred["fields"].(map[string]any)
		for _, f := range m.Fields {
			if v, ok := fields[f.Name].(string); ok && f.Placement == nil {
				out[f.Name] = v
			}
		}
	}
	return out
}

func checkAuth(t *testing.T, tool *catalog.Tool, con *catalog.Connector, cred map[string]any, got seen) {
	t.Helper()
	m := pickMethod(con)
	find := func(p catalog.Placement, value string) bool {
		if p.In == "query" {
			return slices.Contains(got.Query[p.Name], value) || strings.Contains(got.Query.Get(p.Name), value)
		}
		return strings.Contains(got.Header.Get(p.Name), value)
	}
	ok := true
	switch m.Type {
	case catalog.AuthAPIKey:
		ok = find(*m.APIKey, cred["apiKey"].(string))
	case catalog.AuthBasic:
		u, p, has := basicAuth(got.Header.Get("Authorization"))
		ok = has && u == cred["username"] && p == cred["password"]
	case catalog.AuthCustom:
		for _, f := range m.Fields {
			if f.Placement != nil && !find(*f.Placement, "field-"+f.Name) {
				ok = false
			}
		}
	case catalog.AuthOAuth2:
		p := bearer
		if m.OAuth2.Placement != nil {
			p = *m.OAuth2.Placement
		}
		ok = find(p, cred["accessToken"].(string))
	case catalog.AuthAWSIAM:
		ok = strings.HasPrefix(got.Header.Get("Authorization"), "AWS4-HMAC-SHA256 ")
	case catalog.AuthOAuth2ClientCredentials:
		ok = got.Header.Get("Authorization") == "Bearer "+ccTestToken(con)
	}
	if !ok {
		t.Errorf("%s: %s credential not found in the request (headers %v, query %v)", tool.ID, m.Type, got.Header, got.Query)
	}
}
