package upstream

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// ImportOptions name and place an imported API.
type ImportOptions struct {
	ID          string
	Name        string
	Description string
	Category    string
	// BaseURL overrides the document's first server.
	BaseURL string
	// PlainHTTPFunc, when set, is asked about a base URL with plain http:
	// nil means its host is inside a network the operator opened to this
	// connector, so http is accepted; an error says why not. Without it
	// the base URL must be https.
	PlainHTTPFunc func(ctx context.Context, host string) error
}

// Report says what an import made and skipped.
type Report struct {
	Tools   int      `json:"tools"`
	Skipped []string `json:"skipped,omitempty"`
	// PlainHTTP is set when the base URL is plain http, accepted because
	// its host is in a network opened to the connector.
	PlainHTTP bool `json:"plainHttp,omitempty"`
}

var (
	nonWord    = regexp.MustCompile(`[^a-z0-9]+`)
	camelHump  = regexp.MustCompile(`([a-z0-9])([A-Z])`)
	validParam = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)
)

// snake turns an operationId or path into snake case.
func snake(s string) string {
	s = camelHump.ReplaceAllString(s, "${1}_${2}")
	return strings.Trim(nonWord.ReplaceAllString(strings.ToLower(s), "_"), "_")
}

// ImportOpenAPI reads an OpenAPI 3.0 or 3.1 document and returns the
// connector it describes: every operation a tool, input schemas in JSON
// Schema 2020-12, auth methods from its security schemes. A document that
// does not parse or validate is refused with the reason.
func ImportOpenAPI(ctx context.Context, data []byte, o ImportOptions) (*catalog.Connector, Report, error) {
	var rep Report
	if !catalog.ValidID(o.ID) {
		return nil, rep, fmt.Errorf("the id %q must be lowercase letters and digits joined by underscores", o.ID)
	}
	doc, err := loadDocument(data, false)
	if err != nil {
		return nil, rep, err
	}
	base := o.BaseURL
	if base == "" {
		if len(doc.Servers) == 0 {
			return nil, rep, errors.New("the document names no server: give --base-url")
		}
		s := doc.Servers[0]
		base = s.URL
		for name, v := range s.Variables {
			base = strings.ReplaceAll(base, "{"+name+"}", v.Default)
		}
	}
	if rep.PlainHTTP, err = checkBaseURL(ctx, base, o.PlainHTTPFunc); err != nil {
		return nil, rep, err
	}
	con := &catalog.Connector{
		ID: o.ID, Name: cmp.Or(o.Name, doc.Info.Title, o.ID), Category: cmp.Or(o.Category, "developer-tools"),
		Description: cmp.Or(o.Description, strings.TrimSpace(doc.Info.Description), doc.Info.Title+" (an imported REST API)."),
		API:         catalog.API{BaseURL: strings.TrimRight(base, "/"), Proxy: true}, Origin: catalog.OriginOpenAPI,
	}
	if len(con.Description) < 20 {
		con.Description += " — an imported REST API."
	}
	con.AuthMethods = authMethods(doc, &rep)
	con.Tools = documentTools(con.ID, doc, &rep, nil)
	if len(con.Tools) == 0 {
		return nil, rep, errors.New("the document has no operation Switchboard can run")
	}
	rep.Tools = len(con.Tools)
	// Validate now, so nothing is stored half-made.
	if err := catalog.CheckOwn(con); err != nil {
		return nil, rep, err
	}
	return con, rep, nil
}

// documentTools makes a tool of every operation of doc, in path order,
// recording in rep the operations it cannot run. keep, when given, may
// adjust each tool or refuse it (with the reason for rep). Ids stay unique:
// a repeated one gets a number.
func documentTools(connectorID string, doc *openapi3.T, rep *Report, keep func(tool *catalog.Tool, op *openapi3.Operation) (refused string)) []*catalog.Tool {
	components := map[string]*openapi3.SchemaRef{}
	if doc.Components != nil {
		components = doc.Components.Schemas
	}
	var tools []*catalog.Tool
	seen := map[string]bool{}
	paths := doc.Paths.InMatchingOrder()
	sort.Strings(paths)
	for _, path := range paths {
		item := doc.Paths.Value(path)
		for _, method := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
			op := item.GetOperation(method)
			if op == nil {
				continue
			}
			tool, why := operationTool(connectorID, method, path, item, op, components)
			if tool == nil {
				rep.Skipped = append(rep.Skipped, method+" "+path+": "+why)
				continue
			}
			if keep != nil {
				if why := keep(tool, op); why != "" {
					rep.Skipped = append(rep.Skipped, method+" "+path+" ("+tool.ID+"): "+why)
					continue
				}
			}
			for n := 2; seen[tool.ID]; n++ {
				tool.ID = truncateID(strings.TrimSuffix(tool.ID, fmt.Sprintf("_%d", n-1)) + fmt.Sprintf("_%d", n))
			}
			seen[tool.ID] = true
			tools = append(tools, tool)
		}
	}
	return tools
}

