package catalog

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

var (
	// idPattern is the shape of connector, tool and trigger ids.
	idPattern        = regexp.MustCompile(`^[a-z0-9]+(_[a-z0-9]+)*$`)
	placeholderRegex = regexp.MustCompile(`\{\+?([A-Za-z0-9_]+)\}`)
	handlerPattern   = regexp.MustCompile(`^[a-z0-9_]+$`)
	methods          = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}
	authTypes        = []string{AuthOAuth2, AuthOAuth2ClientCredentials, AuthAPIKey, AuthBasic, AuthAWSIAM, AuthCustom, AuthNone,
		AuthJWTBearer, AuthServiceAccount, AuthGitHubApp}
)

// MaxToolIDLen bounds tool and trigger ids so they are valid function names
// for every model vendor.
const MaxToolIDLen = 64

// Schemes are the webhook verification schemes a trigger may name; the
// trigger package implements each.
var Schemes = []string{
	"github_hmac_sha256", "gitlab_token", "slack_v0", "stripe", "standard_webhooks", "shopify_hmac",
	"linear_hmac", "twilio", "hubspot_v3", "intercom_hmac_sha1", "calendly", "zendesk", "sentry",
	"jira_hmac", "pagerduty_v1", "square", "zoom", "clickup", "asana",
}

// validator collects problems with the field path each concerns.
type validator struct {
	problems []string
	// relaxed accepts the input schemas of a project's own connectors as
	// their source gives them: compiled and of type object, but without
	// the built-ins' house rules (closed objects, known keywords).
	relaxed bool
	// urlSecrets are the current connector's custom-method fields without
	// a placement that every auth method has: secrets that only fill a
	// base URL placeholder (Telegram's bot token in its API path).
	urlSecrets map[string]bool
}

func (v *validator) add(field, format string, args ...any) {
	v.problems = append(v.problems, field+": "+fmt.Sprintf(format, args...))
}

