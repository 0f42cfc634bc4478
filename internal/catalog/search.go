package catalog

import (
	"math"
	"sort"
	"strings"
	"unicode"

	"github.com/kljensen/snowball/english"
)

// Field weights: a word in a tool's name or id says more about what it does
// than the same word in its description.
const (
	weightName        = 3.0
	weightID          = 2.5
	weightKeywords    = 2.5
	weightConnector   = 2.0
	weightCategory    = 0.5
	weightDescription = 1.0
	// weightSynonym scales a query word's synonyms against the word itself.
	weightSynonym = 0.6
	bm25K1        = 1.2
	bm25B         = 0.5
)

// Index ranks documents (tools or connectors) for a free-text query. It is
// built once, at load, and read concurrently: BM25 over weighted fields,
// with stemming, phrase folding and synonym expansion of the query.
type Index struct {
	postings map[string][]posting
	docLen   []float64
	avgLen   float64
}

type posting struct {
	doc int
	tf  float64
}

type field struct {
	text   string
	weight float64
}

// Hit is one ranked result: the position of the document and its score.
type Hit struct {
	Doc   int
	Score float64
}

func newIndex(docs [][]field) *Index {
	idx := &Index{postings: map[string][]posting{}, docLen: make([]float64, len(docs))}
	total := 0.0
	for d, fields := range docs {
		tf := map[string]float64{}
		for _, f := range fields {
			for _, term := range terms(f.text) {
				tf[term] += f.weight
				idx.docLen[d] += f.weight
			}
		}
		total += idx.docLen[d]
		for term, w := range tf {
			idx.postings[term] = append(idx.postings[term], posting{doc: d, tf: w})
		}
	}
	if len(docs) > 0 {
		idx.avgLen = total / float64(len(docs))
	}
	return idx
}

// Search returns the documents that match query, best first, keeping only
// those accepted by keep (nil keeps all).
func (idx *Index) Search(query string, keep func(doc int) bool) []Hit {
	// The query's terms, then their synonyms (not synonyms of synonyms),
	// each once and in a fixed order, so that the same query sums the same
	// floating-point scores in the same order and ranks the same every time.
	type weighted struct {
		term string
		w    float64
	}
	var qterms []weighted
	seen := map[string]bool{}
	words := terms(query)
	for _, term := range words {
		if !seen[term] {
			seen[term] = true
			qterms = append(qterms, weighted{term, 1})
		}
	}
	for _, term := range words {
		for _, syn := range synonymsOf(term) {
			if !seen[syn] {
				seen[syn] = true
				qterms = append(qterms, weighted{syn, weightSynonym})
			}
		}
	}
	n := float64(len(idx.docLen))
	scores := map[int]float64{}
	for _, q := range qterms {
		term, qw := q.term, q.w
		ps := idx.postings[term]
		if len(ps) == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(len(ps))+0.5)/(float64(len(ps))+0.5))
		for _, p := range ps {
			norm := p.tf + bm25K1*(1-bm25B+bm25B*idx.docLen[p.doc]/idx.avgLen)
			scores[p.doc] += qw * idf * p.tf * (bm25K1 + 1) / norm
		}
	}
	hits := make([]Hit, 0, len(scores))
	for doc, s := range scores {
		if keep == nil || keep(doc) {
			hits = append(hits, Hit{Doc: doc, Score: s})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Doc < hits[j].Doc
	})
	return hits
}

// terms splits text into stemmed search terms: lowercase words, stop words
// dropped, known phrases folded into one term ("pull request" -> pullrequest).
func terms(text string) []string {
	words := strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
	out := make([]string, 0, len(words))
	for i := 0; i < len(words); i++ {
		w := words[i]
		if i+1 < len(words) {
			if folded, ok := phrases[w+" "+words[i+1]]; ok {
				out = append(out, folded)
				i++
				continue
			}
		}
		if stopWords[w] {
			continue
		}
		out = append(out, stem(w))
	}
	return out
}

func stem(w string) string {
	if s, ok := irregular[w]; ok {
		return s
	}
	return english.Stem(w, false)
}

// synonymsOf returns the other terms of every synonym group term is in.
func synonymsOf(term string) []string { return synonymIndex[term] }

var stopWords = setOf("a", "an", "the", "to", "for", "of", "in", "on", "my", "me", "our", "i", "we",
	"you", "please", "can", "could", "would", "with", "and", "or", "from", "by", "at", "is", "are", "be",
	"this", "that", "it", "its", "some", "about", "into", "what", "which", "who", "how", "do", "does",
	"want", "need", "let", "us", "your", "there", "them", "they", "so", "just", "any", "up", "out", "hey",
	"should", "will", "was", "were", "has", "have", "had", "been", "as", "if", "than", "then", "also", "too",
	"one", "s", "t", "via", "using", "use", "within", "someone", "something", "thing", "things", "whether",
	"an", "am", "im", "ive", "id", "he", "she", "his", "her", "their", "these", "those", "here", "now")

