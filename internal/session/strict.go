package session

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// strictKeywords are the JSON Schema keywords OpenAI's strict mode accepts.
var strictKeywords = map[string]bool{
	"type": true, "properties": true, "required": true, "additionalProperties": true, "items": true,
	"enum": true, "const": true, "anyOf": true, "$ref": true, "$defs": true, "description": true,
	"pattern": true, "format": true, "minimum": true, "maximum": true, "exclusiveMinimum": true,
	"exclusiveMaximum": true, "multipleOf": true, "minItems": true, "maxItems": true,
}

// strictFormats are the string formats strict mode accepts.
var strictFormats = map[string]bool{
	"date-time": true, "time": true, "date": true, "duration": true, "email": true,
	"hostname": true, "ipv4": true, "ipv6": true, "uuid": true,
}

// jsonStringNote marks a free-form value that strict mode carries as a
// JSON-encoded string; normalizeArgs decodes it back before validation.
const jsonStringNote = " (a JSON value encoded as a string)"

// StrictSchema converts a JSON Schema to the subset OpenAI's strict mode
// accepts: every object closed with every property required, optional
// properties made nullable, unsupported keywords dropped (their limits moved
// into the description), oneOf turned into anyOf, single allOf merged,
// local $refs kept under $defs, and free-form objects or arrays carried as
// JSON-encoded strings.
func StrictSchema(raw json.RawMessage) (json.RawMessage, error) {
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("session: schema is not an object: %w", err)
	}
	defs, _ := doc["$defs"].(map[string]any)
	var out map[string]any
	if props, _ := doc["properties"].(map[string]any); doc["type"] == "object" && len(props) == 0 {
		// A tool without parameters: strict mode still wants a closed object.
		out = map[string]any{"type": "object", "properties": map[string]any{}, "required": []string{}, "additionalProperties": false}
	} else {
		out = strictNode(doc, defs, true)
	}
	if len(defs) > 0 {
		converted := map[string]any{}
		for name, d := range defs {
			if m, ok := d.(map[string]any); ok {
				converted[name] = strictNode(m, defs, true)
			}
		}
		out["$defs"] = converted
	}
	if out["type"] != "object" {
		return nil, fmt.Errorf("session: a strict tool schema must be an object")
	}
	return json.Marshal(out)
}

