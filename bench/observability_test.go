package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func passes(p50 ...float64) []Pass {
	out := make([]Pass, len(p50))
	for i, v := range p50 {
		out[i] = Pass{P50ms: v}
	}
	return out
}

// The overheads are per pass against the baseline measured in the same
// pass, and the difference is the median of the per-pass differences.
func TestObservabilityRows_PerPassOverheadsAndDifference(t *testing.T) {
	rs := []Result{
		{Path: pathDirect, Concurrency: 1, Passes: passes(0.20, 0.30, 0.25)},
		{Path: stackObserved + ": " + pathExecute, Concurrency: 1, Passes: passes(0.45, 0.60, 0.52)},
		{Path: stackBare + ": " + pathExecute, Concurrency: 1, Passes: passes(0.44, 0.52, 0.50)},
		{Path: pathBare, Concurrency: 1, Passes: passes(0.30, 0.30, 0.30)},
		{Path: stackObserved + ": " + pathProxy, Concurrency: 1, Passes: passes(0.40, 0.41, 0.42)},
		{Path: stackBare + ": " + pathProxy, Concurrency: 1, Passes: passes(0.40, 0.40, 0.40)},
	}
	rows := observabilityRows(rs)
	if len(rows) != 2 {
		t.Fatalf("rows %+v", rows)
	}
	e, p := rows[0], rows[1]
	// execute on: 0.25, 0.30, 0.27 → 0.27; off: 0.24, 0.22, 0.25 → 0.24; on − off: 0.01, 0.08, 0.02 → 0.02.
	if e.Path != pathExecute || e.Baseline != pathDirect || !near(e.OnMs, 0.27) || !near(e.OffMs, 0.24) || !near(e.DeltaMs, 0.02) {
		t.Fatalf("execute %+v", e)
	}
	if p.Path != pathProxy || p.Baseline != pathBare || !near(p.OnMs, 0.11) || !near(p.OffMs, 0.10) || !near(p.DeltaMs, 0.01) {
		t.Fatalf("proxy %+v", p)
	}
	budgets := observabilityBudgets(&Observability{Rows: rows})
	if len(budgets) != 2 || !budgets[0].Met || !budgets[1].Met || budgets[0].Limit != 0.03 {
		t.Fatalf("budgets %+v", budgets)
	}
	rows[1].DeltaMs = 0.031
	budgets = observabilityBudgets(&Observability{Rows: rows})
	if budgets[1].Met || !strings.Contains(budgets[1].Name, "proxy overhead, log+metrics on − off") {
		t.Fatalf("0.031 ms met the budget: %+v", budgets[1])
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

// A comparison run writes a section of its own and leaves the database's
// main section alone.
func TestWriteMarkdown_ComparisonHasItsOwnSection(t *testing.T) {
	file := filepath.Join(t.TempDir(), "performance.md")
	doc := "# Performance\n\n<!-- bench:sqlite -->\nold sqlite\n<!-- /bench:sqlite -->\n"
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	o := &Observability{Requests: 200, Rows: []ObservabilityRow{{Path: pathExecute, Baseline: pathDirect, OnMs: 0.3, OffMs: 0.28, DeltaMs: 0.02}}}
	rep := Report{Database: "sqlite", Observability: o, Budgets: observabilityBudgets(o)}
	if err := writeMarkdown(file, rep); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(file)
	got := string(b)
	if !strings.Contains(got, "old sqlite") || !strings.Contains(got, "<!-- bench:sqlite-observability -->") ||
		!strings.Contains(got, "| execute | direct (fake provider) | 0.300 | 0.280 | +0.020 |") || !strings.Contains(got, "| met |") {
		t.Fatalf("markdown:\n%s", got)
	}
}