// irregular maps words to the stem their regular form gets.
var irregular = map[string]string{
	"people": "person", "sent": "send", "made": "make", "wrote": "write", "written": "write",
	"e-mail": "email", "emails": "email", "mails": "mail", "todos": "todo",
}

// phrases are word pairs searched as one term, in queries and documents alike.
var phrases = map[string]string{
	"pull request": "pullrequest", "pull requests": "pullrequest", "merge request": "pullrequest",
	"merge requests": "pullrequest", "money back": "refund", "to do": "todo", "sign up": "signup",
	"on call": "oncal", "on-call": "oncal", "dm": "dm", "direct message": "dm", "direct messages": "dm",
	"free busy": "freebusi", "time off": "timeoff", "web hook": "webhook", "log in": "login",
}

// synonymGroups are words people use for the same thing; a query word is
// expanded with the rest of its groups at a lower weight.
var synonymGroups = [][]string{
	{"create", "add", "new", "make", "open", "file", "submit", "start", "insert", "raise", "log"},
	{"list", "show", "browse", "view", "see", "enumerate", "all"},
	{"get", "fetch", "retrieve", "read", "detail", "info", "look", "pull", "check"},
	{"update", "edit", "change", "modify", "rename", "set", "patch", "adjust", "tweak"},
	{"delete", "remove", "erase", "destroy", "drop", "trash", "discard", "purge", "wipe"},
	{"search", "find", "query", "locate", "lookup", "look", "filter"},
	{"send", "post", "notify", "tell", "ping", "write", "message", "dm", "shoot"},
	{"cancel", "abort", "void", "revoke", "stop"},
	{"archive", "close", "shelve"},
	{"upload", "put", "store"},
	{"download", "export"},
	{"invite", "onboard"},
	{"assign", "delegate", "allocate", "reassign"},
	{"comment", "reply", "respond", "note", "remark", "annotate", "answer"},
	{"schedule", "book", "plan", "arrange"},
	{"share", "permission", "grant", "access"},
	{"refund", "reimburse", "chargeback", "return"},
	{"charge", "payment", "pay", "bill"},
	{"issue", "bug", "ticket", "defect", "problem"},
	{"repository", "repo", "codebase"},
	{"pullrequest", "pr", "mr"},
	{"email", "mail", "inbox", "gmail"},
	{"meeting", "call", "appointment", "event", "invite"},
	{"document", "doc", "file", "page"},
	{"spreadsheet", "sheet", "excel", "workbook"},
	{"row", "record", "entry", "line"},
	{"customer", "client", "buyer", "shopper"},
	{"contact", "person", "lead", "prospect"},
	{"user", "member", "person", "teammate", "colleague", "employee", "staff", "account"},
	{"deal", "opportunity"},
	{"invoice", "bill", "receipt"},
	{"channel", "room"},
	{"folder", "directory", "dir"},
	{"task", "todo", "item", "card", "chore"},
	{"company", "organization", "organisation", "org", "business"},
	{"message", "msg", "text", "sms", "chat", "conversation"},
	{"calendar", "agenda"},
	{"release", "version"},
	{"label", "tag"},
	{"subscription", "plan", "recurring", "membership"},
	{"product", "item", "sku", "merchandise"},
	{"order", "purchase"},
	{"incident", "outage", "alert"},
	{"workflow", "pipeline", "build", "ci", "action"},
	{"merge", "land"},
	{"transition", "move", "status"},
	{"link", "url"},
	{"group", "team"},
	{"password", "credential"},
}

var synonymIndex = func() map[string][]string {
	groups := map[string]map[string]bool{}
	for _, g := range synonymGroups {
		var stems []string
		for _, w := range g {
			stems = append(stems, terms(w)...)
		}
		for _, s := range stems {
			if groups[s] == nil {
				groups[s] = map[string]bool{}
			}
			for _, o := range stems {
				if o != s {
					groups[s][o] = true
				}
			}
		}
	}
	out := make(map[string][]string, len(groups))
	for s, set := range groups {
		for o := range set {
			out[s] = append(out[s], o)
		}
		sort.Strings(out[s])
	}
	return out
}()

func setOf(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}

// toolDocument is what the tool index searches for one tool.
func toolDocument(t *Tool) []field {
	return []field{
		{strings.ReplaceAll(strings.TrimPrefix(t.ID, t.connector.ID+"_"), "_", " "), weightID},
		{t.Name, weightName},
		{strings.Join(t.Keywords, " "), weightKeywords},
		{t.connector.Name + " " + strings.ReplaceAll(t.connector.ID, "_", " "), weightConnector},
		{t.connector.Category, weightCategory},
		{t.Description, weightDescription},
	}
}

// connectorDocument is what the connector index searches for one connector.
func connectorDocument(c *Connector) []field {
	return []field{
		{strings.ReplaceAll(c.ID, "_", " "), weightID},
		{c.Name, weightName},
		{c.Category, weightCategory},
		{c.Description, weightDescription},
	}
}
