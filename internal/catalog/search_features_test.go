package catalog

import (
	"slices"
	"strings"
	"sync"
	"testing"

	builtin "github.com/switchboard-gw/switchboard/catalog"
)

func loadBuiltin(t *testing.T) *Catalog {
	t.Helper()
	cat, err := Load(builtin.FS)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

// Names, abbreviations and misspellings of an application bring its tools
// first; a verbless plural lists.
func TestSearch_ConnectorAliasesAndTypos(t *testing.T) {
	t.Parallel()
	cat := loadBuiltin(t)
	for query, want := range map[string]string{
		"gh open prs":                    "github_list_pull_requests",
		"strpie customers":               "stripe_list_customers",
		"drive upload":                   "google_drive_upload_file",
		"gcal tomorrow":                  "google_calendar_list_events",
		"lst slack chanels":              "slack_list_channels",
		"pagrduty incidnet ack":          "pagerduty_acknowledge_incident",
		"sheets append":                  "google_sheets_append_values",
		"o365 contacts":                  "outlook_list_contacts",
		"creat a jira tiket":             "jira_create_issue",
		"page the on call team":          "pagerduty_create_incident",
		"get rid of the old trello card": "trello_delete_card",
	} {
		hits := cat.SearchTools(query, nil)
		if len(hits) == 0 || hits[0].Tool.ID != want {
			t.Errorf("%q: top %s, want %s", query, topIDs(hits, 3), want)
		}
	}
	// "monday" after "on" is a day, not the application.
	if p := cat.plan("delete the standup event on monday"); slices.Contains(p.common, "monday") || slices.Contains(p.named, "monday") {
		t.Errorf("monday read as the application: %v %v", p.named, p.common)
	}
	if p := cat.plan("monday boards"); !slices.Contains(p.common, "monday") {
		t.Errorf("monday boards: %v", p.common)
	}
}

func TestEditDistance(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want int
	}{
		{"lsit", "list", 1}, {"gmial", "gmail", 1}, {"slak", "slack", 1}, {"calender", "calendar", 1},
		{"salesfroce", "salesforce", 1}, {"abc", "abc", 0}, {"kitten", "sitting", 3},
	} {
		if got := editDistance(c.a, c.b, 5); got != c.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", c.a, c.b, got, c.want)
		}
	}
	if got := editDistance("kitten", "sitting", 1); got != 2 {
		t.Errorf("bounded distance: %d, want max+1 = 2", got)
	}
}

// A request of several steps is cut where the words after the cut start
// with a verb and those before hold one.
func TestSplitSteps(t *testing.T) {
	t.Parallel()
	for text, want := range map[string][]string{
		"look up the customer by email in stripe and then refund their last charge": {
			"look up the customer by email in stripe", "refund their last charge"},
		"find the trello card and move it to done":                  {"find the trello card", "move it to done"},
		"find jane's email in hubspot, then send her an email":      {"find jane's email in hubspot", "send her an email"},
		"create a product and price in stripe":                      {"create a product and price in stripe"},
		"search hubspot contacts by email":                          {"search hubspot contacts by email"},
		"list open PRs and then post them in the dev slack channel": {"list open PRs", "post them in the dev slack channel"},
	} {
		if got := splitSteps(text); !slices.Equal(got, want) {
			t.Errorf("splitSteps(%q) = %q, want %q", text, got, want)
		}
	}
	cat := loadBuiltin(t)
	ans := cat.SearchSteps("find the customer in stripe and then cancel their subscription", nil)
	if len(ans.Steps) != 2 || ans.Steps[0].Hits[0].Tool.ID != "stripe_search_customers" ||
		ans.Steps[1].Hits[0].Tool.ID != "stripe_cancel_subscription" {
		t.Fatalf("steps: %+v", ans.Steps)
	}
	if ans.Hits[0].Tool.ID != "stripe_search_customers" || ans.Hits[1].Tool.ID != "stripe_cancel_subscription" {
		t.Errorf("the answer interleaves the steps: %s", topIDs(ans.Hits, 4))
	}
	// A later step that names no application leans to the earlier one's.
	ans = cat.SearchSteps("find the trello card and move it to done", nil)
	if len(ans.Steps) != 2 || ans.Steps[1].Hits[0].Tool.Connector().ID != "trello" {
		t.Errorf("carried application: %s", topIDs(ans.Steps[len(ans.Steps)-1].Hits, 3))
	}
}

