package catalog

// MatchThreshold is the relevance under which a tool does not match a
// request well: the share of the request's words (weighted by rarity) and
// of the application it names that the tool's id, name, keywords and
// description cover. Callers answer "no good match" when the best tool
// falls under it.
const MatchThreshold = 0.35

// Ranking weights, tuned on the tuning half of the evaluation.
const (
	// weightTypo scales the term a misspelt word was corrected to.
	weightTypo = 0.9
	// boostNamed, boostWeak and boostCarried add a share of the best
	// text score to every tool of a connector the request names, names
	// with an everyday word or hints at, or that an earlier step named.
	boostNamed   = 1.0
	boostWeak    = 0.35
	boostCarried = 0.8
	// synonymCredit is what a synonym counts for in the relevance score.
	synonymCredit = 0.6
	// unknownWordWeight is the weight, against the rarest word of the
	// catalog, of a word the catalog does not hold (a name, a thing no
	// tool deals with).
	unknownWordWeight = 0.5
	// weightArgument scales, in the text score, a word that comes after an
	// argument marker ("post that the deploy is done"): it is what the
	// tool is given, not what it does. argumentWeight does the same in the
	// relevance score.
	weightArgument = 0.5
	argumentWeight = 0.3
	// weightWho is the weight of the people terms a "who" question adds.
	weightWho = 0.5
	// foreignPenalty scales the relevance of every tool for a request that
	// names an application the catalog has no connector for.
	foreignPenalty = 0.5
	// unknownObjectPenalty scales the relevance of every tool for a
	// request whose object no tool knows (see hasUnknownObject).
	unknownObjectPenalty = 0.6
	// otherAppPenalty scales the relevance of a tool of another
	// application than the one the request (or an earlier step) names.
	otherAppPenalty = 0.5
	// minShareOfBest is the share of the best text score under which a
	// tool of no named application is left out of the answer.
	minShareOfBest = 0.1
	// relevanceMix weighs the text score against the relevance in the
	// order of the tools: score × (relevanceMix + relevance).
	relevanceMix = 0.5
	// Verb factors: see intentFactor.
	factorNoVerbList = 1.3
	factorNoVerbRead = 1.1
	factorSameClass  = 1.3
	factorSameVerb   = 1.3
	factorOtherClass = 0.75
)

// StepAnswer is the ranked answer to a request: every tool, best first,
// and, when the request was split into steps, each step's own ranking in
// order. Hits then interleaves the steps' best tools.
type StepAnswer struct {
	Hits  []ToolHit
	Steps []Step
}

// Step is one step of a request and its ranked tools.
type Step struct {
	Query string
	Hits  []ToolHit
}

// SearchSteps ranks the tools for query, keeping only those keep accepts
// (nil keeps all). A request written as several steps ("look up the
// customer and then refund") is ranked step by step; a step that names no
// application leans towards the one an earlier step named.
func (c *Catalog) SearchSteps(query string, keep func(*Tool) bool) StepAnswer {
	parts := splitSteps(query)
	if len(parts) == 1 {
		return StepAnswer{Hits: c.rank(c.plan(query), nil, keep)}
	}
	var carried []string
	steps := make([]Step, 0, len(parts))
	for _, part := range parts {
		p := c.plan(part)
		steps = append(steps, Step{Query: part, Hits: c.rank(p, carried, keep)})
		if len(p.named) > 0 {
			carried = p.named
		} else if len(p.common) > 0 {
			carried = p.common
		}
	}
	return StepAnswer{Hits: interleave(steps), Steps: steps}
}

// interleave merges the steps' rankings: each step's first tool in order,
// then each step's second, each tool once.
func interleave(steps []Step) []ToolHit {
	var out []ToolHit
	seen := map[string]bool{}
	for r := 0; ; r++ {
		more := false
		for _, s := range steps {
			if r >= len(s.Hits) {
				continue
			}
			more = true
			if h := s.Hits[r]; !seen[h.Tool.ID] {
				seen[h.Tool.ID] = true
				out = append(out, h)
			}
		}
		if !more {
			return out
		}
	}
}

