package catalog

import (
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"go.yaml.in/yaml/v3"

	builtin "github.com/switchboard-gw/switchboard/catalog"
)

type evalCase struct {
	Query string   `yaml:"query"`
	Want  []string `yaml:"want"`
}

func loadEval(t *testing.T) []evalCase {
	t.Helper()
	files, err := filepath.Glob("testdata/search-eval/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var all []evalCase
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var cases []evalCase
		if err := yaml.Unmarshal(raw, &cases); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		all = append(all, cases...)
	}
	return all
}

// TestSearch_Evaluation measures how often the tool a person means ranks
// first (recall@1) and in the top five (recall@5) over natural-language
// requests, and fails below recall@5 = 0.85.
func TestSearch_Evaluation(t *testing.T) {
	t.Parallel()
	cat, err := Load(builtin.FS)
	if err != nil {
		t.Fatal(err)
	}
	cases := loadEval(t)
	if len(cases) < 150 {
		t.Fatalf("the evaluation has %d cases; it needs at least 150", len(cases))
	}
	at1, at5 := 0, 0
	for _, c := range cases {
		for _, id := range c.Want {
			if _, ok := cat.Tool(id); !ok {
				t.Errorf("evaluation case %q wants %s, which is not a tool", c.Query, id)
			}
		}
		hits := cat.SearchTools(c.Query, nil)
		var top []string
		for i := 0; i < len(hits) && i < 5; i++ {
			top = append(top, hits[i].Tool.ID)
		}
		if len(top) > 0 && slices.Contains(c.Want, top[0]) {
			at1++
		}
		found := slices.ContainsFunc(top, func(id string) bool { return slices.Contains(c.Want, id) })
		if found {
			at5++
		} else {
			t.Logf("miss: %q wants %v, got %v", c.Query, c.Want, top)
		}
	}
	r1 := float64(at1) / float64(len(cases))
	r5 := float64(at5) / float64(len(cases))
	t.Logf("search evaluation: %d cases, recall@1 = %.3f, recall@5 = %.3f", len(cases), r1, r5)
	if r5 < 0.85 {
		t.Fatalf("recall@5 = %.3f is below 0.85", r5)
	}
}

func TestSearch_StemmingSynonymsAndPhrases(t *testing.T) {
	t.Parallel()
	cat, err := Load(fs.FS(builtin.FS))
	if err != nil {
		t.Fatal(err)
	}
	for query, want := range map[string]string{
		"open a ticket in the repo": "github_create_issue",
		"GitHub issues list":        "github_list_repository_issues",
	} {
		hits := cat.SearchTools(query, nil)
		if len(hits) == 0 || hits[0].Tool.ID != want {
			t.Errorf("%q: top hit %v, want %s", query, hits, want)
		}
	}
	if hits := cat.SearchTools("zzzz qqqq", nil); len(hits) != 0 {
		t.Errorf("nonsense query matched %d tools", len(hits))
	}
	if got := terms("Pull Requests merged by the users"); !slices.Equal(got, []string{"pullrequest", "merg", "user"}) {
		t.Errorf("terms: %v", got)
	}
}

// The same query ranks the same tools in the same order on every ask: no
// map order may decide which synonyms join the query or how scores sum.
func TestSearch_SameOrderOnEveryAsk(t *testing.T) {
	t.Parallel()
	cat, err := Load(builtin.FS)
	if err != nil {
		t.Fatal(err)
	}
	differ := 0
	for _, c := range loadEval(t) {
		first := rankedIDs(cat.SearchTools(c.Query, nil))
		for range 30 {
			if again := rankedIDs(cat.SearchTools(c.Query, nil)); !slices.Equal(first, again) {
				differ++
				t.Errorf("%q: %v, then %v", c.Query, first, again)
				break
			}
		}
	}
	if differ > 0 {
		t.Errorf("%d queries ranked differently from one ask to the next", differ)
	}
}

func rankedIDs(hits []ToolHit) []string {
	out := make([]string, 0, len(hits))
	for _, h := range hits {
		out = append(out, h.Tool.ID)
	}
	return out
}
