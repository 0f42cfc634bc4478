package session

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	builtin "github.com/switchboard-gw/switchboard/catalog"
	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// openAIKeywords and openAIFormats are what OpenAI's structured outputs
// documentation lists for strict mode, written out here rather than taken
// from strict.go, so that a wrong entry there fails this check.
var (
	openAIKeywords = map[string]bool{
		"type": true, "properties": true, "required": true, "additionalProperties": true, "items": true,
		"enum": true, "const": true, "anyOf": true, "$ref": true, "$defs": true, "description": true,
		"pattern": true, "format": true, "minimum": true, "maximum": true, "exclusiveMinimum": true,
		"exclusiveMaximum": true, "multipleOf": true, "minItems": true, "maxItems": true,
	}
	openAIFormats = map[string]bool{
		"date-time": true, "time": true, "date": true, "duration": true, "email": true,
		"hostname": true, "ipv4": true, "ipv6": true, "uuid": true,
	}
)

// checkStrict reports every way a schema breaks OpenAI's strict-mode rules:
// the root is an object; every object has additionalProperties false and
// lists every property in required; only supported keywords and formats;
// every $ref points into $defs; every type is a known JSON type.
func checkStrict(doc map[string]any) []string {
	var problems []string
	if doc["type"] != "object" {
		problems = append(problems, "root is not an object")
	}
	defs, _ := doc["$defs"].(map[string]any)
	var walk func(v any, at string)
	walk = func(v any, at string) {
		s, ok := v.(map[string]any)
		if !ok {
			problems = append(problems, at+": schema is not an object")
			return
		}
		for k := range s {
			if !openAIKeywords[k] {
				problems = append(problems, fmt.Sprintf("%s: keyword %q is not supported", at, k))
			}
		}
		if f, ok := s["format"].(string); ok && !openAIFormats[f] {
			problems = append(problems, fmt.Sprintf("%s: format %q is not supported", at, f))
		}
		if ref, ok := s["$ref"]; ok {
			r, _ := ref.(string)
			name, into := strings.CutPrefix(r, "#/$defs/")
			if !into || defs[name] == nil {
				problems = append(problems, fmt.Sprintf("%s: $ref %v does not point into $defs", at, ref))
			}
		}
		types := []any{s["type"]}
		if list, ok := s["type"].([]any); ok {
			types = list
		}
		for _, t := range types {
			if t != nil && !slices.Contains([]any{"object", "array", "string", "integer", "number", "boolean", "null"}, t) {
				problems = append(problems, fmt.Sprintf("%s: type %v", at, t))
			}
		}
		if slices.Contains(types, any("object")) {
			if s["additionalProperties"] != false {
				problems = append(problems, at+": object without additionalProperties: false")
			}
			props, _ := s["properties"].(map[string]any)
			var names []string
			for n, p := range props {
				names = append(names, n)
				walk(p, at+"."+n)
			}
			var req []string
			list, ok := s["required"].([]any)
			if !ok {
				problems = append(problems, at+": object without a required list")
			}
			for _, r := range list {
				name, _ := r.(string)
				req = append(req, name)
			}
			sort.Strings(names)
			sort.Strings(req)
			if !reflect.DeepEqual(names, req) {
				problems = append(problems, fmt.Sprintf("%s: required %v is not every property %v", at, req, names))
			}
		}
		if items, ok := s["items"]; ok {
			walk(items, at+"[]")
		} else if slices.Contains(types, any("array")) {
			problems = append(problems, at+": array without items")
		}
		if alts, ok := s["anyOf"]; ok {
			list, _ := alts.([]any)
			if len(list) == 0 {
				problems = append(problems, at+": anyOf is not a list of schemas")
			}
			for i, a := range list {
				walk(a, fmt.Sprintf("%s.anyOf[%d]", at, i))
			}
		}
	}
	walk(doc, "$")
	for name, d := range defs {
		walk(d, "$defs."+name)
	}
	return problems
}

func strictDoc(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	out, err := StrictSchema(raw)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(out, &doc); err != nil {
		t.Fatal(err)
	}
	return doc
}

// TestStrict_EveryCatalogToolAndMetaToolPasses converts every built-in
// tool's input schema and every meta tool's, and checks the result.
func TestStrict_EveryCatalogToolAndMetaToolPasses(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Load(builtin.FS)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, tool := range cat.Tools() {
		for _, p := range checkStrict(strictDoc(t, json.RawMessage(tool.InputSchema))) {
			t.Errorf("%s: %s", tool.ID, p)
		}
		checked++
	}
	for _, m := range metaTools(Policy{AllowDisconnect: true, AllowProxy: true}) {
		for _, p := range checkStrict(strictDoc(t, m.schema)) {
			t.Errorf("%s: %s", m.name, p)
		}
		checked++
	}
	t.Logf("%d schemas pass the strict-mode rules", checked)
}