// loadDocument parses and validates an OpenAPI 3.0 or 3.1 document, with
// no external references. allowConflicts accepts paths that differ only
// in their placeholders' names (GET /a/{id} next to DELETE /a/{digest}):
// large published descriptions have them, and each operation still makes
// a tool of its own, validated when the tool is checked.
func loadDocument(data []byte, allowConflicts bool) (*openapi3.T, error) {
	loader := openapi3.NewLoader()
	loader.IsExternalRefsAllowed = false
	doc, err := loader.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("the document does not parse: %w", err)
	}
	opts := []openapi3.ValidationOption{openapi3.DisableExamplesValidation()}
	if allowConflicts {
		opts = append(opts, openapi3.EnableMultiError())
	}
	if err := doc.Validate(loader.Context, opts...); err != nil && !(allowConflicts && conflictsOnly(err)) {
		return nil, fmt.Errorf("the document is not valid OpenAPI: %w", err)
	}
	return doc, nil
}

// conflictsOnly reports whether every problem err collects is a pair of
// conflicting paths.
func conflictsOnly(err error) bool {
	var multi openapi3.MultiError
	if errors.As(err, &multi) {
		for _, e := range multi {
			if !conflictsOnly(e) {
				return false
			}
		}
		return len(multi) > 0
	}
	var conflict *openapi3.ConflictingPathsError
	return errors.As(err, &conflict)
}

// checkBaseURL requires an absolute https URL, or plain http to a host
// that plainHTTP accepts (an internal API in a network the operator opened
// to the connector): credentials then travel in the clear only inside it.
// It reports whether the URL is plain http.
func checkBaseURL(ctx context.Context, base string, plainHTTP func(context.Context, string) error) (bool, error) {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || (u.Scheme != "https" && u.Scheme != "http") {
		return false, fmt.Errorf("the API base URL %q must be an absolute https URL", base)
	}
	if u.Scheme == "https" {
		return false, nil
	}
	if plainHTTP == nil {
		return false, fmt.Errorf("the API base URL %q must be https", base)
	}
	if err := plainHTTP(ctx, u.Hostname()); err != nil {
		return false, fmt.Errorf("the API base URL %q must be https unless its host is in a private network opened to this connector "+
			"(SWITCHBOARD_OUTBOUND_ALLOW=connector:ID=CIDR or connectors=CIDR): %w", base, err)
	}
	return true, nil
}

// truncateID keeps a tool id within 64 characters, with a hash suffix
// when it had to be cut.
func truncateID(id string) string {
	if len(id) <= catalog.MaxToolIDLen {
		return id
	}
	sum := sha256.Sum256([]byte(id))
	return strings.TrimRight(id[:catalog.MaxToolIDLen-9], "_") + "_" + hex.EncodeToString(sum[:4])
}

