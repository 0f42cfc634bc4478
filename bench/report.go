package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
)

// printReport writes the run's tables and budgets as text.
func printReport(w io.Writer, rep Report) {
	fmt.Fprintf(w, "\nSwitchboard benchmark: %s, %s, %d CPUs (%s), %s; medians of %d interleaved passes; load average %s before, %s after\n\n",
		rep.Database, rep.GoVersion, rep.CPUs, rep.CPUModel, rep.Date, rep.Passes, rep.LoadBefore, rep.LoadAfter)
	if len(rep.Results) > 0 {
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "path\tconc\treq/s\tp50 ms\tp99 ms\tfailed\t")
		for _, r := range rep.Results {
			fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.3f\t%.3f\t%d\t\n", r.Path, r.Concurrency, r.RPS, r.P50ms, r.P99ms, r.Failed)
		}
		tw.Flush()
	}
	if rep.Observability != nil {
		printObservability(w, rep.Observability)
	}
	if in := rep.Ingress; in != nil {
		fmt.Fprintf(w, "\ntrigger ingress -> delivered webhook at c=%d: %.0f events/s; %d events a pass, %d failed posts, %d lost\n",
			in.Concurrency, in.EventsPerSecond, in.Events, in.Failed, in.Lost)
	}
	for _, st := range rep.Scale {
		fmt.Fprintf(w, "\nscale: %d connections, %d sessions (seeded in %.1fs); p50 ms small -> large\n", st.Connections, st.Sessions, st.SeedSeconds)
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
		for _, r := range st.Rows {
			fmt.Fprintf(tw, "%s\t%d\t%.3f\t%.3f\t%.2fx\t\n", r.Path, r.Concurrency, r.SmallP50ms, r.LargeP50ms, r.Ratio)
		}
		tw.Flush()
	}
	if rep.Observability == nil {
		fmt.Fprintf(w, "\nserve RSS: %.1f MiB idle, %.1f MiB most sampled under load, %.1f MiB peak (VmHWM)\n",
			mib(rep.Memory.IdleKiB), mib(rep.Memory.MaxKiB), mib(rep.Memory.PeakHWMKiB))
		fmt.Fprintf(w, "serve log: %s (%d lines, %.1f MiB)\n", rep.Log.Path, rep.Log.Lines, float64(rep.Log.Bytes)/(1<<20))
	}
	fmt.Fprintln(w)
	for _, b := range rep.Budgets {
		fmt.Fprintln(w, b)
	}
}

func mib(kib int64) float64 { return float64(kib) / 1024 }

