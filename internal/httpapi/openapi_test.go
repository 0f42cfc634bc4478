package httpapi

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/switchboard-gw/switchboard/internal/webhook"
)

// loadOpenAPI parses and validates the embedded document (structure, refs
// and, by default, every example against its schema).
func loadOpenAPI(t *testing.T) *openapi3.T {
	t.Helper()
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(openAPIDoc)
	if err != nil {
		t.Fatalf("openapi.json does not parse: %v", err)
	}
	if !doc.IsOpenAPI31OrLater() {
		t.Fatalf("openapi.json is OpenAPI %s, want 3.1", doc.OpenAPI)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi.json is not valid: %v", err)
	}
	return doc
}

// paramSegment matches a {name} path parameter of a route or a document path.
var paramSegment = regexp.MustCompile(`\{[^}]*\}`)

// normalPath forgets parameter names, which may differ between the router
// and the document ({id} and {connectorId}).
func normalPath(p string) string { return paramSegment.ReplaceAllString(p, "{}") }

// routePattern is one pattern registered in routes.go.
type routePattern struct{ method, path string }

// registeredRoutes reads the patterns routes.go registers with s.route,
// s.routeMCP and s.routeBare, evaluating the string concatenations the
// asset routes use (prefix "/assets" on the base listener).
func registeredRoutes(t *testing.T) []routePattern {
	t.Helper()
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, "routes.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var eval func(e ast.Expr) (string, bool)
	eval = func(e ast.Expr) (string, bool) {
		switch e := e.(type) {
		case *ast.BasicLit:
			if e.Kind != token.STRING {
				return "", false
			}
			s, err := strconv.Unquote(e.Value)
			return s, err == nil
		case *ast.Ident:
			if e.Name == "prefix" {
				return "/assets", true
			}
		case *ast.BinaryExpr:
			l, ok1 := eval(e.X)
			r, ok2 := eval(e.Y)
			return l + r, ok1 && ok2 && e.Op == token.ADD
		}
		return "", false
	}
	var out []routePattern
	for _, decl := range file.Decls {
		// The {mcp_url} host serves the operations of /v1/mcp/... at its root.
		hostPrefix := ""
		if fn, ok := decl.(*ast.FuncDecl); ok && fn.Name.Name == "routesMCPHost" {
			hostPrefix = "/v1/mcp"
		}
		out = append(out, routesIn(t, fset, decl, eval, hostPrefix)...)
	}
	if len(out) < 40 {
		t.Fatalf("found only %d routes in routes.go", len(out))
	}
	return out
}

// routesIn reads the route patterns registered inside one declaration,
// with hostPrefix put before each path.
func routesIn(t *testing.T, fset *token.FileSet, decl ast.Node, eval func(ast.Expr) (string, bool), hostPrefix string) []routePattern {
	t.Helper()
	var out []routePattern
	ast.Inspect(decl, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok || len(call.Args) != 3 {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok || !slices.Contains([]string{"route", "routeMCP", "routeBare"}, sel.Sel.Name) {
			return true
		}
		pattern, ok := eval(call.Args[1])
		if !ok {
			t.Fatalf("%s: a route pattern the test cannot read; keep patterns literal", fset.Position(call.Pos()))
		}
		method, path, found := strings.Cut(pattern, " ")
		if !found {
			method, path = "", pattern // any method
		}
		out = append(out, routePattern{method, hostPrefix + path})
		return true
	})
	return out
}

// describes reports whether the document has an operation for method on a
// path that matches route: the same path, or for a prefix route (ending in
// "/") a path under it.
func describes(doc *openapi3.T, rp routePattern) bool {
	for path, item := range doc.Paths.Map() {
		same := normalPath(path) == normalPath(rp.path)
		under := strings.HasSuffix(rp.path, "/") && strings.HasPrefix(path, rp.path)
		if !same && !under {
			continue
		}
		if rp.method == "" {
			return len(item.Operations()) > 0
		}
		if item.GetOperation(rp.method) != nil {
			return true
		}
	}
	return false
}

func TestOpenAPI_EveryRegisteredRouteIsDescribed(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	for _, rp := range registeredRoutes(t) {
		if !describes(doc, rp) {
			t.Errorf("route %s %s is registered in routes.go but not described in openapi.json", rp.method, rp.path)
		}
	}
}

