package catalog

import (
	"math"
	"slices"
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
	weightSynonym = 0.3
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
	// vocab maps every word of the documents to its term: the words typo
	// correction may correct to.
	vocab   map[string]string
	maxIDF  float64
	numDocs float64
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

// qterm is one weighted term of a query. A synonym may be scoped: it then
// scores only the documents scope accepts.
type qterm struct {
	term  string
	w     float64
	scope func(doc int) bool
}

func newIndex(docs [][]field) *Index {
	idx := &Index{postings: map[string][]posting{}, docLen: make([]float64, len(docs)), vocab: map[string]string{}}
	total := 0.0
	for d, fields := range docs {
		tf := map[string]float64{}
		for _, f := range fields {
			for _, term := range terms(f.text) {
				tf[term] += f.weight
				idx.docLen[d] += f.weight
			}
			for _, w := range words(f.text) {
				if _, ok := idx.vocab[w]; !ok && !stopWords[w] && isLetters(w) {
					if ts := terms(w); len(ts) == 1 {
						idx.vocab[w] = ts[0]
					}
				}
			}
		}
		total += idx.docLen[d]
		for term, w := range tf {
			idx.postings[term] = append(idx.postings[term], posting{doc: d, tf: w})
		}
	}
	idx.numDocs = float64(len(docs))
	if len(docs) > 0 {
		idx.avgLen = total / float64(len(docs))
	}
	idx.maxIDF = idx.idfOf(1)
	return idx
}

// idfOf is the inverse document frequency of a term found in df documents.
func (idx *Index) idfOf(df int) float64 {
	return math.Log(1 + (idx.numDocs-float64(df)+0.5)/(float64(df)+0.5))
}

// idf is the inverse document frequency of term; 0 for an unknown term.
func (idx *Index) idf(term string) float64 {
	ps := idx.postings[term]
	if len(ps) == 0 {
		return 0
	}
	return idx.idfOf(len(ps))
}

// Search returns the documents that match query, best first, keeping only
// those accepted by keep (nil keeps all).
func (idx *Index) Search(query string, keep func(doc int) bool) []Hit {
	scores := make([]float64, len(idx.docLen))
	idx.score(expand(terms(query)), scores)
	return rankScores(scores, keep)
}

// expand returns a query's terms, then their synonyms that hold
// everywhere (not synonyms of synonyms), each once and in a fixed order,
// so that the same query sums the same floating-point scores in the same
// order and ranks the same every time.
func expand(words []string) []qterm {
	var out []qterm
	seen := map[string]bool{}
	for _, term := range words {
		if !seen[term] {
			seen[term] = true
			out = append(out, qterm{term: term, w: 1})
		}
	}
	for _, term := range words {
		for _, syn := range synonymsOf(term) {
			if !seen[syn.term] && len(syn.scope) == 0 {
				seen[syn.term] = true
				out = append(out, qterm{term: syn.term, w: weightSynonym})
			}
		}
	}
	return out
}

// score adds each document's BM25 score for the query terms to scores.
func (idx *Index) score(qterms []qterm, scores []float64) {
	for _, q := range qterms {
		ps := idx.postings[q.term]
		if len(ps) == 0 {
			continue
		}
		idf := idx.idfOf(len(ps))
		for _, p := range ps {
			if q.scope != nil && !q.scope(p.doc) {
				continue
			}
			norm := p.tf + bm25K1*(1-bm25B+bm25B*idx.docLen[p.doc]/idx.avgLen)
			scores[p.doc] += q.w * idf * p.tf * (bm25K1 + 1) / norm
		}
	}
}

// rankScores orders the documents with a positive score, best first, ties
// by position.
func rankScores(scores []float64, keep func(doc int) bool) []Hit {
	var hits []Hit
	for doc, s := range scores {
		if s > 0 && (keep == nil || keep(doc)) {
			hits = append(hits, Hit{Doc: doc, Score: s})
		}
	}
	sortHits(hits)
	return hits
}

func sortHits(hits []Hit) {
	slices.SortFunc(hits, func(a, b Hit) int {
		switch {
		case a.Score > b.Score:
			return -1
		case a.Score < b.Score:
			return 1
		}
		return a.Doc - b.Doc
	})
}

// words splits text into lowercase words of letters and digits.
func words(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

func isLetters(w string) bool {
	for _, r := range w {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return w != ""
}

// terms splits text into stemmed search terms: lowercase words, stop words
// dropped, known phrases folded into one term ("pull request" -> pullrequest).
func terms(text string) []string {
	return termsOf(words(text))
}

// termsOf is terms for text already split into lowercase words.
func termsOf(words []string) []string {
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

var stopWords = setOf("a", "an", "the", "to", "for", "of", "in", "on", "my", "me", "our", "i", "we",
	"you", "please", "can", "could", "would", "with", "and", "or", "from", "by", "at", "is", "are", "be",
	"this", "that", "it", "its", "some", "about", "into", "what", "which", "who", "how", "do", "does",
	"want", "need", "let", "us", "your", "there", "them", "they", "so", "just", "any", "up", "out", "hey",
	"should", "will", "was", "were", "has", "have", "had", "been", "as", "if", "than", "then", "also", "too",
	"one", "s", "t", "via", "using", "use", "within", "someone", "something", "thing", "things", "whether",
	"an", "am", "im", "ive", "id", "he", "she", "his", "her", "their", "these", "those", "here", "now",
	placeholder)

// irregular maps words to the stem their regular form gets.
var irregular = map[string]string{
	"people": "person", "said": "say", "says": "say", "sent": "send", "made": "make", "wrote": "write",
	"written": "write", "e-mail": "email", "emails": "email", "mails": "mail", "todos": "todo",
}

// phrases are word pairs searched as one term, in queries and documents alike.
var phrases = map[string]string{
	"pull request": "pullrequest", "pull requests": "pullrequest", "merge request": "pullrequest",
	"merge requests": "pullrequest", "money back": "refund", "to do": "todo", "sign up": "signup",
	"on call": "oncal", "on-call": "oncal", "dm": "dm", "direct message": "dm", "direct messages": "dm",
	"free busy": "freebusi", "time off": "timeoff", "web hook": "webhook", "log in": "login",
}

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