// A request no tool can do scores under the threshold; one a tool does
// well scores over it.
func TestSearch_RelevanceThreshold(t *testing.T) {
	t.Parallel()
	cat := loadBuiltin(t)
	for _, q := range []string{"order a pizza to the office", "play some jazz on spotify", "turn off the living room lights", "check the server cpu usage in grafana"} {
		if hits := cat.SearchTools(q, nil); len(hits) > 0 && hits[0].Relevance >= MatchThreshold {
			t.Errorf("%q: %s scores %.2f, want under %.2f", q, hits[0].Tool.ID, hits[0].Relevance, MatchThreshold)
		}
	}
	for _, q := range []string{"create a jira ticket for the payment timeout", "refund the last stripe charge", "list my google calendar events",
		"check the server cpu usage in datadog"} {
		hits := cat.SearchTools(q, nil)
		if len(hits) == 0 || hits[0].Relevance < MatchThreshold || hits[0].Relevance > 1 {
			t.Errorf("%q: top %s, want a relevance in [%.2f, 1]", q, topIDs(hits, 1), MatchThreshold)
		}
	}
}

// A synonym holds only where its group's scope says: "card" is a task in
// Trello, not in other task trackers.
func TestSearch_ScopedSynonyms(t *testing.T) {
	t.Parallel()
	cat := loadBuiltin(t)
	var card synonym
	for _, s := range synonymsOf("task") {
		if s.term == "card" {
			card = s
		}
	}
	trello, _ := cat.Connector("trello")
	asana, _ := cat.Connector("asana")
	if card.term == "" || !card.inScope(trello) || card.inScope(asana) {
		t.Fatalf("task -> card: %+v", card)
	}
	for _, s := range synonymsOf("task") {
		if s.term == "todo" && len(s.scope) != 0 {
			t.Errorf("todo should hold everywhere: %+v", s)
		}
	}
}

// A connector search finds an application by its abbreviation or a
// misspelt name too.
func TestSearchConnectors_Aliases(t *testing.T) {
	t.Parallel()
	cat := loadBuiltin(t)
	for query, want := range map[string]string{
		"gh": "github", "gcal": "google_calendar", "sfdc": "salesforce", "salesfroce": "salesforce", "o365": "outlook",
	} {
		if got := cat.SearchConnectors(query, nil); len(got) == 0 || got[0].ID != want {
			t.Errorf("%q: %v, want %s first", query, got, want)
		}
	}
	if got := cat.SearchConnectors("gh", func(c *Connector) bool { return c.ID != "github" }); len(got) > 0 && got[0].ID == "github" {
		t.Error("keep is ignored for a named connector")
	}
}

// Odd requests answer without panicking, and the same every time.
func TestSearch_OddRequests(t *testing.T) {
	t.Parallel()
	cat := loadBuiltin(t)
	for _, q := range []string{
		"", " ", "and then", "then then then and and", "create and then", "a-1 #x @y 'q' \"z\" https://x.io/a?b=c",
		"créer une tâche dans asana", "日本語のメッセージを送る", strings.Repeat("x", 200), strings.Repeat("slack ", 40),
		"PROJ-1 PROJ-2 and then PROJ-3", "monday", "3pm", "gh", "zzidentifier",
	} {
		first := cat.SearchSteps(q, nil)
		for _, h := range first.Hits {
			if h.Relevance < 0 || h.Relevance > 1 {
				t.Errorf("%q: %s relevance %v", q, h.Tool.ID, h.Relevance)
			}
		}
		if again := cat.SearchSteps(q, nil); !sameAnswer(first, again) {
			t.Errorf("%q answered differently", q)
		}
	}
}

// The index is read concurrently: searches from many goroutines share it.
func TestSearch_Concurrent(t *testing.T) {
	t.Parallel()
	cat := loadBuiltin(t)
	queries := []string{"gh open prs", "find the customer in stripe and then cancel their subscription", "strpie customers", "order a pizza"}
	want := make([]StepAnswer, len(queries))
	for i, q := range queries {
		want[i] = cat.SearchSteps(q, nil)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				k := (g + i) % len(queries)
				if got := cat.SearchSteps(queries[k], nil); !sameAnswer(got, want[k]) {
					t.Errorf("%q answered differently under concurrency", queries[k])
				}
			}
		}()
	}
	wg.Wait()
}