// routesMux is a mux with every route of the base listener, for asking
// which pattern a request reaches.
func routesMux() *http.ServeMux {
	s := New(Options{})
	mux := http.NewServeMux()
	s.routesV1(mux)
	s.routesPublic(mux)
	s.routesOAuth(mux)
	return mux
}

func TestOpenAPI_EveryDescribedRouteExists(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	mux := routesMux()
	n := 0
	for path, item := range doc.Paths.Map() {
		concrete := paramSegment.ReplaceAllString(path, "x1")
		for method := range item.Operations() {
			n++
			req := httptest.NewRequest(method, concrete, nil)
			_, pattern := mux.Handler(req)
			m, p, found := strings.Cut(pattern, " ")
			if !found {
				m, p = "", pattern
			}
			switch {
			case pattern == "":
				t.Errorf("%s %s is described but no route serves it", method, path)
			case m != "" && m != method && !(m == "GET" && method == "HEAD"):
				t.Errorf("%s %s is described but reaches %q", method, path, pattern)
			case normalPath(p) != normalPath(path) && !(strings.HasSuffix(p, "/") && strings.HasPrefix(path, p)):
				t.Errorf("%s %s is described but reaches %q", method, path, pattern)
			}
		}
	}
	if n < 40 {
		t.Fatalf("only %d operations described", n)
	}
}

// examplesOf collects every example of the document with the schema it
// must fit, named for the message.
func examplesOf(doc *openapi3.T) map[string]struct {
	schema *openapi3.SchemaRef
	value  any
} {
	out := map[string]struct {
		schema *openapi3.SchemaRef
		value  any
	}{}
	add := func(where string, content openapi3.Content) {
		for ct, mt := range content {
			if mt == nil || mt.Schema == nil {
				continue
			}
			if mt.Example != nil {
				out[where+" "+ct] = struct {
					schema *openapi3.SchemaRef
					value  any
				}{mt.Schema, mt.Example}
			}
			for name, ex := range mt.Examples {
				if ex != nil && ex.Value != nil {
					out[where+" "+ct+" "+name] = struct {
						schema *openapi3.SchemaRef
						value  any
					}{mt.Schema, ex.Value.Value}
				}
			}
		}
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			where := method + " " + path
			if op.RequestBody != nil && op.RequestBody.Value != nil {
				add(where+" request", op.RequestBody.Value.Content)
			}
			for status, r := range op.Responses.Map() {
				if r.Value != nil {
					add(where+" "+status, r.Value.Content)
				}
			}
		}
	}
	for name, s := range doc.Components.Schemas {
		if s.Value != nil && s.Value.Example != nil {
			out["schema "+name] = struct {
				schema *openapi3.SchemaRef
				value  any
			}{s, s.Value.Example}
		}
	}
	return out
}

func TestOpenAPI_ExamplesFitTheirSchemas(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	examples := examplesOf(doc)
	if len(examples) < 25 {
		t.Fatalf("only %d examples found", len(examples))
	}
	names := make([]string, 0, len(examples))
	for name := range examples {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		ex := examples[name]
		// Round-trip through JSON so the value has the types a decoder gives.
		raw, err := json.Marshal(ex.value)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var v any
		_ = json.Unmarshal(raw, &v)
		if err := ex.schema.Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
			t.Errorf("example %s does not fit its schema: %v", name, err)
		}
	}
}

// TestOpenAPI_ErrorCodesAreAPIErrCodes keeps the ErrorCode enum equal to the
// codes internal/apierr declares.
func TestOpenAPI_ErrorCodesAreAPIErrCodes(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	var described []string
	for _, v := range doc.Components.Schemas["ErrorCode"].Value.Enum {
		described = append(described, v.(string))
	}
	file, err := parser.ParseFile(token.NewFileSet(), "../apierr/apierr.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	ast.Inspect(file, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || vs.Type == nil || len(vs.Values) != 1 {
			return true
		}
		if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "Code" {
			if lit, ok := vs.Values[0].(*ast.BasicLit); ok {
				s, _ := strconv.Unquote(lit.Value)
				declared = append(declared, s)
			}
		}
		return true
	})
	slices.Sort(described)
	slices.Sort(declared)
	if len(declared) < 20 || !slices.Equal(described, declared) {
		t.Fatalf("ErrorCode enum %v\nwant the apierr codes %v", described, declared)
	}
}

