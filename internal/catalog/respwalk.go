package catalog

import (
	"fmt"
	"sort"
	"strings"
)

// schemaShape is what a schema (with its $refs followed and its allOf,
// oneOf and anyOf parts merged) says about a JSON value: the types it
// allows, the properties it names, and what its array items and map
// values are. The same walk reads a provider's schema and an outputSchema.
type schemaShape struct {
	// types are the JSON types allowed ("integer", "object", ...); empty
	// means any.
	types map[string]bool
	// props are the schemas of each named property (several when parts of
	// an allOf or the variants of a union name the same property).
	props map[string][]any
	// items are the schemas of array items.
	items []any
	// values are additionalProperties schemas: an object used as a map
	// whose keys are data (ids, header names), each value of that schema.
	values []any
	// open means a property name cannot be refuted: the schema names no
	// properties and does not forbid others, a part of it could not be
	// resolved, or a variant of a union is itself open.
	open bool
}

// shapeOf merges the shapes of nodes, read as alternatives.
func shapeOf(res *specResolver, nodes ...any) schemaShape {
	out := schemaShape{types: map[string]bool{}, props: map[string][]any{}}
	anyType := false
	for _, n := range nodes {
		s := shapeOne(res, n, nil, 0)
		if len(s.types) == 0 {
			anyType = true
		}
		out.merge(s)
		out.open = out.open || s.open
	}
	if anyType {
		out.types = map[string]bool{}
	}
	return out
}

// collected is the raw result of walking one schema and its allOf parts,
// before openness is decided.
type collected struct {
	schemaShape
	typed      bool // some part named a type, properties or items
	closed     bool // additionalProperties: false
	unresolved bool // a $ref that does not resolve
	unions     []schemaShape
}

// shapeOne walks one schema node. stack holds the $refs being expanded,
// so a recursive schema (a comment with replies) is not expanded forever.
func shapeOne(res *specResolver, node any, stack []string, depth int) schemaShape {
	c := collected{schemaShape: schemaShape{types: map[string]bool{}, props: map[string][]any{}}}
	collect(res, node, stack, depth, &c)
	s := c.schemaShape
	if !c.typed {
		s.types = map[string]bool{}
	}
	objectLike := len(s.types) == 0 || s.types["object"]
	s.open = c.unresolved || objectLike && len(s.props) == 0 && len(s.values) == 0 && !c.closed
	if len(c.unions) > 0 {
		// A union allows a property when any variant does; it can refute
		// one only when every variant that may be an object can.
		u := schemaShape{types: map[string]bool{}, props: map[string][]any{}}
		anyType := false
		for _, v := range c.unions {
			if len(v.types) == 0 {
				anyType = true
			}
			u.merge(v)
			if v.open && (len(v.types) == 0 || v.types["object"]) {
				u.open = true
			}
		}
		if anyType {
			u.types = map[string]bool{}
		}
		if c.typed {
			// The parts beside the union constrain it (allOf semantics);
			// a type named there wins over the variants' types.
			u.types = s.types
			if len(s.props) > 0 || len(s.values) > 0 {
				u.open = u.open && c.unresolved
			}
		}
		u.merge(schemaShape{props: s.props, items: s.items, values: s.values})
		u.open = u.open || c.unresolved
		return u
	}
	return s
}

// merge adds another shape's types, properties, items and values.
func (s *schemaShape) merge(o schemaShape) {
	for t := range o.types {
		s.types[t] = true
	}
	for name, p := range o.props {
		s.props[name] = append(s.props[name], p...)
	}
	s.items = append(s.items, o.items...)
	s.values = append(s.values, o.values...)
}