// rank scores every tool for one planned request.
func (c *Catalog) rank(p *queryPlan, carried []string, keep func(*Tool) bool) []ToolHit {
	idx := c.toolIndex
	var qterms []qterm
	seen := map[string]bool{}
	for _, k := range p.concepts {
		if !seen[k.term] {
			seen[k.term] = true
			w := 1.0
			if k.typo {
				w = weightTypo
			}
			if k.arg {
				w *= weightArgument
			}
			qterms = append(qterms, qterm{term: k.term, w: w})
		}
	}
	for _, k := range p.concepts {
		for _, syn := range k.synonym {
			if seen[syn.term] {
				continue
			}
			seen[syn.term] = true
			q := qterm{term: syn.term, w: weightSynonym}
			if len(syn.scope) > 0 {
				q.scope = func(doc int) bool { return syn.inScope(c.tools[doc].connector) }
			}
			qterms = append(qterms, q)
		}
	}
	qterms = append(qterms, p.extra...)
	scores := make([]float64, len(c.tools))
	idx.score(qterms, scores)
	best := 0.0
	for _, s := range scores {
		best = max(best, s)
	}
	if best == 0 {
		best = 1
	}
	// Per connector, by position: the boost of its tools, and whether the
	// request (or an earlier step) names it.
	nc := len(c.connectors)
	bonus := make([]float64, nc)
	named := make([]bool, nc)
	carriedSet := make([]bool, nc)
	for _, id := range carried {
		bonus[c.connOrd[id]] = boostCarried * best
		carriedSet[c.connOrd[id]] = true
	}
	for _, id := range p.weak {
		bonus[c.connOrd[id]] = boostWeak * best
	}
	namedIDs := p.named
	if len(namedIDs) == 0 {
		namedIDs = p.common
	}
	for _, id := range p.named {
		bonus[c.connOrd[id]] = boostNamed * best
	}
	for _, id := range namedIDs {
		named[c.connOrd[id]] = true
	}
	cov, total := c.coverage(p)
	rel := make([]float64, len(c.tools))
	var hits []Hit
	// A tool whose text score is a sliver of the best one's matched a
	// common word or a synonym only: it is left out, which keeps long
	// answers and their sorting short.
	floor := best * minShareOfBest
	for doc, s := range scores {
		t := c.tools[doc]
		con := c.toolConn[doc]
		b := bonus[con]
		if (s == 0 || s+b < floor) && (b == 0 || !named[con] || len(p.named) == 0) {
			continue
		}
		if keep != nil && !keep(t) {
			continue
		}
		rel[doc] = c.relevance(p, len(namedIDs) > 0, named[con], len(carried) > 0 && !carriedSet[con], cov[doc], total)
		// The share of the request a tool covers also orders the tools:
		// a tool that matches every word beats one that matches a rare
		// word many times.
		hits = append(hits, Hit{Doc: doc, Score: (s + b) * c.intentFactor(p, doc) * (relevanceMix + rel[doc])})
	}
	sortHits(hits)
	out := make([]ToolHit, len(hits))
	for i, h := range hits {
		out[i] = ToolHit{Tool: c.tools[h.Doc], Score: h.Score, Relevance: rel[h.Doc]}
	}
	return out
}

// coverage sums, for every tool, the weights of the request's words it
// covers: fully when it holds the word, in part when it holds a synonym
// in scope. It walks the same postings as the text score.
func (c *Catalog) coverage(p *queryPlan) (cov []float64, total float64) {
	idx := c.toolIndex
	cov = make([]float64, len(c.tools))
	mark := make([]int32, len(c.tools))
	for ki, k := range p.concepts {
		total += k.weight
		stamp := int32(ki + 1)
		for _, ps := range idx.postings[k.term] {
			cov[ps.doc] += k.weight
			mark[ps.doc] = stamp
		}
		for _, syn := range k.synonym {
			for _, ps := range idx.postings[syn.term] {
				if mark[ps.doc] != stamp && syn.inScope(c.tools[ps.doc].connector) {
					cov[ps.doc] += k.weight * synonymCredit
					mark[ps.doc] = stamp
				}
			}
		}
	}
	return cov, total
}

// relevance is the share of the request a tool covers, from 0 to 1: each
// word counts by its rarity, fully when the tool holds it and in part for
// a synonym (got of total, from coverage); the application the request
// names counts as its rarest word.
func (c *Catalog) relevance(p *queryPlan, anyNamed, isNamed, otherThanCarried bool, got, total float64) float64 {
	if anyNamed {
		total += c.toolIndex.maxIDF
		if isNamed {
			got += c.toolIndex.maxIDF
		}
	}
	if total == 0 {
		return 0
	}
	r := got / total
	if (anyNamed && !isNamed) || (!anyNamed && otherThanCarried) {
		// The request, or an earlier step, names another application.
		r *= otherAppPenalty
	}
	if p.foreign && len(p.named) == 0 {
		r *= foreignPenalty
	}
	if p.unknownObject {
		r *= unknownObjectPenalty
	}
	return r
}

// intentFactor scales a tool's score by how well its verb fits the
// request's: a request to read favours list, get and search tools, one to
// create favours create tools, and so on; a request without a verb ("slack
// users") favours listing; the very verb of the request a little more.
func (c *Catalog) intentFactor(p *queryPlan, doc int) float64 {
	q, t, verb := p.intent, c.toolClass[doc], c.toolVerb[doc]
	switch {
	case q == intentNone && !p.plural && verb == "get":
		// "figma file", "jira issue PROJ-4": one thing, to look at.
		return factorNoVerbList
	case q == intentNone || (q == intentRead && p.plural):
		switch verb {
		case "list", "search", "query", "filter":
			if q == intentNone && !p.plural {
				return factorNoVerbRead
			}
			return factorNoVerbList
		}
		if t == intentRead {
			return factorNoVerbRead
		}
		if q == intentRead {
			return factorOtherClass
		}
		return 1
	case q == t:
		if p.verb != "" && p.verb == verb {
			return factorSameClass * factorSameVerb
		}
		return factorSameClass
	case q == intentRead || t == intentRead:
		return factorOtherClass
	case q == intentCreate && t == intentRemove, q == intentRemove && t == intentCreate:
		return 0.7
	}
	return 0.9
}

// toolClassOf is the verb class of a tool, from the first word of its id
// after the connector's (returned too), or else from its effect.
func toolClassOf(t *Tool) (int, string) {
	rest := t.ID
	if t.connector != nil {
		rest = trimPrefix(rest, t.connector.ID+"_")
	}
	verb := rest
	for i := range rest {
		if rest[i] == '_' {
			verb = rest[:i]
			break
		}
	}
	if v, ok := toolVerbs[verb]; ok {
		return v, verb
	}
	switch t.Effect {
	case EffectRead:
		return intentRead, verb
	case EffectDestructive:
		return intentRemove, verb
	}
	return intentUpdate, verb
}

func trimPrefix(s, prefix string) string {
	if len(s) >= len(prefix) && s[:len(prefix)] == prefix {
		return s[len(prefix):]
	}
	return s
}
