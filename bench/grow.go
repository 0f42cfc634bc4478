package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	builtin "github.com/switchboard-gw/switchboard/catalog"
	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// grownSuffix names the paths measured again on a stack whose catalog was
// grown (-grow): the same requests, with the built-in catalog's tools
// there several times over.
func grownSuffix(copies int) string { return fmt.Sprintf(" (catalog x%d)", copies) }

// importCopies imports copies-1 copies of the built-in catalog into the
// stack's project as its own connectors, one OpenAPI document per copy
// (catalog_r2, catalog_r3, ...), so that search and tools/list run over a
// catalog copies times as large. Every built-in tool becomes an operation
// with its name, description and inputs; its host is never called.
func (s *stack) importCopies(dir string, copies int) error {
	cat, err := catalog.Load(builtin.FS)
	if err != nil {
		return err
	}
	for k := 2; k <= copies; k++ {
		id := fmt.Sprintf("catalog_r%d", k)
		doc, err := json.Marshal(catalogDocument(cat, id))
		if err != nil {
			return err
		}
		path := filepath.Join(dir, id+".json")
		if err := os.WriteFile(path, doc, 0o600); err != nil {
			return err
		}
		if _, err := s.srv.admin("openapi", "import", "--project", s.projectID, "--id", id, path); err != nil {
			return fmt.Errorf("import %s: %w", id, err)
		}
	}
	return nil
}

var pathParam = regexp.MustCompile(`\{\+?([A-Za-z0-9_.-]+)\}`)

// catalogDocument describes every built-in tool with a request as an
// OpenAPI 3.0 operation: the path under /<connector>, path parameters,
// the other inputs as query parameters (GET, DELETE) or a JSON body.
func catalogDocument(cat *catalog.Catalog, title string) map[string]any {
	paths := map[string]map[string]any{}
	shapes := map[string]string{}
	for _, c := range cat.Connectors() {
		for _, t := range c.Tools {
			if t.Request == nil || t.Request.GraphQL != "" {
				continue
			}
			var in struct {
				Properties map[string]json.RawMessage `json:"properties"`
				Required   []string                   `json:"required"`
			}
			_ = json.Unmarshal(t.InputSchema, &in)
			var params []any
			inPath := map[string]bool{}
			p := pathParam.ReplaceAllStringFunc(t.Request.Path, func(m string) string {
				name := pathParam.FindStringSubmatch(m)[1]
				if _, ok := in.Properties[name]; !ok {
					return "x" // a connection field
				}
				inPath[name] = true
				params = append(params, map[string]any{"name": name, "in": "path", "required": true, "schema": map[string]any{"type": "string"}})
				return "{" + name + "}"
			})
			p = "/" + c.ID + p
			method := strings.ToLower(t.Request.Method)
			// Paths that differ only in their parameters' names conflict.
			for {
				shape := pathParam.ReplaceAllString(p, "{}")
				if prev, ok := shapes[shape]; !ok || prev == p && paths[p][method] == nil {
					shapes[shape] = p
					break
				}
				p += "/again"
			}
			op := map[string]any{"operationId": t.ID, "summary": t.Name, "description": t.Description,
				"responses": map[string]any{"200": map[string]any{"description": "The answer."}}}
			body := map[string]any{}
			var names []string
			for name := range in.Properties {
				names = append(names, name)
			}
			slices.Sort(names)
			for _, name := range names {
				if inPath[name] {
					continue
				}
				sch := plainSchema(in.Properties[name])
				if method == "get" || method == "delete" {
					params = append(params, map[string]any{"name": name, "in": "query", "required": slices.Contains(in.Required, name),
						"description": sch["description"], "schema": sch})
				} else {
					body[name] = sch
				}
			}
			if len(params) > 0 {
				op["parameters"] = params
			}
			if len(body) > 0 {
				op["requestBody"] = map[string]any{"content": map[string]any{"application/json": map[string]any{
					"schema": map[string]any{"type": "object", "properties": body}}}}
			}
			if paths[p] == nil {
				paths[p] = map[string]any{}
			}
			paths[p][method] = op
		}
	}
	return map[string]any{"openapi": "3.0.3", "info": map[string]any{"title": title, "version": "1.0",
		"description": "The built-in catalog once more, to measure search and tools/list over a larger catalog."},
		"servers": []any{map[string]any{"url": "https://" + strings.ReplaceAll(title, "_", "-") + ".invalid"}}, "paths": paths}
}

// plainSchema keeps what OpenAPI 3.0 reads of a property: its type (the
// first, for a list of types), description and string enum.
func plainSchema(raw json.RawMessage) map[string]any {
	var s struct {
		Type        any    `json:"type"`
		Description string `json:"description"`
		Enum        []any  `json:"enum"`
	}
	_ = json.Unmarshal(raw, &s)
	typ, _ := s.Type.(string)
	if list, ok := s.Type.([]any); ok && len(list) > 0 {
		typ, _ = list[0].(string)
	}
	out := map[string]any{"type": "string"}
	switch typ {
	case "integer", "number", "boolean", "object":
		out["type"] = typ
	case "array":
		out["type"] = "array"
		out["items"] = map[string]any{"type": "string"}
	}
	if s.Description != "" {
		out["description"] = s.Description
	}
	var enum []any
	for _, e := range s.Enum {
		if str, ok := e.(string); ok && out["type"] == "string" {
			enum = append(enum, str)
		}
	}
	if len(enum) > 0 {
		out["enum"] = enum
	}
	return out
}

// measureGrown starts a second stack whose project also holds copies-1
// copies of the built-in catalog, measures tools/list and search_actions
// on it as on the main stack, and returns the results under names with
// grownSuffix, so the report shows both figures of one run side by side.
func (fx *fixture) measureGrown(m measurer, copies int, metrics bool, only string) ([]Result, error) {
	st, err := fx.newStack("grown", stackOptions{full: true, metrics: metrics, grow: copies})
	if err != nil {
		return nil, err
	}
	defer st.srv.stop()
	var paths []path
	for _, p := range st.paths() {
		if (p.name == pathToolsList || p.name == pathSearch) && strings.Contains(p.name, only) {
			p.name += grownSuffix(copies)
			paths = append(paths, p)
		}
	}
	fmt.Printf("grown stack: serve (pid %d) with the built-in catalog %d times over\n", st.srv.cmd.Process.Pid, copies)
	return m.run(paths), nil
}

// grownBudgets holds the grown catalog's figures to the same limits as
// the main stack's.
func grownBudgets(rs []Result, copies int) []Budget {
	var out []Budget
	if t, ok := find(rs, pathToolsList+grownSuffix(copies), 1); ok {
		out = append(out, atMost(fmt.Sprintf("MCP tools/list of 1000 tools, catalog x%d, p50 at c=1", copies), t.P50ms, 5, " ms"))
	}
	if s, ok := find(rs, pathSearch+grownSuffix(copies), 1); ok {
		out = append(out, atMost(fmt.Sprintf("search_actions, catalog x%d, p99 at c=1", copies), s.P99ms, 5, " ms"))
	}
	return out
}