func (v *validator) connector(c *Connector) {
	if !idPattern.MatchString(c.ID) {
		v.add("id", "%q must be lowercase letters and digits joined by single underscores", c.ID)
	}
	if c.Name == "" {
		v.add("name", "is required")
	}
	if len(c.Description) < 20 {
		v.add("description", "is required (a sentence on what the application is)")
	}
	if !slices.Contains(Categories, c.Category) {
		v.add("category", "%q is not one of %s", c.Category, strings.Join(Categories, ", "))
	}
	if c.Popularity < 0 {
		v.add("popularity", "must be a positive rank, or left out")
	}
	for i, o := range c.API.Omit {
		if !dottedPath(o) {
			v.add(fmt.Sprintf("api.omit[%d]", i), "%q is not a dotted path of a field", o)
		}
	}
	if len(c.API.Omit) > 0 && !c.API.Proxy {
		v.add("api.omit", "applies to the raw proxy, which this connector does not accept (api.proxy is false)")
	}
	switch c.Verification {
	case "":
		c.Verification = "unverified"
	case "verified", "unverified":
	default:
		v.add("verification", "%q must be verified or unverified", c.Verification)
	}

	// Reset for each connector: an MCP server's base URL takes none.
	v.urlSecrets = map[string]bool{}
	if !c.MCP() {
		v.urlSecrets = urlSecretFields(c)
	}
	fields := map[string]bool{}
	for i := range c.ConnectionFields {
		f := &c.ConnectionFields[i]
		p := fmt.Sprintf("connectionFields[%d]", i)
		if f.Name == "" || f.Label == "" {
			v.add(p, "name and label are required")
		}
		if fields[f.Name] {
			v.add(p+".name", "%q appears twice", f.Name)
		}
		fields[f.Name] = true
		if f.Pattern != "" {
			re, err := regexp.Compile("^(?:" + f.Pattern + ")$")
			if err != nil {
				v.add(p+".pattern", "does not compile: %v", err)
			}
			f.re = re
		}
	}
	if c.MCP() {
		// A project's MCP server may live on an internal http address
		// (reached only when the operator allows that network).
		if u, err := url.Parse(c.API.BaseURL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			v.add("api.baseUrl", "%q must be an http(s) URL", c.API.BaseURL)
		}
		if c.API.Transport != "" && c.API.Transport != TransportSSE {
			v.add("api.transport", "%q is not a transport; leave it empty (Streamable HTTP) or say %q", c.API.Transport, TransportSSE)
		}
	} else {
		// An imported internal API may be plain http: the import accepts
		// it only for a host in a network the operator opened to the
		// connector (upstream.ImportOptions.PlainHTTPFunc).
		for name := range v.urlSecrets {
			if !strings.Contains(c.API.BaseURL, "{"+name+"}") {
				delete(v.urlSecrets, name)
			}
		}
		baseFields := maps.Clone(fields)
		for name := range v.urlSecrets {
			baseFields[name] = true
		}
		v.baseURL("api.baseUrl", c.API.BaseURL, baseFields, v.relaxed && c.Origin == OriginOpenAPI)
		for name := range v.urlSecrets {
			if c.API.Proxy {
				v.add("api.proxy", "must be false: the base URL holds the credential field %s, and the proxy's answers name the base URL", name)
			}
		}
		if c.API.Transport != "" {
			v.add("api.transport", "is only for a project's MCP servers")
		}
	}

	if len(c.AuthMethods) == 0 {
		v.add("authMethods", "at least one is required")
	}
	seen := map[string]bool{}
	for i := range c.AuthMethods {
		m := &c.AuthMethods[i]
		p := fmt.Sprintf("authMethods[%d]", i)
		if seen[m.ID] {
			v.add(p+".id", "%q appears twice", m.ID)
		}
		seen[m.ID] = true
		v.authMethod(p, m, fields)
		v.methodFields(p, c, m)
	}
	for i, f := range c.ConnectionFields {
		for j, id := range f.AuthMethods {
			if !seen[id] {
				v.add(fmt.Sprintf("connectionFields[%d].authMethods[%d]", i, j), "%q is not an auth method of %s", id, c.ID)
			}
		}
	}
	if !c.MCP() {
		for name, val := range c.API.Headers {
			for _, m := range placeholderRegex.FindAllStringSubmatch(val, -1) {
				if !fields[m[1]] {
					v.add("api.headers."+name, "placeholder {%s} is not a connection field", m[1])
				}
			}
		}
	}
	v.identity("identity", c.Identity)
	for i := range c.AuthMethods {
		v.identity(fmt.Sprintf("authMethods[%d].identity", i), c.AuthMethods[i].Identity)
	}
	// A project's MCP server that signs its users in with OAuth may list
	// its tools only to a signed-in user: it has none until the first
	// user connects (upstream.FetchTools).
	if len(c.Tools) == 0 && !(v.relaxed && c.MCP() && c.OAuthMCP()) {
		v.add("tools", "at least one tool is required")
	}
	for i, t := range c.Tools {
		t.connector = c
		v.tool(fmt.Sprintf("tools[%d] (%s)", i, t.ID), c, t)
	}
	for i := range c.AuthMethods {
		v.excludedTools(fmt.Sprintf("authMethods[%d]", i), c, &c.AuthMethods[i])
	}
	for i, tr := range c.Triggers {
		tr.connector = c
		v.trigger(fmt.Sprintf("triggers[%d] (%s)", i, tr.ID), c, tr)
	}
}

// baseURL checks an https URL without a query; plainHTTP accepts http too.
func (v *validator) baseURL(field, raw string, fields map[string]bool, plainHTTP bool) {
	filled := placeholderRegex.ReplaceAllStringFunc(raw, func(m string) string {
		name := placeholderRegex.FindStringSubmatch(m)[1]
		if !fields[name] {
			v.add(field, "placeholder {%s} is not a connection field", name)
		}
		return "x"
	})
	u, err := url.Parse(filled)
	if err != nil || u.Host == "" || u.RawQuery != "" || (u.Scheme != "https" && !(plainHTTP && u.Scheme == "http")) {
		v.add(field, "%q must be an https URL without a query", raw)
	}
}

