package catalog

import (
	"regexp"
	"slices"
	"strings"
)

// queryPlan is what one request (or one step of it) asks for: its words
// once misspellings are corrected, the connectors it names or hints at,
// the class of its verb, and the weighted terms to score.
type queryPlan struct {
	text    string
	words   []string // lowercase, typos corrected
	typo    []bool   // words[i] was corrected
	alias   []bool   // words[i] is part of a connector's name
	named   []string // connectors named outright, in order of appearance
	common  []string // connectors named by an everyday word ("drive"), when none is named outright
	weak    []string // common, and the connectors the request hints at
	foreign bool     // names an application the catalog lacks
	intent  int
	verb    string // the verb intent was read from
	plural  bool   // asks about things in the plural, or about nothing named
	// unknownObject: a word no tool knows follows an article ("order a
	// pizza"): the thing to act on is likely outside the catalog.
	unknownObject bool
	concepts      []concept
	// extra are terms scored without counting towards relevance: the
	// people a "who" question asks about.
	extra []qterm
}

// concept is one word of the request that a tool should cover: its term,
// what else counts for it (synonyms, the correction of a typo), and its
// weight in the relevance score.
type concept struct {
	term    string
	weight  float64
	typo    bool
	arg     bool // comes after an argument marker ("that", "called", "for")
	synonym []synonym
}

// aliasTable maps an alias, as words joined by spaces, to connector ids.
type aliasTable struct {
	phrases map[string][]string
	single  []string // one-word aliases of four letters or more, for typo matching
	maxLen  int
}

func newAliasTable(connectors []*Connector) *aliasTable {
	at := &aliasTable{phrases: map[string][]string{}}
	add := func(alias, id string) {
		key := strings.Join(words(alias), " ")
		if key == "" || slices.Contains(at.phrases[key], id) {
			return
		}
		at.phrases[key] = append(at.phrases[key], id)
		if n := len(words(alias)); n > at.maxLen {
			at.maxLen = n
		}
	}
	for _, c := range connectors {
		add(c.ID, c.ID)
		add(strings.ReplaceAll(c.ID, "_", " "), c.ID)
		add(c.Name, c.ID)
		for _, a := range connectorAliases[c.ID] {
			add(a, c.ID)
		}
	}
	for key := range at.phrases {
		if !strings.Contains(key, " ") && len(key) >= 4 {
			at.single = append(at.single, key)
		}
	}
	slices.Sort(at.single)
	return at
}

// questionWords open a request that asks to be told something.
var questionWords = setOf("what", "whats", "who", "whos", "when", "which", "where", "how", "is", "are",
	"am", "do", "does", "did", "any", "has", "have", "whose", "why")

// leadWords may come before a request's verb.
var leadWords = setOf("please", "can", "could", "would", "you", "i", "want", "to", "need", "lets", "let",
	"us", "go", "ahead", "and", "also", "just", "quickly", "now", "hey", "ok", "okay", "then", "pls", "plz", "we")

// nounLikeVerbs are verbs that are as often nouns ("jira issue", "the
// file"): they say what a request wants only as its first word.
var nounLikeVerbs = setOf("issue", "file", "message", "text", "email", "page", "comment", "record", "log",
	"call", "book", "charge", "link", "label", "tag", "star", "draft", "invite", "reply", "count", "trigger",
	"query", "post", "track", "note", "order", "open", "new", "export", "check", "ship", "run", "end",
	"share", "list", "search", "merge", "refund", "dm", "schedule", "comment", "complete", "copy", "set")