// collect adds one schema node (and its $ref target and allOf parts) to c.
func collect(res *specResolver, node any, stack []string, depth int, c *collected) {
	if depth > 64 {
		c.unresolved = true
		return
	}
	m, ok := node.(map[string]any)
	if !ok {
		// true, {} or nothing: any value.
		if node == false {
			c.closed, c.typed = true, true
		}
		return
	}
	if ref, ok := m["$ref"].(string); ok {
		for _, r := range stack {
			if r == ref {
				// A schema that includes itself adds nothing new.
				return
			}
		}
		target := res.lookup(ref)
		if target == nil {
			c.unresolved = true
			return
		}
		collect(res, target, append(stack[:len(stack):len(stack)], ref), depth+1, c)
		return
	}
	switch t := m["type"].(type) {
	case string:
		addType(c, t)
	case []any:
		for _, x := range t {
			if s, ok := x.(string); ok {
				addType(c, s)
			}
		}
	}
	if m["nullable"] == true {
		c.types["null"] = true
	}
	if props, ok := m["properties"].(map[string]any); ok {
		c.typed = true
		c.types["object"] = true
		for name, p := range props {
			c.props[name] = append(c.props[name], p)
		}
	}
	switch a := m["additionalProperties"].(type) {
	case bool:
		if !a {
			c.closed = true
		}
	case map[string]any:
		if len(a) > 0 {
			c.values = append(c.values, a)
		}
	}
	switch items := m["items"].(type) {
	case map[string]any:
		c.typed = true
		c.types["array"] = true
		c.items = append(c.items, items)
	case []any:
		if m["type"] == "array" {
			// A tuple: any element is one of the listed schemas.
			c.items = append(c.items, items...)
			break
		}
		// The 2020 Slack spec writes alternatives of an object as a list
		// of items without a type (objs_conversation, objs_user).
		for _, v := range items {
			c.unions = append(c.unions, shapeOne(res, v, stack, depth+1))
		}
	}
	if parts, ok := m["allOf"].([]any); ok {
		for _, p := range parts {
			collect(res, p, stack, depth+1, c)
		}
	}
	for _, key := range []string{"oneOf", "anyOf"} {
		variants, ok := m[key].([]any)
		if !ok {
			continue
		}
		for _, v := range variants {
			c.unions = append(c.unions, shapeOne(res, v, stack, depth+1))
		}
	}
	// A base schema whose discriminator maps to subtypes (Okta's
	// Application) may be answered with any of them; the subtypes usually
	// include the base through allOf, which the stack keeps from looping.
	if disc, ok := m["discriminator"].(map[string]any); ok {
		mapping, _ := disc["mapping"].(map[string]any)
		for _, target := range sortedValues(mapping) {
			if !strings.HasPrefix(target, "#") && res.format != specDiscovery && res.format != specGraphQL {
				target = "#/components/schemas/" + target
			}
			c.unions = append(c.unions, shapeOne(res, map[string]any{"$ref": target}, stack, depth+1))
		}
	}
}

