package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMedianOf_OddEvenAndEmpty(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{9, 1, 5}, 5},
		{[]float64{4, 1, 3, 2}, 2.5},
	} {
		if got := medianOf(tc.in); got != tc.want {
			t.Errorf("medianOf(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestSummarize_MediansPerFigureAndAllFailures(t *testing.T) {
	r := summarize("execute", 32, 100, []Pass{
		{RPS: 100, P50ms: 3, P99ms: 9, Failed: 1},
		{RPS: 300, P50ms: 1, P99ms: 7},
		{RPS: 200, P50ms: 2, P99ms: 8, Failed: 2},
	})
	if r.RPS != 200 || r.P50ms != 2 || r.P99ms != 8 || r.Failed != 3 {
		t.Fatalf("summary %+v", r)
	}
}

func TestBudgetsOf_MissedBudgetsAreNamed(t *testing.T) {
	rs := []Result{
		{Path: pathDirect, Concurrency: 1, P50ms: 0.2},
		{Path: pathExecute, Concurrency: 1, P50ms: 1.5, RPS: 1000},
		{Path: pathExecute, Concurrency: 32, RPS: 4000},
		{Path: pathBare, Concurrency: 1, P50ms: 0.4},
		{Path: pathProxy, Concurrency: 1, P50ms: 0.5},
		{Path: pathSessionMCP, Concurrency: 1, RPS: 900},
		{Path: pathEndpointMCP, Concurrency: 32, RPS: 3000},
	}
	in := &Ingress{Events: 100, EventsPerSecond: 1500, Lost: 1}
	missed := map[string]bool{}
	for _, b := range budgetsOf(rs, []int{1, 32}, in) {
		if !b.Met {
			missed[b.Name] = true
		}
	}
	want := []string{
		"execute overhead over direct, p50 at c=1",
		"endpoint tools/call (MCP) / execute, req/s at c=32",
		"trigger ingress events lost or refused",
	}
	for _, w := range want {
		if !missed[w] {
			t.Errorf("%q was not missed; missed: %v", w, missed)
		}
	}
	if len(missed) != len(want) {
		t.Errorf("missed %v, want only %v", missed, want)
	}
}

func TestVerdict_BudgetsFailTheRunUnlessDisabled(t *testing.T) {
	rep := Report{Budgets: []Budget{atMost("proxy", 2, 1.5, "x")}, BudgetsHeld: true}
	if verdict(rep) == 0 {
		t.Fatal("a missed budget did not fail the run")
	}
	rep.BudgetsHeld = false
	if verdict(rep) != 0 {
		t.Fatal("-budgets=false failed the run")
	}
	rep.Results = []Result{{Path: "execute", Failed: 1}}
	if verdict(rep) == 0 {
		t.Fatal("a failed request did not fail the run")
	}
}

func TestWriteMarkdown_ReplacesOnlyItsDatabaseSection(t *testing.T) {
	file := filepath.Join(t.TempDir(), "performance.md")
	doc := "# Performance\n\nprose\n\n<!-- bench:sqlite -->\nold sqlite\n<!-- /bench:sqlite -->\n\n<!-- bench:postgres -->\nold pg\n<!-- /bench:postgres -->\n"
	if err := os.WriteFile(file, []byte(doc), 0o600); err != nil {
		t.Fatal(err)
	}
	rep := Report{Database: "sqlite", Results: []Result{{Path: pathExecute, Concurrency: 1, RPS: 1234}}}
	if err := writeMarkdown(file, rep); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(file)
	got := string(b)
	if strings.Contains(got, "old sqlite") || !strings.Contains(got, "| execute | 1 | 1234 |") {
		t.Fatalf("sqlite section not replaced:\n%s", got)
	}
	if !strings.Contains(got, "prose") || !strings.Contains(got, "old pg") {
		t.Fatalf("other parts changed:\n%s", got)
	}
}