func TestStrict_Conversion(t *testing.T) {
	t.Parallel()
	doc := strictDoc(t, json.RawMessage(`{"type":"object","properties":{
		"a":{"type":"string","minLength":2,"format":"uri","description":"A link."},
		"b":{"type":"integer","enum":[1,2]},
		"meta":{"type":"object","description":"Anything."},
		"c":{"oneOf":[{"type":"string"},{"type":"integer"}]},
		"d":{"$ref":"#/$defs/thing"}},
		"required":["a"],"additionalProperties":false,
		"$defs":{"thing":{"type":"object","properties":{"x":{"type":"string"}}}}}`))
	if p := checkStrict(doc); len(p) > 0 {
		t.Fatalf("not strict: %v", p)
	}
	props := doc["properties"].(map[string]any)
	a := props["a"].(map[string]any)
	if a["type"] != "string" || a["description"] != "A link. (format uri; minLength 2)" {
		t.Errorf("a: %v", a)
	}
	if b := props["b"].(map[string]any); !reflect.DeepEqual(b["type"], []any{"integer", "null"}) || !slices.Contains(b["enum"].([]any), nil) {
		t.Errorf("optional enum not nullable: %v", b)
	}
	if m := props["meta"].(map[string]any); !reflect.DeepEqual(m["type"], []any{"string", "null"}) {
		t.Errorf("free-form object not carried as a string: %v", m)
	}
	if c := props["c"].(map[string]any); len(c["anyOf"].([]any)) != 3 {
		t.Errorf("oneOf not turned into a nullable anyOf: %v", c)
	}
}

// TestStrict_OddSchemasStayStrict: what FuzzStrictSchema found. A $ref
// outside $defs (or to a missing definition), a property whose schema is
// not an object, and an anyOf without schemas once came out breaking strict
// mode; they now become free-form values or are left out.
func TestStrict_OddSchemasStayStrict(t *testing.T) {
	t.Parallel()
	doc := strictDoc(t, json.RawMessage(`{"type":"object","properties":{
		"a":{"$ref":"#/$defs/x"},"b":{"$ref":"#/components/schemas/y"},"c":{"$ref":"#/$defs/gone"},
		"d":1,"e":{"anyOf":[1,"x"]},"f":{"type":"string","$ref":7}},
		"$defs":{"x":{"type":"string"},"gone":true}}`))
	if p := checkStrict(doc); len(p) > 0 {
		t.Fatalf("not strict: %v", p)
	}
	props := doc["properties"].(map[string]any)
	if _, ok := props["d"]; ok {
		t.Errorf("a property without a schema was kept: %v", props)
	}
	for _, name := range []string{"b", "c", "e"} {
		if p := props[name].(map[string]any); !reflect.DeepEqual(p["type"], []any{"string", "null"}) {
			t.Errorf("%s is not a free-form value: %v", name, p)
		}
	}
	if a := props["a"].(map[string]any); a["anyOf"] == nil {
		t.Errorf("a $ref into $defs was not kept: %v", a)
	}
}

func TestNormalizeArgs_NullsAndJSONStrings(t *testing.T) {
	t.Parallel()
	var schema map[string]any
	_ = json.Unmarshal([]byte(`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"},
		"meta":{"type":"object"},"n":{"type":"object","properties":{"x":{"type":"string"}},"required":[]}},"required":["a"]}`), &schema)
	var args map[string]any
	_ = json.Unmarshal([]byte(`{"a":"keep","b":null,"meta":"{\"k\":1}","n":{"x":null}}`), &args)
	got := normalizeArgs(schema, nil, args).(map[string]any)
	if _, ok := got["b"]; ok {
		t.Errorf("null optional kept: %v", got)
	}
	// Numbers come out as json.Number, as execute validates and sends them.
	if m, ok := got["meta"].(map[string]any); !ok || m["k"] != json.Number("1") {
		t.Errorf("json string not decoded: %v", got["meta"])
	}
	if n := got["n"].(map[string]any); len(n) != 0 {
		t.Errorf("nested null kept: %v", n)
	}
	if got["a"] != "keep" {
		t.Errorf("a: %v", got["a"])
	}
}

// FuzzStrictSchema converts any JSON document: StrictSchema must not panic,
// and whatever it accepts must come out satisfying every strict-mode rule
// that checkStrict knows.
func FuzzStrictSchema(f *testing.F) {
	cat, err := catalog.Load(builtin.FS)
	if err != nil {
		f.Fatal(err)
	}
	for i, tool := range cat.Tools() {
		if i%25 == 0 {
			f.Add([]byte(tool.InputSchema))
		}
	}
	for _, m := range metaTools(Policy{AllowDisconnect: true, AllowProxy: true}) {
		f.Add([]byte(m.schema))
	}
	for _, seed := range []string{
		`{}`, `[]`, `null`, `{"type":"object"}`, `{"type":"object","properties":{}}`,
		`{"type":"object","properties":{"a":1,"b":{"type":"string"}}}`,
		`{"type":"object","properties":{"a":{"$ref":"#/$defs/x"},"b":{"$ref":"#/components/y"},"c":{"$ref":5}},"$defs":{"x":{"type":"string"},"z":true}}`,
		`{"type":"object","properties":{"a":{"anyOf":[]},"b":{"oneOf":[1,2]},"c":{"allOf":[{"type":"integer","minimum":1}]}}}`,
		`{"type":"object","properties":{"a":{"type":["null","object"],"properties":{"x":{"type":"array"}}},"b":{"enum":[1,"x"]},"c":{"const":null,"format":7}}}`,
		`{"type":"object","properties":{"a":{"type":"string"}},"anyOf":[{"required":["a"]}],"required":["a","zz"]}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := StrictSchema(in)
		if err != nil {
			return
		}
		var doc map[string]any
		if err := json.Unmarshal(out, &doc); err != nil {
			t.Fatalf("output is not a JSON object: %v\n%s", err, out)
		}
		if p := checkStrict(doc); len(p) > 0 {
			t.Fatalf("input %s\nconverts to %s\nwhich breaks strict mode: %v", in, out, p)
		}
	})
}
