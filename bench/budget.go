package main

import (
	"fmt"
	"strconv"
)

// Budget is one figure the bench holds Switchboard to (docs/performance.md
// says where each comes from). Max budgets pass when Value ≤ Limit, min
// budgets when Value ≥ Limit.
type Budget struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	Limit float64 `json:"limit"`
	Max   bool    `json:"max"`
	Unit  string  `json:"unit"`
	Met   bool    `json:"met"`
}

func (b Budget) String() string {
	op, verdict := "≥", "ok"
	if b.Max {
		op = "≤"
	}
	if !b.Met {
		verdict = "MISSED"
	}
	return fmt.Sprintf("%-58s %9.3f%s  (budget %s %g%s)  %s", b.Name, b.Value, b.Unit, op, b.Limit, b.Unit, verdict)
}

func atMost(name string, v, limit float64, unit string) Budget {
	return Budget{Name: name, Value: v, Limit: limit, Max: true, Unit: unit, Met: v <= limit}
}

func atLeast(name string, v, limit float64, unit string) Budget {
	return Budget{Name: name, Value: v, Limit: limit, Unit: unit, Met: v >= limit}
}

func find(rs []Result, name string, c int) (Result, bool) {
	for _, r := range rs {
		if r.Path == name && r.Concurrency == c {
			return r, true
		}
	}
	return Result{}, false
}

// budgetsOf checks the main run's figures; a budget whose paths were not
// measured (-only) is left out.
func budgetsOf(rs []Result, levels []int, ingress *Ingress) []Budget {
	var out []Budget
	if d, ok := find(rs, pathDirect, 1); ok {
		if e, ok := find(rs, pathExecute, 1); ok {
			out = append(out, atMost("execute overhead over direct, p50 at c=1", e.P50ms-d.P50ms, 1, " ms"))
		}
	}
	if b, ok := find(rs, pathBare, 1); ok {
		if p, ok := find(rs, pathProxy, 1); ok && b.P50ms > 0 {
			out = append(out, atMost("proxy / bare reverse proxy, p50 at c=1", p.P50ms/b.P50ms, 1.5, "x"))
		}
	}
	if t, ok := find(rs, pathToolsList, 1); ok {
		out = append(out, atMost("MCP tools/list of 1000 tools, p50 at c=1", t.P50ms, 5, " ms"))
	}
	if s, ok := find(rs, pathSearch, 1); ok {
		out = append(out, atMost("search_actions over the whole catalog, p99 at c=1", s.P99ms, 5, " ms"))
	}
	for _, c := range levels {
		e, ok := find(rs, pathExecute, c)
		if !ok || e.RPS == 0 {
			continue
		}
		for _, p := range []string{pathSessionMCP, pathEndpointMCP} {
			if m, ok := find(rs, p, c); ok {
				out = append(out, atLeast(p+" / execute, req/s at c="+strconv.Itoa(c), m.RPS/e.RPS, 0.8, "x"))
			}
		}
	}
	if ingress != nil && ingress.Events > 0 {
		out = append(out, atLeast("trigger ingress to delivered webhook, events/s", ingress.EventsPerSecond, 1000, ""))
		out = append(out, atMost("trigger ingress events lost or refused", float64(ingress.Lost+ingress.Failed), 0, ""))
	}
	return out
}
