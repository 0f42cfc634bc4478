package trigger

import (
	"encoding/json"
	"maps"
	"net/url"
	"strings"
	"testing"
	"time"

	builtin "github.com/switchboard-gw/switchboard/catalog"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/execute"
)

// sampleConfig fills every config property of a trigger with a value its
// schema accepts, trying a few shapes of ids.
func sampleConfig(t *testing.T, def *catalog.Trigger) map[string]any {
	t.Helper()
	var doc struct {
		Properties map[string]struct {
			Type string `json:"type"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(def.ConfigSchema, &doc)
	var names []string
	numbers := map[string]any{}
	for name, p := range doc.Properties {
		if p.Type == "integer" {
			numbers[name] = float64(15) // as JSON decodes it
			continue
		}
		names = append(names, name)
	}
	candidates := []string{"Sample_01", "0123456789abcdef0123456789abcdef", "/Sample folder", "123456789012345678", "appABCDEFGH123456"}
	combos := 1
	for range names {
		combos *= len(candidates)
	}
	for n := range combos {
		cfg := maps.Clone(numbers)
		for i, name := range names {
			cfg[name] = candidates[n/pow(len(candidates), i)%len(candidates)]
		}
		if def.ValidateConfig(cfg) == nil {
			return cfg
		}
	}
	t.Fatalf("%s: no sample config validates", def.ID)
	return nil
}

func pow(b, e int) int {
	n := 1
	for range e {
		n *= b
	}
	return n
}

// TestPollRequests_BuiltInDefinitionsMakeRequestsTheProxyAccepts builds
// every built-in poll trigger's requests with a sample config and cursor:
// every placeholder is filled and the path stays under the API base.
func TestPollRequests_BuiltInDefinitionsMakeRequestsTheProxyAccepts(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Load(builtin.FS)
	if err != nil {
		t.Fatal(err)
	}
	base, _ := url.Parse("https://api.example.com/v1")
	polled := 0
	for _, con := range cat.Connectors() {
		for _, def := range con.Triggers {
			if !def.Polled() {
				continue
			}
			polled++
			vars := pollVars{}
			cfg := sampleConfig(t, def)
			for k, v := range cfg {
				vars[k] = configText(v)
			}
			at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
			c, _ := parseCursor(initialCursor(def, at))
			vars.setCursor(def.Poll.Cursor, c, cfg, at)
			if def.Poll.Cursor.Type == catalog.CursorToken {
				vars["cursor"] = "token-1"
				s := def.Poll.Cursor.Start
				if _, err := execute.ProxyURL(base, pollTarget(s.Path, s.Query, vars)); err != nil {
					t.Errorf("%s: start call: %v", def.ID, err)
				}
			}
			target := pollTarget(def.Poll.Path, def.Poll.Query, vars)
			body, _ := json.Marshal(pollBody(def.Poll.Body, vars))
			if strings.ContainsAny(target, "{}") || strings.Contains(string(body), "{cursor}") {
				t.Errorf("%s: a placeholder is left: %s %s", def.ID, target, body)
			}
			u, err := execute.ProxyURL(base, target)
			if err != nil {
				t.Errorf("%s: %s: %v", def.ID, target, err)
				continue
			}
			t.Logf("%s: %s %s %s", def.ID, def.Poll.Method, u, body)
		}
	}
	if polled < 9 {
		t.Fatalf("only %d built-in poll triggers", polled)
	}
}

func TestPollTarget_EscapesPathAndDropsEmptyParameters(t *testing.T) {
	t.Parallel()
	got := pollTarget("/sheets/{id}/values/{range}", map[string]string{"q": "{query} after:{cursor}", "label": "{label}", "$top": "50"},
		pollVars{"id": "a/b", "range": "Leads!A:F", "cursor": "17", "query": "from:ann"})
	want := "/sheets/a%2Fb/values/Leads%21A:F?$top=50&q=from:ann%20after:17"
	if got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}