// plan analyses one request or step of one.
func (c *Catalog) plan(text string) *queryPlan {
	p := &queryPlan{text: text}
	// An identifier leaves a placeholder, so that "issue PROJ-4" still
	// reads as a noun followed by its key.
	raw := words(identifierPattern.ReplaceAllString(text, " "+placeholder+" "))
	p.words = make([]string, len(raw))
	p.typo = make([]bool, len(raw))
	p.alias = make([]bool, len(raw))
	for i, w := range raw {
		p.words[i] = w
		if fixed, ok := c.correct(w); ok {
			p.words[i] = fixed
			p.typo[i] = true
		}
	}
	p.words, p.typo = rewriteVerbs(p.words, p.typo)
	p.alias = make([]bool, len(p.words))
	c.detectConnectors(p)
	c.detectPatterns(p, text)
	p.intent, p.verb = intentOf(p.words, p.alias)
	p.plural = asksForMany(p)
	p.concepts = c.conceptsOf(p)
	p.unknownObject = c.hasUnknownObject(p)
	for i, w := range p.words {
		if queryLanguages[w] && p.alias[i] {
			p.intent, p.verb = intentRead, "query"
			p.extra = append(p.extra, qterm{term: "queri", w: 1}, qterm{term: "search", w: 1})
		}
	}
	if len(p.words) > 0 && (p.words[0] == "who" || p.words[0] == "whos") {
		for _, t := range []string{"member", "user", "owner", "assigne", "person"} {
			p.extra = append(p.extra, qterm{term: t, w: weightWho})
		}
	}
	return p
}

// rewriteVerbs replaces the phrasal and slang verbs of phrasalVerbs with
// the plain verb they stand for ("get rid of" -> delete).
func rewriteVerbs(ws []string, typo []bool) ([]string, []bool) {
	var out []string
	var outTypo []bool
	for i := 0; i < len(ws); {
		matched := false
		for _, pv := range phrasalVerbs {
			n := len(pv.words)
			if i+n <= len(ws) && slices.Equal(ws[i:i+n], pv.words) {
				for _, v := range strings.Fields(pv.verb) {
					out = append(out, v)
					outTypo = append(outTypo, false)
				}
				i += n
				matched = true
				break
			}
		}
		if !matched {
			out = append(out, ws[i])
			outTypo = append(outTypo, typo[i])
			i++
		}
	}
	return out, outTypo
}

// Patterns that hint at an application: an issue key (PROJ-123) at Jira
// and Linear, a clock time (3pm) at the calendars.
var (
	issueKeyPattern  = regexp.MustCompile(`\b[A-Za-z][A-Za-z0-9]{1,9}-[0-9]+\b`)
	clockTimePattern = regexp.MustCompile(`(?i)\b[0-9]{1,2}(:[0-5][0-9])? ?(am|pm)\b`)
	channelPattern   = regexp.MustCompile(`(^|\s)#[A-Za-z][\w-]*`)
	// identifierPattern matches what a request hands the tool rather than
	// what it asks for: links, e-mail addresses, #channels, @mentions,
	// issue keys and quoted text. They are left out of its words.
	identifierPattern = regexp.MustCompile(`(?i)\bhttps?://\S+|\S+@\S+\.\w+|(^|\s)[#@][\w.-]+|\b[A-Za-z][A-Za-z0-9]{1,9}-[0-9]+\b|"[^"]*"|(^|\s)'[^']*'`)
)

func (c *Catalog) detectPatterns(p *queryPlan, text string) {
	hint := func(ids ...string) {
		if len(p.named) > 0 {
			return
		}
		for _, id := range ids {
			if _, ok := c.byID[id]; ok && !slices.Contains(p.named, id) {
				p.weak = appendNew(p.weak, id)
			}
		}
	}
	if issueKeyPattern.MatchString(text) {
		hint("jira", "linear")
	}
	if channelPattern.MatchString(text) {
		hint("slack", "microsoft_teams", "discord")
	}
	if clockTimePattern.MatchString(text) {
		hint("google_calendar", "outlook")
	}
	for i, w := range p.words {
		if leadWords[w] || p.alias[i] {
			continue
		}
		if _, ok := c.byID["pagerduty"]; ok && w == "page" && len(p.named) == 0 {
			// "page the on-call team": paging is PagerDuty's verb.
			p.named = append(p.named, "pagerduty")
		}
		break
	}
}