// markdown renders the run as the section docs/performance.md keeps for
// its database.
func markdown(rep Report) string {
	var b strings.Builder
	if rep.Observability != nil {
		return compareMarkdown(&b, rep)
	}
	fmt.Fprintf(&b, "### %s, %s\n\n", map[string]string{"sqlite": "SQLite", "postgres": "PostgreSQL"}[rep.Database], rep.Date)
	fmt.Fprintf(&b, "%d CPUs (%s), %s; medians of %d interleaved passes of %d requests; load average %s before the run, %s after; serve's metrics listener %s, execution log on.\n\n",
		rep.CPUs, rep.CPUModel, rep.GoVersion, rep.Passes, firstRequests(rep), rep.LoadBefore, rep.LoadAfter, onOff(rep.Metrics))
	if len(rep.Results) > 0 {
		b.WriteString("| path | concurrency | req/s | p50 ms | p99 ms | failed |\n|---|--:|--:|--:|--:|--:|\n")
		for _, r := range rep.Results {
			fmt.Fprintf(&b, "| %s | %d | %.0f | %.3f | %.3f | %d |\n", r.Path, r.Concurrency, r.RPS, r.P50ms, r.P99ms, r.Failed)
		}
		b.WriteString("\n")
	}
	if in := rep.Ingress; in != nil {
		fmt.Fprintf(&b, "Trigger ingress to delivered webhook, concurrency %d: %.0f events/s (%d events a pass, %d failed posts, %d lost).\n\n",
			in.Concurrency, in.EventsPerSecond, in.Events, in.Failed, in.Lost)
	}
	if len(rep.Scale) > 0 {
		b.WriteString("| scale | path | concurrency | p50 ms small | p50 ms large | ratio |\n|---|---|--:|--:|--:|--:|\n")
		for _, st := range rep.Scale {
			for _, r := range st.Rows {
				fmt.Fprintf(&b, "| %d connections, %d sessions | %s | %d | %.3f | %.3f | %.2fx |\n",
					st.Connections, st.Sessions, r.Path, r.Concurrency, r.SmallP50ms, r.LargeP50ms, r.Ratio)
			}
		}
		b.WriteString("\n")
	}
	fmt.Fprintf(&b, "serve's resident memory: %.1f MiB idle after start, %.1f MiB at most under load (sampled), %.1f MiB peak (VmHWM).",
		mib(rep.Memory.IdleKiB), mib(rep.Memory.MaxKiB), mib(rep.Memory.PeakHWMKiB))
	for _, st := range rep.Scale {
		fmt.Fprintf(&b, " With %d connections and %d sessions: %.1f MiB idle, %.1f MiB peak.", st.Connections, st.Sessions, mib(st.Memory.IdleKiB), mib(st.Memory.PeakHWMKiB))
	}
	fmt.Fprintf(&b, " Its log (JSON, one line per request) wrote %d lines, %.1f MiB.\n\n", rep.Log.Lines, float64(rep.Log.Bytes)/(1<<20))
	budgetTable(&b, rep.Budgets)
	return b.String()
}

// compareMarkdown renders an -observability-compare run.
func compareMarkdown(b *strings.Builder, rep Report) string {
	fmt.Fprintf(b, "### %s, %s: execution log and metrics, on against off\n\n", map[string]string{"sqlite": "SQLite", "postgres": "PostgreSQL"}[rep.Database], rep.Date)
	fmt.Fprintf(b, "%d CPUs (%s), %s; medians of %d passes; load average %s before the run, %s after.\n\n",
		rep.CPUs, rep.CPUModel, rep.GoVersion, rep.Passes, rep.LoadBefore, rep.LoadAfter)
	observabilityMarkdown(b, rep.Observability)
	budgetTable(b, rep.Budgets)
	return b.String()
}

func budgetTable(b *strings.Builder, budgets []Budget) {
	b.WriteString("| budget | measured | limit | |\n|---|--:|--:|---|\n")
	for _, bd := range budgets {
		op, verdict := "≥", "met"
		if bd.Max {
			op = "≤"
		}
		if !bd.Met {
			verdict = "**missed**"
		}
		fmt.Fprintf(b, "| %s | %.3f%s | %s %g%s | %s |\n", bd.Name, bd.Value, bd.Unit, op, bd.Limit, bd.Unit, verdict)
	}
}

func firstRequests(rep Report) int {
	if len(rep.Results) > 0 {
		return rep.Results[0].Requests
	}
	for _, st := range rep.Scale {
		if len(st.Small) > 0 {
			return st.Small[0].Requests
		}
	}
	return 0
}

// writeMarkdown replaces the section between the database's markers in
// file (or appends it with its markers when there is none).
func writeMarkdown(file string, rep Report) error {
	key := rep.Database
	if rep.Observability != nil {
		key += "-observability" // a section of its own
	}
	begin, end := "<!-- bench:"+key+" -->", "<!-- /bench:"+key+" -->"
	old, err := os.ReadFile(file)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	doc := string(old)
	section := begin + "\n" + markdown(rep) + end
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i >= 0 && j > i {
		doc = doc[:i] + section + doc[j+len(end):]
	} else {
		if doc != "" && !strings.HasSuffix(doc, "\n\n") {
			doc += "\n"
		}
		doc += section + "\n"
	}
	return os.WriteFile(file, []byte(doc), 0o644)
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
