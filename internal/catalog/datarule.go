package catalog

import (
	"bytes"
	"fmt"
	"slices"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// DataRule is the catalog's data-classification rule (catalog/data-rule.yaml,
// explained in catalog/README.md). A tool's id names what it works on
// (<connector>_<verb>_<noun>), so the rule reads the words after the verb:
// a word that names a record carrying other people's personal data (an
// issue, a message, an order, a file) makes the tool at least pii, a word
// that names health data makes it phi. The check is by name, not by
// response, because no tool declares its response fields yet and a name
// cannot drift from what the tool does without a reviewer noticing.
type DataRule struct {
	// PII and PHI are the singular nouns; plurals (s, es, ies) match too.
	PII []string `yaml:"pii"`
	PHI []string `yaml:"phi"`
	// NotPersonal are word pairs (dns_record, issue_type) that name
	// something without personal data although one word is a noun above,
	// each with the reason.
	NotPersonal map[string]string `yaml:"notPersonal"`
	// Exceptions are tools the nouns would raise whose result still cannot
	// carry personal data, each with the reason.
	Exceptions map[string]string `yaml:"exceptions"`
	// IrreversibleVerbs are verbs (send, refund) whose tools must be
	// marked irreversible.
	IrreversibleVerbs []string `yaml:"irreversibleVerbs"`
}

// ParseDataRule reads catalog/data-rule.yaml; unknown keys are refused.
func ParseDataRule(raw []byte) (*DataRule, error) {
	var r DataRule
	dec := yaml.NewDecoder(bytes.NewReader(raw))
	dec.KnownFields(true)
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("catalog: data rule: %w", err)
	}
	return &r, nil
}

// Required returns the least class the rule allows for a tool id of
// connector, and the word that asks for it ("" when any class will do).
func (r *DataRule) Required(connectorID, toolID string) (class, word string) {
	words := strings.Split(strings.TrimPrefix(toolID, connectorID+"_"), "_")
	if len(words) > 1 {
		words = words[1:] // the verb
	}
	nouns := append(slices.Clone(r.PII), r.PHI...)
	for p := range r.NotPersonal {
		nouns = append(nouns, strings.Split(p, "_")...)
	}
	for i, w := range words {
		words[i] = singular(w, nouns)
	}
	class = ClassStandard
	for i, w := range words {
		if r.notPersonal(words, i) {
			continue
		}
		switch {
		case slices.Contains(r.PHI, w):
			return ClassPHI, w
		case slices.Contains(r.PII, w) && class == ClassStandard:
			class, word = ClassPII, w
		}
	}
	return class, word
}

// notPersonal reports whether words[i] is part of a NotPersonal pair.
func (r *DataRule) notPersonal(words []string, i int) bool {
	if i > 0 {
		if _, ok := r.NotPersonal[words[i-1]+"_"+words[i]]; ok {
			return true
		}
	}
	if i+1 < len(words) {
		if _, ok := r.NotPersonal[words[i]+"_"+words[i+1]]; ok {
			return true
		}
	}
	return false
}

// singular maps a plural of a known noun to the noun (replies → reply,
// addresses → address, tasks → task); other words stay as they are.
func singular(w string, nouns []string) string {
	if slices.Contains(nouns, w) {
		return w
	}
	for _, c := range []struct{ suffix, repl string }{{"ies", "y"}, {"es", ""}, {"s", ""}} {
		if s, ok := strings.CutSuffix(w, c.suffix); ok && slices.Contains(nouns, s+c.repl) {
			return s + c.repl
		}
	}
	return w
}

// Check holds every built-in tool of cat to the rule and returns the
// problems, one line each, sorted: a class below what the tool's name
// asks for, a verb that asks for irreversible without the mark, and
// exceptions that name no tool or that the tool no longer needs. partial
// says cat holds only some of the built-in connectors.
func (r *DataRule) Check(cat *Catalog, partial bool) []string {
	var out []string
	tools := map[string]bool{}
	loaded := map[string]bool{}
	for _, t := range cat.Tools() {
		c := t.Connector()
		if !c.Builtin() {
			continue
		}
		tools[t.ID], loaded[c.ID] = true, true
		need, word := r.Required(c.ID, t.ID)
		_, excepted := r.Exceptions[t.ID]
		switch {
		case excepted && need == ClassStandard:
			out = append(out, fmt.Sprintf("%s: listed in exceptions, but no word of its name asks for more than standard: remove the exception", t.ID))
		case !excepted && ClassRank(t.Classification()) < ClassRank(need):
			out = append(out, fmt.Sprintf("%s: dataClassification is %s, but %q in its name names records that carry people's data: make it %s, or list it in exceptions with the reason",
				t.ID, t.Classification(), word, need))
		}
		if t.Effect != EffectRead && !t.Irreversible {
			verb := strings.SplitN(strings.TrimPrefix(t.ID, c.ID+"_"), "_", 2)[0]
			if slices.Contains(r.IrreversibleVerbs, verb) {
				out = append(out, fmt.Sprintf("%s: %q cannot be called back: mark it irreversible: true", t.ID, verb))
			}
		}
	}
	for id := range r.Exceptions {
		// A partial catalog (catalog check --only) can judge only the
		// exceptions of the connectors it loaded.
		if !tools[id] && (!partial || loaded[connectorOf(id, loaded)]) {
			out = append(out, fmt.Sprintf("%s: listed in exceptions, but there is no such built-in tool", id))
		}
	}
	sort.Strings(out)
	return out
}

// connectorOf returns the loaded connector whose id prefixes a tool id, or "".
func connectorOf(toolID string, loaded map[string]bool) string {
	for c := range loaded {
		if strings.HasPrefix(toolID, c+"_") {
			return c
		}
	}
	return ""
}