// detectConnectors finds the connectors a request names (longest alias
// first) or hints at, and the applications outside the catalog it names.
func (c *Catalog) detectConnectors(p *queryPlan) {
	for i := 0; i < len(p.words); {
		matched := false
		for n := min(c.aliases.maxLen, len(p.words)-i); n >= 1 && !matched; n-- {
			key := strings.Join(p.words[i:i+n], " ")
			ids, ok := c.aliases.phrases[key]
			if !ok {
				continue
			}
			if key == "monday" && isDay(p.words, i) {
				continue
			}
			matched = true
			for k := i; k < i+n; k++ {
				// An everyday word stays a word of the request too.
				p.alias[k] = !commonAliases[key] || len(key) <= 2
			}
			for _, id := range ids {
				if commonAliases[key] {
					p.common = appendNew(p.common, id)
				} else {
					p.named = appendNew(p.named, id)
				}
			}
			i += n
		}
		if !matched {
			if foreignApps[p.words[i]] {
				p.foreign = true
			}
			i++
		}
	}
	if len(p.named) > 0 {
		p.common = nil
	}
	p.weak = append(p.weak, p.common...)
	for i := range p.words {
		for n := 3; n >= 1 && len(p.named) == 0; n-- {
			if i+n > len(p.words) {
				continue
			}
			for _, id := range connectorHints[strings.Join(p.words[i:i+n], " ")] {
				if _, ok := c.byID[id]; ok && !slices.Contains(p.named, id) {
					p.weak = appendNew(p.weak, id)
				}
			}
		}
	}
}

func appendNew(list []string, s string) []string {
	if slices.Contains(list, s) {
		return list
	}
	return append(list, s)
}

// isDay reports whether "monday" at i is the day of the week.
func isDay(ws []string, i int) bool {
	return (i > 0 && dayContext[ws[i-1]]) || (i+1 < len(ws) && dayContext[ws[i+1]]) || i == len(ws)-1 && i > 0
}

// intentOf classifies what a request wants done from its first verb: a
// question reads; a verb that is as often a noun counts only as the first
// word; a request without a verb reads, weakly (intentNone).
func intentOf(ws []string, alias []bool) (int, string) {
	first := true
	for i, w := range ws {
		if alias[i] {
			continue
		}
		if first && questionWords[w] {
			return intentRead, ""
		}
		if leadWords[w] {
			continue
		}
		if v, canonical, ok := verbOf(w); ok {
			next := ""
			if i+1 < len(ws) {
				next = ws[i+1]
			}
			if w == "open" || w == "new" {
				// "open a pull request" creates, "open that message"
				// reads, "open pull requests" are pull requests.
				switch {
				case w == "new" || next == "a" || next == "an" || next == "new":
					return intentCreate, "create"
				case next == "the" || next == "that" || next == "this" || next == "my" || next == "it":
					return intentRead, "get"
				}
				first = false
				continue
			}
			if nounLikeVerbs[canonical] && (next == placeholder || hasDigit(next)) {
				// "issue 77", "ticket PROJ-4": a noun and its key.
				first = false
				continue
			}
			if first || !nounLikeVerbs[canonical] {
				return v, canonical
			}
		}
		first = false
	}
	return intentNone, ""
}

// asksForMany reports whether a request to read names its object in the
// plural ("open tickets", "slack users") or names none ("what's in my
// dropbox"): it then wants a list rather than one item.
func asksForMany(p *queryPlan) bool {
	if p.intent != intentRead && p.intent != intentNone {
		return false
	}
	objects := 0
	for i, w := range p.words {
		if p.alias[i] || stopWords[w] || questionWords[w] || leadWords[w] || hasDigit(w) || w == placeholder {
			continue
		}
		if _, verb := queryVerbs[w]; verb {
			continue
		}
		objects++
		if len(w) > 3 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") && !notPlural[w] {
			return true
		}
	}
	return objects == 0
}