func authMethods(doc *openapi3.T, rep *Report) []catalog.AuthMethod {
	var out []catalog.AuthMethod
	if doc.Components != nil {
		names := make([]string, 0, len(doc.Components.SecuritySchemes))
		for n := range doc.Components.SecuritySchemes {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			ref := doc.Components.SecuritySchemes[n]
			if ref == nil || ref.Value == nil {
				continue
			}
			ss := ref.Value
			id := snake(n)
			if id == "" {
				id = "auth"
			}
			m := catalog.AuthMethod{ID: id, Name: cmp.Or(ss.Description, n)}
			switch {
			case ss.Type == "apiKey" && (ss.In == "header" || ss.In == "query"):
				m.Type = catalog.AuthAPIKey
				m.APIKey = &catalog.Placement{In: ss.In, Name: ss.Name}
			case ss.Type == "http" && strings.EqualFold(ss.Scheme, "bearer"):
				m.Type = catalog.AuthAPIKey
				m.APIKey = &catalog.Placement{In: "header", Name: "Authorization", Format: "Bearer {value}"}
			case ss.Type == "http" && strings.EqualFold(ss.Scheme, "basic"):
				m.Type = catalog.AuthBasic
				m.Basic = &catalog.Basic{UsernameLabel: "Username", PasswordLabel: "Password"}
			case ss.Type == "oauth2" && ss.Flows != nil && ss.Flows.AuthorizationCode != nil:
				f := ss.Flows.AuthorizationCode
				m.Type = catalog.AuthOAuth2
				m.OAuth2 = &catalog.OAuth2{AuthorizeURL: f.AuthorizationURL, TokenURL: f.TokenURL, Scopes: scopeNames(f.Scopes), Refresh: true, PKCE: true}
			case ss.Type == "oauth2" && ss.Flows != nil && ss.Flows.ClientCredentials != nil:
				f := ss.Flows.ClientCredentials
				m.Type = catalog.AuthOAuth2ClientCredentials
				m.OAuth2 = &catalog.OAuth2{TokenURL: f.TokenURL, Scopes: scopeNames(f.Scopes)}
			default:
				what := "type " + ss.Type
				switch ss.Type {
				case "apiKey":
					what = "an API key in " + ss.In
				case "http":
					what = "HTTP scheme " + ss.Scheme
				case "oauth2":
					what = "OAuth 2 without an authorization code or client credentials flow"
				}
				rep.Skipped = append(rep.Skipped, "security scheme "+n+": "+what+" is not supported")
				continue
			}
			out = append(out, m)
		}
	}
	if len(out) == 0 {
		out = append(out, catalog.AuthMethod{ID: "none", Type: catalog.AuthNone, Name: "No authentication"})
	}
	return out
}