func TestOpenAPI_ServedPublicAndCacheable(t *testing.T) {
	t.Parallel()
	f := setup(t)
	r := f.do(f.h, "GET", "/openapi.json", "", "")
	if r.status != 200 || r.header.Get("Content-Type") != "application/json" || string(r.body) != string(openAPIDoc) {
		t.Fatalf("GET /openapi.json: %d %q", r.status, r.header.Get("Content-Type"))
	}
	if cc := r.header.Get("Cache-Control"); !strings.HasPrefix(cc, "public, max-age=") {
		t.Fatalf("Cache-Control %q", cc)
	}
	etag := r.header.Get("ETag")
	if etag == "" {
		t.Fatal("no ETag")
	}
	if r := f.do(f.h, "GET", "/openapi.json", "", "", "If-None-Match", etag); r.status != 304 || len(r.body) != 0 {
		t.Fatalf("revalidation: %d %s", r.status, r.body)
	}
	if r := f.do(f.h, "GET", "/openapi.json", "", "", "If-None-Match", `"stale"`); r.status != 200 {
		t.Fatalf("stale tag: %d", r.status)
	}
}

// TestOpenAPI_TriggerFiredDescribesTheDeliveredEvent holds the document's
// trigger.fired webhook to what the webhook worker sends: the body
// webhook.Event marshals to, and the Standard Webhooks headers.
func TestOpenAPI_TriggerFiredDescribesTheDeliveredEvent(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	item := doc.Webhooks[webhook.EventTriggerFired]
	if item == nil || item.Post == nil {
		t.Fatalf("openapi.json has no webhooks[%q].post", webhook.EventTriggerFired)
	}
	schema := item.Post.RequestBody.Value.Content["application/json"].Schema
	user := "user-42"
	for _, ev := range []webhook.Event{
		{Type: webhook.EventTriggerFired, ID: "e1", Timestamp: time.Date(2026, 5, 4, 9, 30, 0, 0, time.UTC),
			Data: webhook.EventData{TriggerID: "5b9e7c1d-2f3a-4e5b-8c6d-7e8f9a0b1c2d", ConnectionID: "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
				ConnectorID: "github", UserID: &user, Event: "github_issue_opened", Payload: json.RawMessage(`{"action":"opened"}`)}},
		{Type: webhook.EventTriggerFired, ID: "e2", Timestamp: time.Now(),
			Data: webhook.EventData{TriggerID: "5b9e7c1d-2f3a-4e5b-8c6d-7e8f9a0b1c2d", ConnectionID: "6f1c2d3e-4a5b-4c6d-8e7f-9a0b1c2d3e4f",
				ConnectorID: "stripe", Event: "stripe_charge_succeeded", Payload: json.RawMessage(`[1,"two"]`)}},
	} {
		raw, err := json.Marshal(ev)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		_ = json.Unmarshal(raw, &v)
		if err := schema.Value.VisitJSON(v, openapi3.EnableJSONSchema2020()); err != nil {
			t.Errorf("a delivered event %s does not fit TriggerFiredEvent: %v", raw, err)
		}
	}
	var bad any
	_ = json.Unmarshal([]byte(`{"type":"trigger.fired","id":"e3","timestamp":"2026-05-04T09:30:00Z","data":{}}`), &bad)
	if schema.Value.VisitJSON(bad, openapi3.EnableJSONSchema2020()) == nil {
		t.Error("TriggerFiredEvent accepts an event without its data fields")
	}
	var headers []string
	for _, p := range item.Post.Parameters {
		if p.Value.In == "header" && p.Value.Required {
			headers = append(headers, p.Value.Name)
		}
	}
	slices.Sort(headers)
	if want := []string{"webhook-id", "webhook-signature", "webhook-timestamp"}; !slices.Equal(headers, want) {
		t.Errorf("trigger.fired headers %v, want the Standard Webhooks headers %v", headers, want)
	}
}