func (v *validator) authMethod(p string, m *AuthMethod, fields map[string]bool) {
	if m.ID == "" || m.Name == "" {
		v.add(p, "id and name are required")
	}
	if !slices.Contains(authTypes, m.Type) {
		v.add(p+".type", "%q is not one of %s", m.Type, strings.Join(authTypes, ", "))
		return
	}
	v.methodPaths(p, m, fields)
	switch m.Type {
	case AuthJWTBearer, AuthServiceAccount, AuthGitHubApp:
		v.grantMethod(p, m, fields)
		return
	}
	switch m.Type {
	case AuthOAuth2, AuthOAuth2ClientCredentials:
		if m.OAuth2 == nil {
			v.add(p+".oauth2", "is required for type %s", m.Type)
			return
		}
		if m.Type == AuthOAuth2 {
			v.baseURL(p+".oauth2.authorizeUrl", m.OAuth2.AuthorizeURL, fields, false)
		}
		v.baseURL(p+".oauth2.tokenUrl", m.OAuth2.TokenURL, fields, false)
		v.tokenRequest(p, m, fields)
		switch m.OAuth2.TokenAuthStyle {
		case "":
			m.OAuth2.TokenAuthStyle = "header"
		case "header", "body":
		default:
			v.add(p+".oauth2.tokenAuthStyle", "%q must be header or body", m.OAuth2.TokenAuthStyle)
		}
		if m.OAuth2.Placement != nil {
			v.placement(p+".oauth2.placement", m.OAuth2.Placement)
		}
		if m.Type == AuthOAuth2 && (Templated(m.OAuth2.AuthorizeURL) || Templated(m.OAuth2.TokenURL) || Templated(m.OAuth2.RefreshURL)) && len(m.OAuth2.AllowedHosts) == 0 {
			v.add(p+".oauth2.allowedHosts", "is required when the authorize, token or refresh URL has a placeholder: the client secret goes to the host the user types")
		}
		for i, h := range m.OAuth2.AllowedHosts {
			if !ValidHostPattern(h) {
				v.add(fmt.Sprintf("%s.oauth2.allowedHosts[%d]", p, i), "%q is not a host name, host:port or *.domain", h)
			}
		}
		v.tokenParams(p, m, fields)
		if r := m.OAuth2.Resource; r != "" {
			if u, err := url.Parse(r); err != nil || !u.IsAbs() || u.Host == "" || u.Fragment != "" {
				v.add(p+".oauth2.resource", "%q must be an absolute URL without a fragment", r)
			}
		}
	case AuthAPIKey:
		if m.APIKey == nil {
			v.add(p+".apiKey", "is required for type api_key (where the key goes)")
			return
		}
		v.placement(p+".apiKey", m.APIKey)
	case AuthAWSIAM:
		if m.AWS == nil || m.AWS.Service == "" || m.AWS.Region == "" {
			v.add(p+".aws", "service and region are required for type aws_iam")
		}
	case AuthCustom:
		if len(m.Fields) == 0 {
			v.add(p+".fields", "a custom method needs at least one field")
		}
		for j, f := range m.Fields {
			fp := fmt.Sprintf("%s.fields[%d]", p, j)
			if f.Name == "" || f.Label == "" {
				v.add(fp, "name and label are required")
			}
			if f.Placement != nil {
				v.placement(fp+".placement", f.Placement)
			} else if !fields[f.Name] && !v.urlSecrets[f.Name] {
				v.add(fp+".placement", "is required unless the field fills a base URL placeholder")
			}
		}
	}
}