func scopeNames(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// operationTool makes one tool of an operation, or says why it cannot.
func operationTool(connector, method, path string, item *openapi3.PathItem, op *openapi3.Operation,
	components map[string]*openapi3.SchemaRef) (*catalog.Tool, string) {
	name := op.OperationID
	if name == "" {
		name = strings.ToLower(method) + " " + path
	}
	id := truncateID(connector + "_" + snake(name))
	if id == connector+"_" {
		return nil, "no usable name"
	}
	props := map[string]any{}
	var required []string
	req := &catalog.Request{Method: method, Path: path, Headers: map[string]string{}, Rename: map[string]string{}}
	refs := map[string]bool{}
	params := append(openapi3.Parameters{}, item.Parameters...)
	params = append(params, op.Parameters...)
	for _, pr := range params {
		if pr == nil || pr.Value == nil {
			continue
		}
		p := pr.Value
		field := p.Name
		if !validParam.MatchString(field) {
			field = snake(p.Name)
			if field == "" {
				return nil, "parameter " + p.Name + " has no usable name"
			}
		}
		schema := map[string]any{"type": "string"}
		if p.Schema != nil {
			schema = toJSONSchema(p.Schema, refs)
		}
		if p.Description != "" {
			schema["description"] = p.Description
		}
		switch p.In {
		case "path":
			if field != p.Name {
				req.Path = strings.ReplaceAll(req.Path, "{"+p.Name+"}", "{"+field+"}")
			}
			required = append(required, field)
		case "query":
			req.Query = append(req.Query, field)
			if field != p.Name {
				req.Rename[field] = p.Name
			}
			if p.Required {
				required = append(required, field)
			}
		case "header":
			req.Headers[field] = p.Name
			if p.Required {
				required = append(required, field)
			}
		default:
			continue // cookies are not sent
		}
		props[field] = schema
	}
	if op.RequestBody != nil && op.RequestBody.Value != nil {
		rb := op.RequestBody.Value
		var media *openapi3.MediaType
		for _, ct := range []string{"application/json", "application/x-www-form-urlencoded"} {
			if m := rb.Content.Get(ct); m != nil {
				media = m
				if ct != "application/json" {
					req.BodyType = "form"
				}
				break
			}
		}
		if media == nil || media.Schema == nil {
			return nil, "its request body is not JSON or a form"
		}
		body := media.Schema.Value
		if media.Schema.Ref != "" {
			refs[refName(media.Schema.Ref)] = true
		}
		if body == nil || body.Properties == nil || (body.Type != nil && !body.Type.Is("object")) {
			return nil, "its request body is not an object"
		}
		names := make([]string, 0, len(body.Properties))
		for n := range body.Properties {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			field := n
			if _, clash := props[field]; clash || !validParam.MatchString(field) {
				field = "body_" + snake(n)
				req.Rename[field] = n
			}
			props[field] = toJSONSchema(body.Properties[n], refs)
			req.Body = append(req.Body, field)
			if rb.Required && contains(body.Required, n) {
				required = append(required, field)
			}
		}
	}
	schema := map[string]any{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		sort.Strings(required)
		schema["required"] = uniq(required)
	}
	if defs := collectDefs(refs, components); len(defs) > 0 {
		schema["$defs"] = defs
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, err.Error()
	}
	if len(req.Headers) == 0 {
		req.Headers = nil
	}
	if len(req.Rename) == 0 {
		req.Rename = nil
	}
	effect := catalog.EffectWrite
	switch method {
	case "GET":
		effect = catalog.EffectRead
	case "DELETE":
		effect = catalog.EffectDestructive
	}
	desc := strings.TrimSpace(op.Summary + " " + op.Description)
	if len(desc) < 30 {
		desc = strings.TrimSpace(desc + " Calls " + method + " " + path + " on the imported API.")
	}
	return &catalog.Tool{ID: id, Name: cmp.Or(op.Summary, op.OperationID, method+" "+path), Description: desc,
		Effect: effect, InputSchema: raw, Request: req, RequiredScopes: []string{}}, ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func uniq(list []string) []string {
	out := list[:0]
	for i, s := range list {
		if i == 0 || s != list[i-1] {
			out = append(out, s)
		}
	}
	return out
}

func refName(ref string) string { return strings.TrimPrefix(ref, "#/components/schemas/") }

// toJSONSchema converts an OpenAPI schema to JSON Schema 2020-12: nullable
// becomes a null type, 3.0's boolean exclusive bounds become numbers,
// example becomes examples, and component $refs point into $defs (recorded
// in refs so they are carried along).
func toJSONSchema(ref *openapi3.SchemaRef, refs map[string]bool) map[string]any {
	if ref == nil {
		return map[string]any{}
	}
	if ref.Ref != "" {
		refs[refName(ref.Ref)] = true
		return map[string]any{"$ref": "#/$defs/" + refName(ref.Ref)}
	}
	raw, err := json.Marshal(ref.Value)
	if err != nil {
		return map[string]any{}
	}
	var m map[string]any
	_ = json.Unmarshal(raw, &m)
	convert(m, refs)
	return m
}

// convert rewrites one decoded schema node in place.
func convert(v any, refs map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		if r, ok := x["$ref"].(string); ok && strings.HasPrefix(r, "#/components/schemas/") {
			refs[refName(r)] = true
			x["$ref"] = "#/$defs/" + refName(r)
		}
		if n, ok := x["nullable"].(bool); ok {
			delete(x, "nullable")
			if n {
				switch t := x["type"].(type) {
				case string:
					x["type"] = []any{t, "null"}
				case []any:
					x["type"] = append(t, "null")
				}
			}
		}
		for _, k := range [][2]string{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
			if b, ok := x[k[0]].(bool); ok {
				delete(x, k[0])
				if b {
					if bound, ok := x[k[1]]; ok {
						x[k[0]] = bound
						delete(x, k[1])
					}
				}
			}
		}
		if ex, ok := x["example"]; ok {
			delete(x, "example")
			if _, has := x["examples"]; !has {
				x["examples"] = []any{ex}
			}
		}
		for k := range x {
			if strings.HasPrefix(k, "x-") || k == "discriminator" || k == "xml" || k == "externalDocs" {
				delete(x, k)
			}
		}
		for _, c := range x {
			convert(c, refs)
		}
	case []any:
		for _, c := range x {
			convert(c, refs)
		}
	}
}

// collectDefs converts the referenced components, following their own
// references (recursion included) until none is missing.
func collectDefs(refs map[string]bool, components map[string]*openapi3.SchemaRef) map[string]any {
	defs := map[string]any{}
	for {
		added := false
		for name := range refs {
			if _, done := defs[name]; done {
				continue
			}
			c, ok := components[name]
			if !ok || c.Value == nil {
				defs[name] = map[string]any{}
				continue
			}
			defs[name] = toJSONSchema(&openapi3.SchemaRef{Value: c.Value}, refs)
			added = true
		}
		if !added {
			return defs
		}
	}
}
