package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Spec formats a provider folder of ../shared/provider-specs can hold.
const (
	specOpenAPI   = "openapi"
	specSwagger   = "swagger"
	specDiscovery = "discovery"
	specGraphQL   = "graphql"
	specStone     = "stone"
)

// specDoc is one provider's official API description, loaded as plain
// JSON values (maps, slices, strings, float64, bool). Only the structure of
// the document is used: property names and types, never its prose.
type specDoc struct {
	format string
	doc    map[string]any
	// graphql holds the types of a GraphQL SDL document, converted to
	// object schemas keyed by type name (see parseSDL).
	graphql map[string]any
}

// errNoSpec means the provider folder holds no description the response
// check reads.
var errNoSpec = errors.New("no spec")

// loadSpecDoc reads the description in one provider folder, recognised the
// same way as shared/tools/spec_index.py does: Stone files, GraphQL SDL, or
// the first JSON or YAML document that is OpenAPI, Swagger or discovery.
func loadSpecDoc(dir string) (*specDoc, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() && !strings.HasSuffix(e.Name(), ".md") {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	for _, n := range names {
		if strings.HasSuffix(n, ".stone") {
			return &specDoc{format: specStone}, nil
		}
	}
	var sdl []string
	for _, n := range names {
		if strings.HasSuffix(n, ".graphql") || strings.HasSuffix(n, ".graphqls") || strings.HasSuffix(n, ".gql") {
			raw, err := os.ReadFile(filepath.Join(dir, n))
			if err != nil {
				return nil, err
			}
			sdl = append(sdl, string(raw))
		}
	}
	if len(sdl) > 0 {
		types, err := parseSDL(strings.Join(sdl, "\n"))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dir, err)
		}
		return &specDoc{format: specGraphQL, graphql: types}, nil
	}
	for _, n := range names {
		if !strings.HasSuffix(n, ".json") && !strings.HasSuffix(n, ".yaml") && !strings.HasSuffix(n, ".yml") {
			continue
		}
		doc, err := readSpecFile(filepath.Join(dir, n))
		if err != nil {
			return nil, err
		}
		for _, f := range []struct{ key, format string }{
			{"openapi", specOpenAPI}, {"swagger", specSwagger}, {"discoveryVersion", specDiscovery},
		} {
			if _, ok := doc[f.key]; ok {
				return &specDoc{format: f.format, doc: doc}, nil
			}
		}
	}
	return nil, errNoSpec
}

// readSpecFile decodes a JSON or YAML document into plain values. YAML goes
// through yaml.Node so that every mapping key stays a string (response
// codes such as 200 would otherwise become integers).
func readSpecFile(path string) (map[string]any, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if strings.HasSuffix(path, ".json") {
		var doc map[string]any
		if err := json.Unmarshal(raw, &doc); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return doc, nil
	}
	var root yaml.Node
	if err := yaml.Unmarshal(raw, &root); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	v, err := yamlValue(&root, 0)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	doc, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("%s: not a mapping", path)
	}
	return doc, nil
}