func (v *validator) placement(p string, pl *Placement) {
	switch pl.In {
	case "header", "query":
	default:
		v.add(p+".in", "%q must be header or query", pl.In)
	}
	if pl.Name == "" {
		v.add(p+".name", "is required")
	}
	if pl.Format != "" && !strings.Contains(pl.Format, "{value}") {
		v.add(p+".format", "%q must contain {value}", pl.Format)
	}
}

// schemaProperties returns the top-level properties and required list.
func schemaProperties(s Schema) (props map[string]json.RawMessage, required []string, typ string, addl json.RawMessage) {
	var doc struct {
		Type                 string                     `json:"type"`
		Properties           map[string]json.RawMessage `json:"properties"`
		Required             []string                   `json:"required"`
		AdditionalProperties json.RawMessage            `json:"additionalProperties"`
	}
	_ = json.Unmarshal(s, &doc)
	return doc.Properties, doc.Required, doc.Type, doc.AdditionalProperties
}

func (v *validator) tool(p string, c *Connector, t *Tool) {
	if !idPattern.MatchString(t.ID) || !strings.HasPrefix(t.ID, c.ID+"_") || len(t.ID) > MaxToolIDLen {
		v.add(p+".id", "must be %s_<verb>_<noun> in snake case, at most %d characters", c.ID, MaxToolIDLen)
	}
	if t.Name == "" {
		v.add(p+".name", "is required")
	}
	if len(t.Description) < 30 {
		v.add(p+".description", "must tell a model what the tool does and when to use it (30+ characters)")
	}
	if !slices.Contains([]string{EffectRead, EffectWrite, EffectDestructive}, t.Effect) {
		v.add(p+".effect", "%q must be read, write or destructive", t.Effect)
	}
	if t.Irreversible && t.Effect == EffectRead {
		v.add(p+".irreversible", "a read tool changes nothing, so nothing about it is irreversible; set it only on write or destructive tools")
	}
	if t.DataClassification != "" && ClassRank(t.DataClassification) < 0 {
		v.add(p+".dataClassification", "%q must be standard, pii or phi", t.DataClassification)
	}
	if t.RequiredScopes == nil {
		t.RequiredScopes = []string{}
	}
	if len(t.InputSchema) == 0 {
		v.add(p+".inputSchema", "is required")
		return
	}
	sch, err := compileSchema(t.ID+"/input", t.InputSchema)
	if err != nil {
		v.add(p+".inputSchema", "%v", err)
		return
	}
	t.input = sch
	if !v.relaxed {
		for _, pr := range checkSchemaKeywords(t.InputSchema, true) {
			v.add(p+".inputSchema", "%s", pr)
		}
	}
	if len(t.OutputSchema) > 0 {
		for _, pr := range checkSchemaKeywords(t.OutputSchema, false) {
			v.add(p+".outputSchema", "%s", pr)
		}
		if _, err := compileSchema(t.ID+"/output", t.OutputSchema); err != nil {
			v.add(p+".outputSchema", "%v", err)
		}
	}
	props, required, typ, addl := schemaProperties(t.InputSchema)
	if typ != "object" {
		v.add(p+".inputSchema.type", "must be object")
	}
	if string(addl) != "false" && !v.relaxed {
		v.add(p+".inputSchema.additionalProperties", "must be false")
	}
	for _, r := range required {
		if _, ok := props[r]; !ok {
			v.add(p+".inputSchema.required", "%q is not a property", r)
		}
	}
	if t.Handler != "" && !handlerPattern.MatchString(t.Handler) {
		v.add(p+".handler", "%q must be a snake_case handler name", t.Handler)
	}
	switch {
	case t.Request != nil:
		v.request(p+".request", t, props, required, c)
	case t.Handler == "" && !c.MCP():
		v.add(p, "needs a request mapping or a handler")
	}
}