// strictNode converts one schema. defs are the document's $defs, which a
// $ref must name; required says whether the value must be present (else it
// becomes nullable).
func strictNode(s map[string]any, defs map[string]any, required bool) map[string]any {
	if all, ok := s["allOf"].([]any); ok && len(all) == 1 {
		if inner, ok := all[0].(map[string]any); ok {
			merged := map[string]any{}
			for k, v := range inner {
				merged[k] = v
			}
			for k, v := range s {
				if k != "allOf" {
					merged[k] = v
				}
			}
			s = merged
		}
	}
	out := map[string]any{}
	var notes []string
	desc, _ := s["description"].(string)

	if ref, ok := s["$ref"].(string); ok {
		// Strict mode resolves only references into $defs; any other
		// (or one to a missing definition) leaves a value of unknown shape.
		if name, into := strings.CutPrefix(ref, "#/$defs/"); !into || !isObject(defs[name]) {
			return freeForm(desc, required)
		}
		out["$ref"] = ref
		if desc != "" {
			out["description"] = desc
		}
		return nullable(out, required)
	}
	alts, _ := s["anyOf"].([]any)
	if one, ok := s["oneOf"].([]any); ok {
		alts = append(alts, one...)
	}
	if len(alts) > 0 && s["type"] != nil && onlyConstraints(alts) {
		// anyOf of bare "required" lists on a typed node is a constraint
		// ("give at least one of"), which strict mode cannot express: keep
		// it in words and check it when the call arrives.
		var sets []string
		for _, a := range alts {
			if r, ok := a.(map[string]any)["required"].([]any); ok {
				sets = append(sets, fmt.Sprint(r...))
			}
		}
		notes = append(notes, "give at least one of: "+strings.Join(sets, ", "))
		alts = nil
	}
	if len(alts) > 0 {
		var conv []any
		for _, a := range alts {
			if m, ok := a.(map[string]any); ok {
				conv = append(conv, strictNode(m, defs, true))
			}
		}
		if len(conv) == 0 {
			return freeForm(desc, required)
		}
		out["anyOf"] = conv
		if desc != "" {
			out["description"] = desc
		}
		return nullable(out, required)
	}

	typ := s["type"]
	if types, ok := typ.([]any); ok {
		// A type list such as [string, null]: keep the first non-null type and nullability.
		var first string
		hasNull := false
		for _, t := range types {
			if t == "null" {
				hasNull = true
			} else if first == "" {
				first, _ = t.(string)
			}
		}
		typ = first
		if hasNull {
			required = false
		}
	}
	switch typ {
	case "object":
		props, _ := s["properties"].(map[string]any)
		if len(props) == 0 {
			return freeForm(desc, required)
		}
		req := map[string]bool{}
		if r, ok := s["required"].([]any); ok {
			for _, name := range r {
				if n, ok := name.(string); ok {
					req[n] = true
				}
			}
		}
		// A property whose schema is not an object is left out: strict
		// mode must list every property it keeps as required.
		names := make([]string, 0, len(props))
		for n, p := range props {
			if isObject(p) {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		conv := map[string]any{}
		for _, n := range names {
			conv[n] = strictNode(props[n].(map[string]any), defs, req[n])
		}
		out["type"] = "object"
		out["properties"] = conv
		out["required"] = names
		out["additionalProperties"] = false
	case "array":
		items, ok := s["items"].(map[string]any)
		if !ok {
			return freeForm(desc, required)
		}
		out["type"] = "array"
		out["items"] = strictNode(items, defs, true)
	case "string", "integer", "number", "boolean", "null":
		out["type"] = typ
	case nil:
		if _, hasEnum := s["enum"]; !hasEnum {
			if _, hasConst := s["const"]; !hasConst {
				return freeForm(desc, required)
			}
		}
	default:
		return freeForm(desc, required)
	}
	for k, v := range s {
		switch {
		case k == "type" || k == "properties" || k == "required" || k == "additionalProperties" || k == "items" ||
			k == "description" || k == "$defs" || k == "anyOf" || k == "oneOf" || k == "allOf" || k == "$ref":
		case k == "format":
			if f, _ := v.(string); strictFormats[f] {
				out[k] = v
			} else {
				notes = append(notes, fmt.Sprintf("format %v", v))
			}
		case strictKeywords[k]:
			out[k] = v
		case k == "minLength" || k == "maxLength" || k == "uniqueItems" || k == "default" || k == "minProperties" || k == "maxProperties":
			notes = append(notes, fmt.Sprintf("%s %v", k, v))
		}
	}
	if len(notes) > 0 {
		sort.Strings(notes)
		notes = slices.Compact(notes)
		desc = strings.TrimSpace(desc + " (" + strings.Join(notes, "; ") + ")")
	}
	if desc != "" {
		out["description"] = desc
	}
	return nullable(out, required)
}

// isObject reports whether a decoded JSON value is an object.
func isObject(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

// onlyConstraints reports whether alternatives only constrain (required
// lists) rather than describe types.
func onlyConstraints(alts []any) bool {
	for _, a := range alts {
		m, ok := a.(map[string]any)
		if !ok {
			return false
		}
		for k := range m {
			if k != "required" && k != "description" {
				return false
			}
		}
	}
	return true
}

// freeForm carries a value whose shape strict mode cannot express as a
// JSON-encoded string.
func freeForm(desc string, required bool) map[string]any {
	return nullable(map[string]any{"type": "string", "description": strings.TrimSpace(desc + jsonStringNote)}, required)
}

// nullable lets an optional value be null, since strict mode requires every property.
func nullable(s map[string]any, required bool) map[string]any {
	if required {
		return s
	}
	switch t := s["type"].(type) {
	case string:
		if t != "null" {
			s["type"] = []any{t, "null"}
		}
		if enum, ok := s["enum"].([]any); ok && !slices.Contains(enum, nil) {
			s["enum"] = append(slices.Clone(enum), nil)
		}
		return s
	}
	if _, ok := s["anyOf"]; ok {
		s["anyOf"] = append(s["anyOf"].([]any), map[string]any{"type": "null"})
		return s
	}
	return map[string]any{"anyOf": []any{s, map[string]any{"type": "null"}}}
}

// normalizeArgs prepares arguments a model sent for validation against the
// original schema: a null for an optional property counts as absent, and a
// string sent for a free-form object or array (strict mode's encoding) is
// decoded.
func normalizeArgs(schema map[string]any, defs map[string]any, v any) any {
	if ref, ok := schema["$ref"].(string); ok {
		if d, ok := defs[strings.TrimPrefix(ref, "#/$defs/")].(map[string]any); ok {
			schema = d
		}
	}
	switch x := v.(type) {
	case map[string]any:
		props, _ := schema["properties"].(map[string]any)
		req := map[string]bool{}
		if r, ok := schema["required"].([]any); ok {
			for _, n := range r {
				if s, ok := n.(string); ok {
					req[s] = true
				}
			}
		}
		for k, val := range x {
			ps, _ := props[k].(map[string]any)
			if val == nil && !req[k] {
				delete(x, k)
				continue
			}
			if ps != nil {
				x[k] = normalizeArgs(ps, defs, val)
			}
		}
		return x
	case []any:
		if items, ok := schema["items"].(map[string]any); ok {
			for i := range x {
				x[i] = normalizeArgs(items, defs, x[i])
			}
		}
		return x
	case string:
		typ, _ := schema["type"].(string)
		_, hasProps := schema["properties"]
		_, hasItems := schema["items"]
		if (typ == "object" && !hasProps) || (typ == "array" && !hasItems) || (typ == "" && schema["anyOf"] == nil && schema["enum"] == nil) {
			if decoded, err := decodeJSON([]byte(x)); err == nil {
				switch decoded.(type) {
				case map[string]any, []any:
					return decoded
				}
			}
		}
	}
	return v
}