// yamlValue converts a YAML node to plain values with string keys.
func yamlValue(n *yaml.Node, depth int) (any, error) {
	if depth > 500 {
		return nil, errors.New("YAML nested too deeply")
	}
	switch n.Kind {
	case yaml.DocumentNode:
		if len(n.Content) == 0 {
			return nil, nil
		}
		return yamlValue(n.Content[0], depth+1)
	case yaml.AliasNode:
		return yamlValue(n.Alias, depth+1)
	case yaml.MappingNode:
		m := make(map[string]any, len(n.Content)/2)
		for i := 0; i+1 < len(n.Content); i += 2 {
			v, err := yamlValue(n.Content[i+1], depth+1)
			if err != nil {
				return nil, err
			}
			m[n.Content[i].Value] = v
		}
		return m, nil
	case yaml.SequenceNode:
		s := make([]any, 0, len(n.Content))
		for _, c := range n.Content {
			v, err := yamlValue(c, depth+1)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		return s, nil
	}
	// Only true and false are booleans and only numbers are numbers: a
	// property named on, yes or 2024-01-01 stays a string.
	switch n.ShortTag() {
	case "!!bool":
		return n.Value == "true" || n.Value == "True" || n.Value == "TRUE", nil
	case "!!int", "!!float":
		var f float64
		if err := n.Decode(&f); err == nil {
			return f, nil
		}
	case "!!null":
		return nil, nil
	}
	return n.Value, nil
}

// responseSchema returns the success response schema of the operation with
// the given id (the operation field of a spec_match.py verdict), and a
// resolver for the $refs inside it. ok is false when the document has no
// such operation; a nil schema with ok true means the operation declares
// no success body (or none with a schema).
func (d *specDoc) responseSchema(opID string) (schema any, res *specResolver, ok bool) {
	res = &specResolver{doc: d.doc, format: d.format}
	switch d.format {
	case specOpenAPI, specSwagger:
		op := d.findOperation(opID)
		if op == nil {
			return nil, res, false
		}
		return successSchema(res, op, d.format), res, true
	case specDiscovery:
		m := findDiscoveryMethod(d.doc, opID)
		if m == nil {
			return nil, res, false
		}
		resp, _ := m["response"].(map[string]any)
		if resp == nil {
			return nil, res, true
		}
		return resp, res, true
	case specGraphQL:
		res = &specResolver{doc: d.graphql, format: specGraphQL}
		return graphqlResponse(d.graphql, opID)
	}
	return nil, res, false
}

// findOperation finds an OpenAPI or Swagger operation by its operationId,
// or by "METHOD path" when it has none (the id spec_index.py gives it).
func (d *specDoc) findOperation(opID string) map[string]any {
	paths, _ := d.doc["paths"].(map[string]any)
	keys := make([]string, 0, len(paths))
	for k := range paths {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	res := &specResolver{doc: d.doc, format: d.format}
	for _, p := range keys {
		item, _ := res.deref(paths[p]).(map[string]any)
		for _, method := range []string{"get", "put", "post", "delete", "patch", "head", "options", "trace"} {
			op, ok := item[method].(map[string]any)
			if !ok {
				continue
			}
			id, _ := op["operationId"].(string)
			if id == "" {
				id = strings.ToUpper(method) + " " + p
			}
			if id == opID {
				return op
			}
		}
	}
	return nil
}

// successSchema is the schema of an operation's 2xx answers: the JSON one
// where a response offers several media types; a union when several codes
// carry a body.
func successSchema(res *specResolver, op map[string]any, format string) any {
	responses, _ := res.deref(op["responses"]).(map[string]any)
	codes := make([]string, 0, len(responses))
	for code := range responses {
		if strings.HasPrefix(code, "2") {
			codes = append(codes, code)
		}
	}
	sort.Strings(codes)
	var bodies []any
	for _, code := range codes {
		r, _ := res.deref(responses[code]).(map[string]any)
		if r == nil {
			continue
		}
		if format == specSwagger {
			if s, ok := r["schema"]; ok {
				bodies = append(bodies, s)
			}
			continue
		}
		content, _ := r["content"].(map[string]any)
		if s := mediaSchema(content); s != nil {
			bodies = append(bodies, s)
		}
	}
	switch len(bodies) {
	case 0:
		return nil
	case 1:
		return bodies[0]
	}
	return map[string]any{"anyOf": bodies}
}

// mediaSchema picks the schema of the JSON media type of a response
// (application/json, then any +json type, then anything with a schema).
func mediaSchema(content map[string]any) any {
	media := make([]string, 0, len(content))
	for m := range content {
		media = append(media, m)
	}
	rank := func(m string) int {
		base := strings.ToLower(strings.TrimSpace(strings.Split(m, ";")[0]))
		switch {
		case base == "application/json":
			return 0
		case strings.HasSuffix(base, "+json"):
			return 1
		case strings.Contains(base, "json"):
			return 2
		}
		return 3
	}
	sort.Slice(media, func(i, j int) bool {
		if ri, rj := rank(media[i]), rank(media[j]); ri != rj {
			return ri < rj
		}
		return media[i] < media[j]
	})
	for _, m := range media {
		mt, _ := content[m].(map[string]any)
		if s, ok := mt["schema"]; ok {
			return s
		}
	}
	return nil
}

// findDiscoveryMethod finds a Google discovery method by id, through every
// nested resource.
func findDiscoveryMethod(node map[string]any, id string) map[string]any {
	if methods, ok := node["methods"].(map[string]any); ok {
		for _, m := range methods {
			if mm, ok := m.(map[string]any); ok && mm["id"] == id {
				return mm
			}
		}
	}
	if resources, ok := node["resources"].(map[string]any); ok {
		for _, r := range resources {
			if rm, ok := r.(map[string]any); ok {
				if m := findDiscoveryMethod(rm, id); m != nil {
					return m
				}
			}
		}
	}
	return nil
}

// specResolver follows $refs inside one document: JSON pointers
// ("#/components/schemas/X") for OpenAPI and Swagger, bare schema names
// ("Message") for Google discovery and the converted GraphQL types.
type specResolver struct {
	doc    map[string]any
	format string
}

// lookup returns the node a $ref names, or nil.
func (r *specResolver) lookup(ref string) any {
	if r.format == specDiscovery || r.format == specGraphQL {
		if r.format == specDiscovery {
			schemas, _ := r.doc["schemas"].(map[string]any)
			return schemas[ref]
		}
		return r.doc[ref]
	}
	if !strings.HasPrefix(ref, "#") {
		return nil
	}
	var node any = r.doc
	for _, part := range strings.Split(ref[1:], "/") {
		if part == "" {
			continue
		}
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		switch n := node.(type) {
		case map[string]any:
			var ok bool
			if node, ok = n[part]; !ok {
				return nil
			}
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(n) {
				return nil
			}
			node = n[i]
		default:
			return nil
		}
	}
	return node
}

// deref follows a chain of $refs; it returns nil for a ref that does not
// resolve or loops.
func (r *specResolver) deref(node any) any {
	seen := map[string]bool{}
	for {
		m, ok := node.(map[string]any)
		if !ok {
			return node
		}
		ref, ok := m["$ref"].(string)
		if !ok {
			return node
		}
		if seen[ref] {
			return nil
		}
		seen[ref] = true
		node = r.lookup(ref)
	}
}