func (v *validator) request(p string, t *Tool, props map[string]json.RawMessage, required []string, c *Connector) {
	r := t.Request
	t.pathFields = nil
	if !slices.Contains(methods, r.Method) {
		v.add(p+".method", "%q must be one of %s", r.Method, strings.Join(methods, ", "))
	}
	if !strings.HasPrefix(r.Path, "/") {
		v.add(p+".path", "%q must start with /", r.Path)
	}
	for i, o := range r.Omit {
		if o == "" || strings.HasPrefix(o, ".") || strings.HasSuffix(o, ".") || strings.Contains(o, "..") {
			v.add(fmt.Sprintf("%s.omit[%d]", p, i), "%q is not a dotted path of a field", o)
		}
	}
	used := map[string]string{}
	use := func(field, where string) {
		if _, ok := props[field]; !ok {
			v.add(p+"."+where, "%q is not a property of the input schema", field)
		}
		// A path parameter listed in the body of a PATCH, PUT or POST goes
		// to both: JSON:API APIs (Klaviyo) name the resource's id in the
		// path and in the body.
		prev, ok := used[field]
		both := prev == "path" && where == "body" && (r.Method == "PATCH" || r.Method == "PUT" || r.Method == "POST")
		if ok && prev != where && !both {
			v.add(p+"."+where, "%q is already sent in the %s", field, prev)
		}
		used[field] = where
	}
	for _, m := range placeholderRegex.FindAllStringSubmatch(r.Path, -1) {
		if _, input := props[m[1]]; !input && c.Field(m[1]) != nil {
			// Filled from the account (Twilio's Account SID).
			t.pathFields = append(t.pathFields, m[1])
			continue
		}
		use(m[1], "path")
		if !slices.Contains(required, m[1]) {
			v.add(p+".path", "path parameter %q must be required in the input schema", m[1])
		}
	}
	for _, q := range r.Query {
		use(q, "query")
	}
	for f, h := range r.Headers {
		use(f, "headers")
		if h == "" {
			v.add(p+".headers", "%q maps to an empty header name", f)
		}
	}
	for _, b := range r.Body {
		use(b, "body")
	}
	for h, val := range r.StaticHeaders {
		if !validHeaderName(h) || val == "" || strings.ContainsAny(val, "\r\n") {
			v.add(p+".staticHeaders", "%q: a header needs a token name and a one-line value that is not empty", h)
		}
	}
	for field, api := range r.Rename {
		if _, ok := props[field]; !ok {
			v.add(p+".rename", "%q is not a property of the input schema", field)
		}
		if api == "" {
			v.add(p+".rename", "%q maps to an empty name", field)
		}
	}
	switch r.BodyType {
	case "", "json", "form":
	default:
		v.add(p+".bodyType", "%q must be json or form", r.BodyType)
	}
	if r.GraphQL != "" && r.Method != "POST" {
		v.add(p+".method", "a GraphQL request is a POST")
	}
	// A DELETE sends a body only when the tool names its fields (GitHub
	// reads a file deletion's commit message from it); a GET never does.
	if r.Method == "GET" && len(r.Body) > 0 && r.GraphQL == "" {
		v.add(p+".body", "a %s request sends no body", r.Method)
	}
}

