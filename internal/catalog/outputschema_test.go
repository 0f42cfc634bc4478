package catalog

import (
	"encoding/json"
	"fmt"
	"sort"
	"testing"

	builtin "github.com/switchboard-gw/switchboard/catalog"
)

// Every built-in tool has an outputSchema, and it says something about the
// result: a type, the fields of its objects and the items of its arrays.
// (internal/execute checks each one against a sample provider answer.)
func TestOutputSchema_BuiltInToolsDescribeTheirResult(t *testing.T) {
	t.Parallel()
	cat, err := Load(builtin.FS)
	if err != nil {
		t.Fatal(err)
	}
	with := 0
	for _, tool := range cat.Tools() {
		if len(tool.OutputSchema) == 0 {
			t.Errorf("%s: no outputSchema; every built-in tool describes its result (catalog/README.md)", tool.ID)
			continue
		}
		with++
		for _, p := range checkOutputShape(tool.OutputSchema) {
			t.Errorf("%s.outputSchema: %s", tool.ID, p)
		}
	}
	t.Logf("%d of %d built-in tools have an outputSchema", with, len(cat.Tools()))
}

func TestOutputSchema_ShapeCheckRefusesEmptyDescriptions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		schema string
		bad    bool
	}{
		{`{}`, true},
		{`{"type":"object"}`, true},
		{`{"type":"array","items":{"type":"object"}}`, true},
		{`{"type":"object","properties":{"list":{"type":"array"}}}`, true},
		{`{"type":"object","properties":{"id":{"type":"string"}}}`, false},
		{`{"type":"object","additionalProperties":{"type":"string"}}`, false},
		{`{"type":"null"}`, false},
		{`{"type":["object","null"],"properties":{"id":{"type":"integer"}}}`, false},
	} {
		if got := len(checkOutputShape(Schema(tc.schema))) > 0; got != tc.bad {
			t.Errorf("%s: problems %v, want %v", tc.schema, got, tc.bad)
		}
	}
}

// checkOutputShape holds an output schema to saying something: a top-level
// type, the fields of every object it names and the items of every array,
// so that `{type: object}` cannot pass for a description of the result.
func checkOutputShape(s Schema) []string {
	var doc any
	if err := json.Unmarshal(s, &doc); err != nil {
		return []string{err.Error()}
	}
	top, _ := doc.(map[string]any)
	if top == nil || top["type"] == nil {
		return []string{"must name a type (object, array, string or null for an answer without content)"}
	}
	var problems []string
	var walk func(v any, at string)
	walk = func(v any, at string) {
		m, ok := v.(map[string]any)
		if !ok {
			return
		}
		for _, t := range schemaTypes(m["type"]) {
			switch t {
			case "object":
				props, _ := m["properties"].(map[string]any)
				_, free := m["additionalProperties"].(map[string]any)
				if len(props) == 0 && !free {
					problems = append(problems, at+": an object must list its properties (or describe additionalProperties for a map)")
				}
			case "array":
				if _, ok := m["items"].(map[string]any); !ok {
					problems = append(problems, at+": an array must describe its items")
				}
			}
		}
		props, _ := m["properties"].(map[string]any)
		keys := make([]string, 0, len(props))
		for k := range props {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walk(props[k], at+"/properties/"+k)
		}
		walk(m["items"], at+"/items")
		walk(m["additionalProperties"], at+"/additionalProperties")
		for _, k := range []string{"anyOf", "oneOf", "allOf"} {
			if list, ok := m[k].([]any); ok {
				for i, sub := range list {
					walk(sub, fmt.Sprintf("%s/%s/%d", at, k, i))
				}
			}
		}
	}
	walk(top, "")
	return problems
}

// schemaTypes reads a type keyword, a name or a list of names.
func schemaTypes(v any) []string {
	switch t := v.(type) {
	case string:
		return []string{t}
	case []any:
		out := make([]string, 0, len(t))
		for _, x := range t {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}