// hasUnknownObject reports whether a word the catalog does not know
// follows an article before any argument marker.
func (c *Catalog) hasUnknownObject(p *queryPlan) bool {
	for i := 1; i < len(p.words); i++ {
		w := p.words[i]
		if argumentMarkers[w] {
			return false
		}
		switch p.words[i-1] {
		case "a", "an", "the", "some":
		default:
			continue
		}
		if p.alias[i] || p.typo[i] || stopWords[w] || hasDigit(w) || w == placeholder {
			continue
		}
		if _, known := c.toolIndex.vocab[w]; known {
			continue
		}
		if ts := terms(w); len(ts) == 1 && len(c.toolIndex.postings[ts[0]]) > 0 {
			continue
		}
		return true
	}
	return false
}

// conceptsOf lists the words of a request a tool should cover: its terms
// other than connector names and numbers, each weighted by how rare it is
// in the catalog (a word the catalog does not know weighs half the rarest).
func (c *Catalog) conceptsOf(p *queryPlan) []concept {
	var ws []string
	var typo, arg []bool
	inArg := false
	for i, w := range p.words {
		if i > 0 && argumentMarkers[w] {
			inArg = true
		}
		if p.alias[i] {
			continue
		}
		ws = append(ws, w)
		typo = append(typo, p.typo[i])
		arg = append(arg, inArg)
	}
	var out []concept
	seen := map[string]bool{}
	for _, t := range termsOfTracked(ws, typo, arg) {
		if seen[t.term] || hasDigit(t.term) || t.term == placeholder {
			continue
		}
		seen[t.term] = true
		w := c.toolIndex.idf(t.term)
		if w == 0 {
			w = c.toolIndex.maxIDF * unknownWordWeight
		}
		if t.arg {
			w *= argumentWeight
		}
		out = append(out, concept{term: t.term, weight: w, typo: t.typo, arg: t.arg, synonym: synonymsOf(t.term)})
	}
	return out
}

type trackedTerm struct {
	term      string
	typo, arg bool
}

// termsOfTracked is termsOf keeping whether each term came from a
// corrected word or from the request's arguments.
func termsOfTracked(ws []string, typo, arg []bool) []trackedTerm {
	var out []trackedTerm
	for i := 0; i < len(ws); i++ {
		w := ws[i]
		if i+1 < len(ws) {
			if folded, ok := phrases[w+" "+ws[i+1]]; ok {
				out = append(out, trackedTerm{folded, typo[i] || typo[i+1], arg[i]})
				i++
				continue
			}
		}
		if stopWords[w] {
			continue
		}
		out = append(out, trackedTerm{stem(w), typo[i], arg[i]})
	}
	return out
}

// verbOf returns the class of a request's word, by the word or by its
// stem ("creat" for a misspelt "create", "deleting").
func verbOf(w string) (int, string, bool) {
	if v, ok := queryVerbs[w]; ok {
		return v, w, true
	}
	if strings.HasSuffix(w, "s") {
		// "labels", "messages": nouns far more often than verbs.
		return 0, "", false
	}
	sv, ok := stemmedVerbs[stem(w)]
	return sv.class, sv.verb, ok
}

type stemmedVerb struct {
	class int
	verb  string
}

// stemmedVerbs maps the stem of each verb of queryVerbs to it; of two
// verbs with one stem, the one that is its own stem, then the first in
// alphabetical order.
var stemmedVerbs = func() map[string]stemmedVerb {
	ws := make([]string, 0, len(queryVerbs))
	for w := range queryVerbs {
		ws = append(ws, w)
	}
	slices.Sort(ws)
	out := map[string]stemmedVerb{}
	for _, w := range ws {
		st := stem(w)
		if prev, taken := out[st]; !taken || (w == st && prev.verb != st) {
			out[st] = stemmedVerb{queryVerbs[w], w}
		}
	}
	return out
}()

// placeholder stands for an identifier taken out of a request.
const placeholder = "zzidentifier"

func hasDigit(s string) bool {
	return strings.ContainsAny(s, "0123456789")
}
