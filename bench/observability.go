package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"
)

// The observability comparison (issue 16): the execute and proxy overhead
// with the execution log and the metrics on must stay within 0.03 ms p50
// of the same figures with both off. Two serve processes of the same
// binary run side by side, each on its own database: "observed" with its
// metrics listener on and the execution log recording (the default), and
// "bare" with no metrics listener and SWITCHBOARD_EXECUTION_LOG=off. Their
// paths are measured at concurrency 1 in passes interleaved with each
// other and with the direct and bare-proxy baselines, so that a shared
// machine's drift falls on both alike.

// Names of the two stacks.
const (
	stackObserved = "observed"
	stackBare     = "bare"
)

// observabilityBudget is the most the log and the metrics may add to an
// overhead, p50 at c=1, in ms.
const observabilityBudget = 0.03

// Observability is the comparison's result.
type Observability struct {
	Requests int `json:"requestsPerPass"`
	// Rows are execute and proxy: their overhead over the baseline on
	// each stack and the difference.
	Rows []ObservabilityRow `json:"rows"`
	// Results are every measured path (the stacks' prefixed with
	// "observed: " and "bare: "), medians over the passes.
	Results []Result `json:"results"`
}

// ObservabilityRow is one path's overhead (p50 at c=1, in ms) over its
// baseline (direct for execute, the bare reverse proxy for the proxy),
// with the log and metrics on and off. Delta is the median over the passes
// of on − off measured in the same pass; OnMs and OffMs are the medians of
// each stack's overhead.
type ObservabilityRow struct {
	Path     string  `json:"path"`
	Baseline string  `json:"baseline"`
	OnMs     float64 `json:"overheadOnMs"`
	OffMs    float64 `json:"overheadOffMs"`
	DeltaMs  float64 `json:"deltaMs"`
}

// observedPaths are the compared paths and their baselines.
var observedPaths = []struct{ path, baseline string }{
	{pathExecute, pathDirect},
	{pathProxy, pathBare},
}

// runObservability starts the two stacks and measures them.
func (fx *fixture) runObservability(m measurer) (*Observability, error) {
	on, err := fx.newStack(stackObserved, stackOptions{metrics: true})
	if err != nil {
		return nil, err
	}
	off, err := fx.newStack(stackBare, stackOptions{execLogOff: true})
	if err != nil {
		return nil, err
	}
	for _, s := range []*stack{on, off} {
		fmt.Printf("%s: serve (pid %d), REST %s; log: %s\n", s.name, s.srv.cmd.Process.Pid, s.srv.baseURL(), s.srv.logPath)
	}
	// The baselines do not go through serve: one copy, from either stack.
	var paths []path
	for _, p := range on.paths() {
		if p.name == pathDirect || p.name == pathBare {
			paths = append(paths, p)
		}
	}
	for _, o := range observedPaths {
		for _, s := range []*stack{on, off} {
			for _, p := range s.paths() {
				if p.name == o.path {
					p.name = s.name + ": " + p.name
					paths = append(paths, p)
				}
			}
		}
	}
	m.levels = []int{1}
	rs := m.run(paths)
	for _, s := range []*stack{on, off} {
		if !s.srv.alive() {
			return nil, fmt.Errorf("%s serve exited during the run; its log: %s\n%s", s.name, s.srv.logPath, s.srv.logTail(2048))
		}
	}
	if err := checkLogged(on, off); err != nil {
		return nil, err
	}
	out := &Observability{Requests: m.n, Results: rs, Rows: observabilityRows(rs)}
	on.srv.stop()
	off.srv.stop()
	return out, nil
}

// observabilityRows computes the overheads from the measured results.
func observabilityRows(rs []Result) []ObservabilityRow {
	var rows []ObservabilityRow
	for _, o := range observedPaths {
		base, ok1 := find(rs, o.baseline, 1)
		a, ok2 := find(rs, stackObserved+": "+o.path, 1)
		b, ok3 := find(rs, stackBare+": "+o.path, 1)
		if !ok1 || !ok2 || !ok3 {
			continue
		}
		row := ObservabilityRow{Path: o.path, Baseline: o.baseline}
		var on, off, delta []float64
		for i := range min(len(base.Passes), len(a.Passes), len(b.Passes)) {
			on = append(on, a.Passes[i].P50ms-base.Passes[i].P50ms)
			off = append(off, b.Passes[i].P50ms-base.Passes[i].P50ms)
			delta = append(delta, a.Passes[i].P50ms-b.Passes[i].P50ms)
		}
		row.OnMs, row.OffMs, row.DeltaMs = medianOf(on), medianOf(off), medianOf(delta)
		rows = append(rows, row)
	}
	return rows
}

// observabilityBudgets holds each row's difference to the budget.
func observabilityBudgets(o *Observability) []Budget {
	if o == nil {
		return nil
	}
	var out []Budget
	for _, r := range o.Rows {
		out = append(out, atMost(r.Path+" overhead, log+metrics on − off, p50 at c=1", r.DeltaMs, observabilityBudget, " ms"))
	}
	return out
}

// printObservability writes the comparison as text.
func printObservability(w io.Writer, o *Observability) {
	fmt.Fprintf(w, "\nexecution log + metrics on (%s) against both off (%s), p50 at c=1, %d requests a pass:\n", stackObserved, stackBare, o.Requests)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "path\tover\ton ms\toff ms\ton − off ms\t")
	for _, r := range o.Rows {
		fmt.Fprintf(tw, "%s\t%s\t%.3f\t%.3f\t%+.3f\t\n", r.Path, r.Baseline, r.OnMs, r.OffMs, r.DeltaMs)
	}
	tw.Flush()
}

// observabilityMarkdown renders the comparison's table.
func observabilityMarkdown(b *strings.Builder, o *Observability) {
	fmt.Fprintf(b, "Execution log and metrics on (`%s` serve) against both off (`%s` serve, `SWITCHBOARD_EXECUTION_LOG=off`, no metrics listener), same binary, each on its own database, passes of %d requests at concurrency 1 interleaved; the difference is the median of the per-pass differences.\n\n",
		stackObserved, stackBare, o.Requests)
	b.WriteString("| path | overhead over | on, p50 ms | off, p50 ms | on − off, ms |\n|---|---|--:|--:|--:|\n")
	for _, r := range o.Rows {
		fmt.Fprintf(b, "| %s | %s | %.3f | %.3f | %+.3f |\n", r.Path, r.Baseline, r.OnMs, r.OffMs, r.DeltaMs)
	}
	b.WriteString("\n")
}

// checkLogged makes sure the two stacks ran as named: the observed one
// recorded the calls (its writer batches every 100 ms) and the bare one
// recorded none.
func checkLogged(on, off *stack) error {
	var page struct{ Data []struct{ ID string } }
	if err := off.api("GET", "/v1/logs?limit=1", nil, &page); err != nil {
		return err
	}
	if len(page.Data) != 0 {
		return fmt.Errorf("the %s serve recorded calls in its execution log; it should run with the log off", off.name)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		if err := on.api("GET", "/v1/logs?limit=1", nil, &page); err != nil {
			return err
		}
		if len(page.Data) == 1 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the %s serve recorded no call in its execution log", on.name)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
