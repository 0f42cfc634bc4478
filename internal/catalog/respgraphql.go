package catalog

import (
	"fmt"
	"strings"
)

// parseSDL reads the output types of a GraphQL SDL document (object types,
// interfaces, enums, unions and scalars; input types and directives are
// skipped) and returns them as JSON-schema-like objects keyed by type name,
// with fields as properties and named types as bare {"$ref": "Type"}, so
// that the response walk reads them like a Google discovery document.
func parseSDL(src string) (map[string]any, error) {
	p := &sdlParser{toks: sdlTokens(src)}
	types := map[string]any{
		"String":  map[string]any{"type": "string"},
		"ID":      map[string]any{"type": "string"},
		"Int":     map[string]any{"type": "integer"},
		"Float":   map[string]any{"type": "number"},
		"Boolean": map[string]any{"type": "boolean"},
	}
	for !p.done() {
		p.skipDescription()
		kw := p.next()
		if kw == "extend" {
			kw = p.next()
		}
		switch kw {
		case "schema":
			p.skipDirectives()
			p.skipBalanced("{", "}")
		case "directive":
			p.expect("@")
			p.next()
			if p.peek() == "(" {
				p.skipBalanced("(", ")")
			}
			if p.peek() == "repeatable" {
				p.next()
			}
			p.expect("on")
			if p.peek() == "|" {
				p.next()
			}
			p.next()
			for p.peek() == "|" {
				p.next()
				p.next()
			}
		case "scalar":
			name := p.next()
			p.skipDirectives()
			if _, ok := types[name]; !ok {
				types[name] = customScalar(name)
			}
		case "enum":
			name := p.next()
			p.skipDirectives()
			if p.peek() == "{" {
				p.skipBalanced("{", "}")
			}
			types[name] = map[string]any{"type": "string"}
		case "union":
			name := p.next()
			p.skipDirectives()
			var variants []any
			if p.peek() == "=" {
				p.next()
				if p.peek() == "|" {
					p.next()
				}
				variants = append(variants, map[string]any{"$ref": p.next()})
				for p.peek() == "|" {
					p.next()
					variants = append(variants, map[string]any{"$ref": p.next()})
				}
			}
			types[name] = map[string]any{"oneOf": variants}
		case "type", "interface", "input":
			name := p.next()
			if p.peek() == "implements" {
				p.next()
				for p.peek() != "{" && p.peek() != "@" && !p.done() && !isSDLKeyword(p.peek()) {
					p.next()
				}
			}
			p.skipDirectives()
			if p.peek() != "{" {
				continue
			}
			fields, err := p.fields()
			if err != nil {
				return nil, fmt.Errorf("type %s: %w", name, err)
			}
			if kw == "input" {
				continue
			}
			if old, ok := types[name].(map[string]any); ok {
				if props, ok := old["properties"].(map[string]any); ok {
					for k, v := range fields {
						props[k] = v
					}
					continue
				}
			}
			types[name] = map[string]any{"type": "object", "properties": fields}
		case "":
			return types, nil
		default:
			return nil, fmt.Errorf("unexpected %q at token %d", kw, p.pos)
		}
	}
	return types, nil
}

// customScalar is the JSON type of a custom scalar: the date, time and id
// scalars are strings; anything else (JSON, JSONObject, Duration) may be
// any value.
func customScalar(name string) map[string]any {
	switch name {
	case "DateTime", "TimelessDate", "Date", "UUID":
		return map[string]any{"type": "string"}
	}
	return map[string]any{}
}

func isSDLKeyword(t string) bool {
	switch t {
	case "type", "interface", "input", "enum", "union", "scalar", "schema", "directive", "extend":
		return true
	}
	return false
}