// sortedValues returns the string values of a map, sorted and without
// repeats.
func sortedValues(m map[string]any) []string {
	seen := map[string]bool{}
	var out []string
	for _, v := range m {
		if s, ok := v.(string); ok && !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

func addType(c *collected, t string) {
	if t == "any" || t == "" {
		// Google discovery's "any": no constraint.
		return
	}
	c.typed = true
	c.types[t] = true
}

// OutputCheck is the result of holding one tool's outputSchema to the
// success response schema of its provider's operation.
type OutputCheck struct {
	Tool      string
	Operation string
	// Known counts outputSchema properties the provider's schema names.
	Known int
	// Unknown are properties (dotted paths, [] for array items) the
	// provider's schema does not have.
	Unknown []string
	// Conflicts are properties whose type the provider's schema does not
	// allow ("id: spec string, ours integer").
	Conflicts []string
	// Unchecked are properties under an open part of the provider's schema.
	Unchecked []string
	// Skipped says why nothing could be checked (no spec body, an open
	// response); empty when the check ran.
	Skipped string
}

// ConflictField is the field path of a Conflicts entry.
func ConflictField(conflict string) string {
	field, _, _ := strings.Cut(conflict, ": ")
	return field
}

// compareOutput holds outputSchema out (with the dotted response path
// applied on the provider's side) to the provider's success schema spec.
func compareOutput(specRes *specResolver, spec any, out map[string]any, responsePath string) OutputCheck {
	var r OutputCheck
	if spec == nil {
		if t, _ := out["type"].(string); t == "null" {
			return r
		}
		r.Skipped = "the spec declares no success response body"
		return r
	}
	nodes := []any{spec}
	if responsePath != "" {
		walked := ""
		for _, seg := range strings.Split(responsePath, ".") {
			walked = joinField(walked, seg)
			s := shapeOf(specRes, nodes...)
			switch {
			case len(s.props[seg]) > 0:
				nodes = s.props[seg]
			case len(s.values) > 0:
				nodes = s.values
			case s.open:
				r.Skipped = fmt.Sprintf("the response path %s is under an open part of the spec's schema", walked)
				return r
			default:
				r.Unknown = append(r.Unknown, "(response path) "+walked)
				return r
			}
		}
	}
	oursRes := &specResolver{doc: out, format: specOpenAPI}
	compareNodes(specRes, oursRes, nodes, []any{out}, "", &r)
	if r.Known == 0 && len(r.Unknown) == 0 && len(r.Conflicts) == 0 && len(r.Unchecked) > 0 {
		r.Skipped = "every field is under an open part of the spec's schema"
	}
	return r
}

// compareNodes compares our schema nodes with the provider's at one field.
func compareNodes(specRes, oursRes *specResolver, spec, ours []any, field string, r *OutputCheck) {
	s := shapeOf(specRes, spec...)
	o := shapeOf(oursRes, ours...)
	if ot, st := jsonTypes(o.types), jsonTypes(s.types); len(ot) > 0 && len(st) > 0 && !typesOverlap(ot, st) {
		r.Conflicts = append(r.Conflicts, fmt.Sprintf("%s: spec %s, ours %s", displayField(field), strings.Join(st, "|"), strings.Join(ot, "|")))
		return
	}
	names := make([]string, 0, len(o.props))
	for n := range o.props {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		sub := joinField(field, n)
		switch {
		case len(s.props[n]) > 0:
			r.Known++
			compareNodes(specRes, oursRes, s.props[n], o.props[n], sub, r)
		case len(s.values) > 0:
			compareNodes(specRes, oursRes, s.values, o.props[n], sub, r)
		case s.open:
			r.Unchecked = append(r.Unchecked, sub)
		default:
			r.Unknown = append(r.Unknown, sub)
		}
	}
	if len(o.items) > 0 {
		switch {
		case len(s.items) > 0:
			compareNodes(specRes, oursRes, s.items, o.items, field+"[]", r)
		default:
			// An array without an items schema (or an untyped value)
			// cannot refute what its elements hold.
			if hasFields(oursRes, o.items) {
				r.Unchecked = append(r.Unchecked, field+"[]")
			}
		}
	}
}

// hasFields reports whether our item schemas name any property.
func hasFields(res *specResolver, nodes []any) bool {
	s := shapeOf(res, nodes...)
	return len(s.props) > 0 || len(s.items) > 0
}

// jsonTypes lists the types of a shape that can conflict: null is left
// out (whether a field may be null is not what this check is about).
func jsonTypes(types map[string]bool) []string {
	var out []string
	for t := range types {
		if t != "null" {
			out = append(out, t)
		}
	}
	sort.Strings(out)
	return out
}

// typesOverlap reports whether a value can have one of ours and one of the
// spec's types; integer and number are the same JSON type here.
func typesOverlap(ours, spec []string) bool {
	norm := func(t string) string {
		if t == "integer" {
			return "number"
		}
		return t
	}
	for _, a := range ours {
		for _, b := range spec {
			if norm(a) == norm(b) {
				return true
			}
		}
	}
	return false
}

func joinField(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

func displayField(field string) string {
	if field == "" {
		return "(root)"
	}
	return field
}
