package httpapi

import (
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// search_actions gives every action a score, says when nothing matches
// well (pointing at the proxy only when the session has it), and ranks a
// request of two steps step by step, in order.
func TestSession_SearchActions_ScoresStepsAndWeakMatches(t *testing.T) {
	t.Parallel()
	f := setup(t)
	search := func(policy, queries string) []any {
		t.Helper()
		status, m, raw := f.json("POST", "/v1/sessions", `{"userId":"u1","connectors":["alpha","delta"],"policy":`+policy+`}`)
		if status != 201 {
			t.Fatalf("create: %d %s", status, raw)
		}
		id := dataOf(m)["id"].(string)
		st, res, raw := f.json("POST", "/v1/sessions/"+id+"/tools/switchboard_search_actions", `{"arguments":{"queries":`+queries+`}}`)
		if st != 200 || res["ok"] != true {
			t.Fatalf("search: %d %s", st, raw)
		}
		return res["result"].(map[string]any)["results"].([]any)
	}
	firstID := func(actions any) string {
		as := actions.([]any)
		if len(as) == 0 {
			return ""
		}
		return as[0].(map[string]any)["id"].(string)
	}

	results := search(`{"allowProxy":true}`, `["look up a task and then post a message in the chat channel","book a flight to berlin"]`)
	steps := results[0].(map[string]any)
	if steps["match"] != "good" || steps["note"] != nil {
		t.Fatalf("two steps: %v", steps)
	}
	st := steps["steps"].([]any)
	if len(st) != 2 || firstID(st[0].(map[string]any)["actions"]) != "delta_get_task" ||
		firstID(st[1].(map[string]any)["actions"]) != "alpha_send_message" ||
		st[0].(map[string]any)["query"] != "look up a task" {
		t.Fatalf("steps: %v", st)
	}
	merged := steps["actions"].([]any)
	if merged[0].(map[string]any)["id"] != "delta_get_task" || merged[1].(map[string]any)["id"] != "alpha_send_message" {
		t.Fatalf("actions interleave the steps: %v", merged)
	}
	for _, a := range merged {
		if s, ok := a.(map[string]any)["score"].(float64); !ok || s < 0 || s > 1 {
			t.Fatalf("score: %v", a)
		}
	}
	if merged[0].(map[string]any)["score"].(float64) < catalog.MatchThreshold {
		t.Fatalf("a good match scores at least the threshold: %v", merged[0])
	}

	flight := results[1].(map[string]any)
	if flight["match"] == "good" || !strings.Contains(flight["note"].(string), "switchboard_proxy") {
		t.Fatalf("no tool books flights: %v", flight)
	}
	if _, ok := flight["steps"]; ok {
		t.Fatalf("one step has no steps: %v", flight)
	}
	noProxy := search(`{"allowProxy":false}`, `["book a flight to berlin"]`)[0].(map[string]any)
	if noProxy["match"] == "good" || noProxy["note"] == nil || strings.Contains(noProxy["note"].(string), "switchboard_proxy") {
		t.Fatalf("without the proxy: %v", noProxy)
	}
}

// GET /v1/tools?query= adds each tool's score; a list without a query has none.
func TestToolList_QueryAddsScores(t *testing.T) {
	t.Parallel()
	f := setup(t)
	bearer := "Bearer " + f.key
	b := decodeList(t, f.do(f.h, "GET", "/v1/tools?query=send+a+chat+message", bearer, ""))
	if len(b.Data) == 0 || b.Data[0]["id"] != "alpha_send_message" {
		t.Fatalf("ranking: %s", ids(b))
	}
	for _, it := range b.Data {
		if s, ok := it["score"].(float64); !ok || s < 0 || s > 1 {
			t.Fatalf("score: %v", it)
		}
	}
	if b.Data[0]["score"].(float64) < catalog.MatchThreshold {
		t.Fatalf("best tool scores under the threshold: %v", b.Data[0])
	}
	for _, it := range decodeList(t, f.do(f.h, "GET", "/v1/tools", bearer, "")).Data {
		if _, ok := it["score"]; ok {
			t.Fatalf("score without a query: %v", it)
		}
	}
}