// graphqlResponse builds the response schema of a GraphQL call whose root
// fields are the operation ids ("Query.issue", or several joined by ", "):
// {"data": {field: its type}}.
func graphqlResponse(types map[string]any, opID string) (any, *specResolver, bool) {
	res := &specResolver{doc: types, format: specGraphQL}
	data := map[string]any{}
	for _, id := range strings.Split(opID, ", ") {
		root, field, ok := strings.Cut(id, ".")
		if !ok {
			return nil, res, false
		}
		t, _ := types[root].(map[string]any)
		props, _ := t["properties"].(map[string]any)
		f, ok := props[field]
		if !ok {
			return nil, res, false
		}
		data[field] = f
	}
	return map[string]any{"type": "object", "properties": map[string]any{
		"data": map[string]any{"type": "object", "properties": data},
	}}, res, true
}

// sdlParser walks the tokens of an SDL document.
type sdlParser struct {
	toks []string
	pos  int
}

func (p *sdlParser) done() bool { return p.pos >= len(p.toks) }

func (p *sdlParser) peek() string {
	if p.done() {
		return ""
	}
	return p.toks[p.pos]
}

func (p *sdlParser) next() string {
	t := p.peek()
	if !p.done() {
		p.pos++
	}
	return t
}

func (p *sdlParser) expect(t string) {
	if p.peek() == t {
		p.next()
	}
}

// skipDescription skips a description string before a definition or field.
func (p *sdlParser) skipDescription() {
	for strings.HasPrefix(p.peek(), `"`) {
		p.next()
	}
}

// skipDirectives skips @name(args) uses.
func (p *sdlParser) skipDirectives() {
	for p.peek() == "@" {
		p.next()
		p.next()
		if p.peek() == "(" {
			p.skipBalanced("(", ")")
		}
	}
}

// skipBalanced skips from an opening token to its matching closing one.
func (p *sdlParser) skipBalanced(open, close string) {
	depth := 0
	for !p.done() {
		switch p.next() {
		case open:
			depth++
		case close:
			depth--
			if depth == 0 {
				return
			}
		}
	}
}

// fields reads { name(args): Type @directives ... }.
func (p *sdlParser) fields() (map[string]any, error) {
	p.expect("{")
	out := map[string]any{}
	for !p.done() && p.peek() != "}" {
		p.skipDescription()
		name := p.next()
		if p.peek() == "(" {
			p.skipBalanced("(", ")")
		}
		if p.next() != ":" {
			return nil, fmt.Errorf("field %s: no type", name)
		}
		out[name] = p.typeRef()
		if p.peek() == "=" { // an input field's default value
			p.next()
			switch p.peek() {
			case "[":
				p.skipBalanced("[", "]")
			case "{":
				p.skipBalanced("{", "}")
			default:
				p.next()
			}
		}
		p.skipDirectives()
	}
	p.expect("}")
	return out, nil
}

// typeRef reads a type reference ([Issue!]!) as a schema.
func (p *sdlParser) typeRef() any {
	var s any
	if p.peek() == "[" {
		p.next()
		s = map[string]any{"type": "array", "items": p.typeRef()}
		p.expect("]")
	} else {
		s = map[string]any{"$ref": p.next()}
	}
	p.expect("!")
	return s
}

// sdlTokens splits SDL into names, punctuation and whole string literals;
// comments are dropped.
func sdlTokens(src string) []string {
	var toks []string
	for i := 0; i < len(src); {
		c := src[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ',':
			i++
		case c == '#':
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case strings.HasPrefix(src[i:], `"""`):
			end := strings.Index(src[i+3:], `"""`)
			if end < 0 {
				end = len(src) - i - 3
			}
			toks = append(toks, `"`)
			i += 3 + end + 3
		case c == '"':
			j := i + 1
			for j < len(src) && src[j] != '"' && src[j] != '\n' {
				if src[j] == '\\' {
					j++
				}
				j++
			}
			toks = append(toks, `"`)
			i = j + 1
		case strings.HasPrefix(src[i:], "..."):
			toks = append(toks, "...")
			i += 3
		case isNameByte(c) || c == '-':
			j := i + 1
			for j < len(src) && (isNameByte(src[j]) || src[j] == '.') {
				j++
			}
			toks = append(toks, src[i:j])
			i = j
		default:
			toks = append(toks, string(c))
			i++
		}
	}
	return toks
}

func isNameByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}
