// Package redact hides personal data and secrets in tool outputs before
// they reach a model (docs/redaction.md): built-in detectors for e-mail
// addresses, phone numbers, payment card numbers (Luhn-checked), IBANs
// (checksum-checked) and secrets (keys and tokens by their published
// prefixes, JWTs, private key blocks), plus a project's own patterns. A
// project's rules are data (store.RedactionRules), compiled once and cached
// per project by its tools_version, which every change to them moves; a
// project without rules costs one cache lookup per call.
package redact

import (
	"bytes"
	"encoding/json"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Set is a project's compiled rules. A nil *Set redacts nothing.
type Set struct {
	detectors []detector
	// RESTExecute is set when the project redacts direct REST calls
	// (POST /v1/tools/execute and /v1/tools/proxy) too.
	RESTExecute bool
}

// Placeholder is what replaces a match of the detector or pattern name.
func Placeholder(name string) string { return "[redacted:" + name + "]" }

// Text returns s with every match replaced by its placeholder.
func (s *Set) Text(str string) string {
	if s == nil {
		return str
	}
	for i := range s.detectors {
		str = s.detectors[i].replace(str)
	}
	return str
}

// replace applies one detector to s.
func (d *detector) replace(s string) string {
	if d.hint != nil && !d.hint(s) {
		return s
	}
	var b strings.Builder
	last, pos := 0, 0
	for pos <= len(s) {
		loc := d.pattern.FindStringSubmatchIndex(s[pos:])
		if loc == nil {
			break
		}
		// The pattern's group 1, when it has one, is the sensitive part;
		// the rest of the match is the boundary around it.
		start, end := loc[0], loc[1]
		if len(loc) >= 4 && loc[2] >= 0 {
			start, end = loc[2], loc[3]
		}
		start, end = start+pos, end+pos
		if end == start {
			pos = end + 1
			continue
		}
		m := s[start:end]
		if d.fit != nil {
			n, ok := d.fit(m, s[end:])
			if !ok {
				pos = end
				continue
			}
			end = start + n
			m = s[start:end]
		}
		if d.check == nil || d.check(m) {
			b.WriteString(s[last:start])
			b.WriteString(Placeholder(d.name))
			last = end
		}
		pos = end
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// hinted reports whether any detector's cheap test passes on raw, so JSON
// that cannot hold a match is passed through without decoding. A custom
// pattern has no cheap test and always passes.
func (s *Set) hinted(raw string) bool {
	for i := range s.detectors {
		if h := s.detectors[i].hint; h == nil || h(raw) {
			return true
		}
	}
	return false
}

// Value returns v with every string in it redacted: strings, numbers
// (a card number sent as a JSON number), and the strings inside maps,
// arrays and JSON text. Map keys are kept. Values of other types are
// redacted through their JSON form. v itself is not changed.
func (s *Set) Value(v any) any {
	if s == nil || v == nil {
		return v
	}
	switch x := v.(type) {
	case string:
		return s.Text(x)
	case json.Number:
		if r := s.Text(string(x)); r != string(x) {
			return r
		}
		return x
	case float64:
		// A card number decoded as a number: whole, 13 to 19 digits.
		if x >= 1e12 && x < 1e19 && x == math.Trunc(x) {
			n := strconv.FormatFloat(x, 'f', 0, 64)
			if r := s.Text(n); r != n {
				return r
			}
		}
		return x
	case bool, int, int64:
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = s.Value(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = s.Value(e)
		}
		return out
	case json.RawMessage:
		return s.raw(x)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil // nothing unredacted leaves
	}
	return s.raw(b)
}

// raw redacts JSON text, passing it through as it is when nothing in it
// could match.
func (s *Set) raw(b []byte) any {
	if !s.hinted(string(b)) {
		return json.RawMessage(b)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return s.Text(string(b))
	}
	return s.Value(v)
}

// JSON redacts encoded JSON and returns it encoded (for the execution
// log's stored payloads).
func (s *Set) JSON(b []byte) []byte {
	if s == nil {
		return b
	}
	out, err := json.Marshal(s.raw(b))
	if err != nil {
		return nil
	}
	return out
}

// With returns a Set that runs s's detectors and patterns and also the
// named built-in detectors (a session's own, docs/redaction.md); names s
// already runs, or that are no detector, are skipped. s may be nil.
func (s *Set) With(detectors []string) *Set {
	out := &Set{}
	if s != nil {
		out.RESTExecute = s.RESTExecute
		out.detectors = append(out.detectors, s.detectors...)
	}
	for _, name := range detectors {
		if slices.ContainsFunc(out.detectors, func(d detector) bool { return d.name == name }) {
			continue
		}
		for _, d := range builtins[name] {
			d.name = name
			out.detectors = append(out.detectors, d)
		}
	}
	return out
}

// compile builds a Set from validated rules.
func compile(r Rules) (*Set, error) {
	s := &Set{RESTExecute: r.RESTExecute}
	want := map[string]bool{}
	for _, d := range r.Detectors {
		want[d] = true
	}
	for _, name := range Detectors {
		if !want[name] {
			continue
		}
		for _, d := range builtins[name] {
			d.name = name
			s.detectors = append(s.detectors, d)
		}
	}
	for _, p := range r.Patterns {
		re, err := regexp.Compile(p.Pattern)
		if err != nil {
			return nil, err
		}
		s.detectors = append(s.detectors, detector{name: p.Name, pattern: re})
	}
	return s, nil
}