func (v *validator) trigger(p string, c *Connector, tr *Trigger) {
	if !idPattern.MatchString(tr.ID) || !strings.HasPrefix(tr.ID, c.ID+"_") || len(tr.ID) > MaxToolIDLen {
		v.add(p+".id", "must be %s_<event> in snake case, at most %d characters", c.ID, MaxToolIDLen)
	}
	if tr.Name == "" || len(tr.Description) < 20 {
		v.add(p, "name and a description are required")
	}
	var configProps map[string]json.RawMessage
	var configRequired []string
	if len(tr.ConfigSchema) > 0 {
		sch, err := compileSchema(tr.ID+"/config", tr.ConfigSchema)
		if err != nil {
			v.add(p+".configSchema", "%v", err)
		} else {
			tr.config = sch
		}
		configProps, configRequired, _, _ = schemaProperties(tr.ConfigSchema)
	}
	switch tr.Kind {
	case "":
		tr.Kind = KindWebhook
	case KindWebhook, KindPoll:
	default:
		v.add(p+".kind", "%q must be webhook or poll", tr.Kind)
		return
	}
	if tr.Kind == KindPoll {
		v.pollTrigger(p, tr, configProps, configRequired)
		return
	}
	if tr.Poll != nil {
		v.add(p+".poll", "belongs to kind poll")
	}
	if !slices.Contains(Schemes, tr.Verification) {
		v.add(p+".verification", "%q is not a known scheme (%s)", tr.Verification, strings.Join(Schemes, ", "))
	}
	if len(tr.Match.Headers) == 0 && len(tr.Match.Body) == 0 {
		v.add(p+".match", "needs at least one header or body selector")
	}
	if !tr.Setup.Manual && tr.Setup.Register == nil {
		v.add(p+".setup", "must allow manual setup, automatic setup (register), or both")
	}
	if (tr.Setup.Register == nil) != (tr.Setup.Unregister == nil) {
		v.add(p+".setup", "register and unregister go together")
	}
	for _, call := range []*HookCall{tr.Setup.Register, tr.Setup.Unregister} {
		if call == nil {
			continue
		}
		if !slices.Contains(methods, call.Method) || !strings.HasPrefix(call.Path, "/") {
			v.add(p+".setup", "%s %s is not a method and a path", call.Method, call.Path)
		}
		if call.BodyType != "" && call.BodyType != "json" && call.BodyType != "form" {
			v.add(p+".setup.bodyType", "%q must be json or form", call.BodyType)
		}
		for _, m := range placeholderRegex.FindAllStringSubmatch(call.Path, -1) {
			if _, ok := configProps[m[1]]; !ok && m[1] != "hookId" {
				v.add(p+".setup", "path placeholder {%s} is neither a config field nor hookId", m[1])
			}
		}
	}
	if tr.Setup.Register != nil && tr.Setup.Register.HookID == "" {
		v.add(p+".setup.register.hookId", "is required: where the created webhook's id is in the response")
	}
}

// ValidID reports whether id has the shape of a connector id: lowercase
// letters and digits in words joined by single underscores. A project's
// own connectors (imported APIs, MCP servers) take the same rule.
func ValidID(id string) bool { return idPattern.MatchString(id) }

// identity checks an identity call, the connector's or a method's.
func (v *validator) identity(p string, id *Identity) {
	if id == nil {
		return
	}
	if id.Label == "" || (id.Path == "" && id.GraphQL == "") {
		v.add(p, "needs a path (or graphql) and a label")
	}
	if id.Method != "" && !slices.Contains(methods, id.Method) {
		v.add(p+".method", "%q is not an HTTP method", id.Method)
	}
}

// validHeaderName reports whether h is an HTTP header field name (an RFC
// 9110 token).
func validHeaderName(h string) bool {
	if h == "" {
		return false
	}
	for _, c := range h {
		if c > 0x7e || c <= ' ' || strings.ContainsRune("\"(),/:;<=>?@[\\]{}", c) {
			return false
		}
	}
	return true
}

// urlSecretFields returns the names of the custom-method fields without a
// placement that every auth method of c has: a base URL placeholder may
// name one (a credential the provider wants in its API path), since every
// account then holds a value for it.
func urlSecretFields(c *Connector) map[string]bool {
	out := map[string]bool{}
	for i, m := range c.AuthMethods {
		names := map[string]bool{}
		if m.Type == AuthCustom {
			for _, f := range m.Fields {
				if f.Placement == nil && f.Name != "" {
					names[f.Name] = true
				}
			}
		}
		if i == 0 {
			out = names
			continue
		}
		for name := range out {
			if !names[name] {
				delete(out, name)
			}
		}
	}
	return out
}
