package catalog

import "slices"

// speller corrects misspelt words against the words of the index and the
// connectors' one-word aliases. It keeps every form of each word with one
// letter left out (two for words of eight letters or more), so a lookup
// reads a few map entries instead of scanning the vocabulary.
type speller struct {
	words []string
	rank  []int // how strongly a word is preferred among equally close ones
	dels  map[string][]int32
}

func newSpeller(idx *Index, aliases *aliasTable) *speller {
	sp := &speller{dels: map[string][]int32{}}
	add := func(w string, rank int) {
		id := int32(len(sp.words))
		sp.words = append(sp.words, w)
		sp.rank = append(sp.rank, rank)
		for _, d := range deletes(w, maxEdits(len(w))) {
			sp.dels[d] = append(sp.dels[d], id)
		}
	}
	vocab := make([]string, 0, len(idx.vocab))
	for w := range idx.vocab {
		vocab = append(vocab, w)
	}
	slices.Sort(vocab)
	for _, w := range vocab {
		if _, alias := aliases.phrases[w]; !alias {
			add(w, len(idx.postings[idx.vocab[w]]))
		}
	}
	// A connector's name outranks any word of the same distance.
	for _, w := range aliases.single {
		add(w, 1<<30)
	}
	return sp
}

// maxEdits is how many edits a word of n letters may be corrected by.
func maxEdits(n int) int {
	if n >= 8 {
		return 2
	}
	return 1
}

// deletes returns w and every form of it with up to n letters left out.
func deletes(w string, n int) []string {
	out := []string{w}
	seen := map[string]bool{w: true}
	frontier := []string{w}
	for range n {
		var next []string
		for _, f := range frontier {
			for i := range len(f) {
				d := f[:i] + f[i+1:]
				if !seen[d] {
					seen[d] = true
					out = append(out, d)
					next = append(next, d)
				}
			}
		}
		frontier = next
	}
	return out
}

// correct returns the word of the index or the connector name a
// misspelt word stands for: the closest by edit distance (one edit up to
// seven letters, two beyond), ties going to the same first letter, then
// to the more frequent term.
func (c *Catalog) correct(w string) (string, bool) {
	if len(w) < 4 || len(w) > 30 || !isLetters(w) || stopWords[w] || foreignApps[w] {
		return "", false
	}
	if _, ok := c.toolIndex.vocab[w]; ok {
		return "", false
	}
	if _, ok := c.aliases.phrases[w]; ok {
		return "", false
	}
	if _, ok := queryVerbs[w]; ok {
		return "", false
	}
	// A word whose stem the index holds ("messages") is no typo, unless a
	// far more frequent word is one edit away ("calender": calendar, not
	// the stem of calendly).
	known := 0
	if ts := terms(w); len(ts) == 1 {
		known = len(c.toolIndex.postings[ts[0]])
	}
	sp := c.speller
	maxD := maxEdits(len(w))
	best, bestD, bestRank := -1, maxD+1, -1
	seen := map[int32]bool{}
	for _, d := range deletes(w, maxD) {
		for _, id := range sp.dels[d] {
			if seen[id] {
				continue
			}
			seen[id] = true
			cand := sp.words[id]
			dist := editDistance(w, cand, maxD)
			if dist > maxD || (len(w) <= 4 && sp.rank[id] != 1<<30 && !isSwap(w, cand)) {
				// A word of four letters is corrected to another word
				// only for swapped letters ("lsit"): one other edit
				// makes too many real words ("main", "mail").
				continue
			}
			better := dist < bestD
			if dist == bestD {
				sameNew, sameOld := cand[0] == w[0], sp.words[best][0] == w[0]
				switch {
				case sameNew != sameOld:
					better = sameNew
				case sp.rank[id] != bestRank:
					better = sp.rank[id] > bestRank
				default:
					better = cand < sp.words[best]
				}
			}
			if better {
				best, bestD, bestRank = int(id), dist, sp.rank[id]
			}
		}
	}
	if best < 0 || (known > 0 && (bestD > 1 || bestRank <= known || sp.rank[best] == 1<<30)) {
		return "", false
	}
	return sp.words[best], true
}

// isSwap reports whether b is a with two neighbouring letters swapped.
func isSwap(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i+1 < len(a); i++ {
		if a[i] != b[i] {
			return a[i] == b[i+1] && a[i+1] == b[i] && a[i+2:] == b[i+2:]
		}
	}
	return false
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// editDistance is the optimal string alignment distance (insertions,
// deletions, substitutions and swaps of neighbours), or max+1 once it
// exceeds max. Words are at most 32 bytes.
func editDistance(a, b string, max int) int {
	if abs(len(a)-len(b)) > max || len(a) > 32 || len(b) > 32 {
		return max + 1
	}
	var rows [3][33]int
	prev2, prev, cur := &rows[0], &rows[1], &rows[2]
	for j := 0; j <= len(b); j++ {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		rowMin := cur[0]
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			v := min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				v = min(v, prev2[j-2]+1)
			}
			cur[j] = v
			rowMin = min(rowMin, v)
		}
		if rowMin > max {
			return max + 1
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
