package catalog

import (
	"slices"
	"strings"
)

// splitSteps cuts a request written as one sentence into its steps at
// "and then", "then", "after that" or a plain "and", where the words after
// the cut start with a verb and the words before hold one.
func splitSteps(text string) []string {
	ws := strings.Fields(text)
	clean := make([]string, len(ws))
	for i, w := range ws {
		clean[i] = strings.ToLower(strings.Trim(w, ",.;:!?\"'()"))
	}
	part := func(from, to int) string {
		return strings.TrimRight(strings.Join(ws[from:to], " "), ",;:")
	}
	var steps []string
	start := 0
	for i := 0; i < len(ws); i++ {
		for _, sep := range stepSeparators {
			if i+len(sep) > len(ws) || !slices.Equal(clean[i:i+len(sep)], sep) {
				continue
			}
			after := i + len(sep)
			if after >= len(ws) || !startsWithVerb(clean[after:]) || !holdsVerb(clean[start:i]) {
				continue
			}
			steps = append(steps, part(start, i))
			start = after
			i = after - 1
			break
		}
	}
	if len(steps) == 0 {
		return []string{text}
	}
	steps = append(steps, part(start, len(ws)))
	return steps
}

func startsWithVerb(ws []string) bool {
	for _, w := range ws {
		if leadWords[w] {
			continue
		}
		_, ok := queryVerbs[w]
		return ok && w != "new"
	}
	return false
}

func holdsVerb(ws []string) bool {
	for _, w := range ws {
		if _, ok := queryVerbs[w]; ok {
			return true
		}
	}
	return false
}
