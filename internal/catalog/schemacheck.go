package catalog

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
)

// propertyNamePattern is what every model vendor accepts as a tool
// parameter name; provider names outside it are mapped with request.rename.
var propertyNamePattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// schemaKeywords are the JSON Schema 2020-12 keywords a definition may use.
// Anything else is almost always a YAML slip (an unquoted comma in a flow
// mapping turns the rest of a description into a key), so it is refused.
var schemaKeywords = setOf(
	"$schema", "$id", "$ref", "$defs", "$comment", "$anchor",
	"type", "enum", "const", "title", "description", "default", "examples", "deprecated", "readOnly", "writeOnly",
	"properties", "required", "additionalProperties", "patternProperties", "propertyNames", "minProperties", "maxProperties",
	"dependentRequired", "dependentSchemas", "unevaluatedProperties",
	"items", "prefixItems", "contains", "minItems", "maxItems", "uniqueItems", "minContains", "maxContains", "unevaluatedItems",
	"minLength", "maxLength", "pattern", "format", "contentEncoding", "contentMediaType",
	"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf",
	"allOf", "anyOf", "oneOf", "not", "if", "then", "else",
)

// checkSchemaKeywords reports unknown keywords anywhere in a schema, and
// top-level property names a model vendor would refuse.
func checkSchemaKeywords(s Schema, topLevel bool) []string {
	var doc any
	if err := json.Unmarshal(s, &doc); err != nil {
		return []string{err.Error()}
	}
	var problems []string
	var walk func(v any, at string)
	walkMap := func(m map[string]any, at string) {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			walk(m[k], at+"/"+k)
		}
	}
	walk = func(v any, at string) {
		obj, ok := v.(map[string]any)
		if !ok {
			return
		}
		for k, val := range obj {
			switch k {
			case "properties", "$defs", "patternProperties", "dependentSchemas":
				if m, ok := val.(map[string]any); ok {
					walkMap(m, at+"/"+k)
				}
			case "items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames",
				"unevaluatedItems", "unevaluatedProperties":
				walk(val, at+"/"+k)
			case "allOf", "anyOf", "oneOf", "prefixItems":
				if arr, ok := val.([]any); ok {
					for i, item := range arr {
						walk(item, fmt.Sprintf("%s/%s/%d", at, k, i))
					}
				}
			default:
				if !schemaKeywords[k] {
					problems = append(problems, fmt.Sprintf("%s has unknown keyword %q (an unquoted comma in a YAML flow mapping?)", at, k))
				}
			}
		}
	}
	walk(doc, "")
	if topLevel {
		props, _, _, _ := schemaProperties(s)
		for name := range props {
			if !propertyNamePattern.MatchString(name) {
				problems = append(problems, fmt.Sprintf("property %q must match [A-Za-z0-9_.-]{1,64} for model vendors; map the provider's name with request.rename", name))
			}
		}
	}
	sort.Strings(problems)
	return problems
}
