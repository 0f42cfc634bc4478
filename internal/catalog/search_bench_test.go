package catalog

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	builtin "github.com/switchboard-gw/switchboard/catalog"
)

// grownCatalog is the built-in catalog with n-1 copies of every connector
// (ids suffixed _r2, _r3...), to measure search over a catalog n times as
// large.
func grownCatalog(tb testing.TB, n int) *Catalog {
	tb.Helper()
	base, err := Load(builtin.FS)
	if err != nil {
		tb.Fatal(err)
	}
	all := append([]*Connector(nil), base.connectors...)
	for k := 2; k <= n; k++ {
		for _, c := range base.connectors {
			cc := *c
			cc.ID = fmt.Sprintf("%s_r%d", c.ID, k)
			cc.Tools, cc.Triggers = nil, nil
			for _, t := range c.Tools {
				tc := *t
				tc.ID = cc.ID + strings.TrimPrefix(t.ID, c.ID)
				tc.connector = &cc
				cc.Tools = append(cc.Tools, &tc)
			}
			all = append(all, &cc)
		}
	}
	cat, problems := newCatalog(all)
	if len(problems) > 0 {
		tb.Fatal(problems)
	}
	return cat
}

func evalQueries(tb testing.TB) []string {
	tb.Helper()
	t, ok := tb.(*testing.T)
	var qs []string
	for _, half := range []string{"tune", "test"} {
		var cases []evalCase2
		if ok {
			cases = loadEval2(t, half)
		} else {
			cases = loadEval2(&testing.T{}, half)
		}
		for _, c := range cases {
			qs = append(qs, c.Query)
		}
	}
	return qs
}

// BenchmarkSearch ranks every evaluation request over the catalog and over
// the catalog grown fourfold, and reports the p99 of one search.
func BenchmarkSearch(b *testing.B) {
	queries := evalQueries(b)
	for _, n := range []int{1, 4} {
		cat := grownCatalog(b, n)
		b.Run(fmt.Sprintf("tools=%d", len(cat.Tools())), func(b *testing.B) {
			b.ReportAllocs()
			times := make([]time.Duration, 0, b.N)
			for i := 0; b.Loop(); i++ {
				start := time.Now()
				cat.SearchSteps(queries[i%len(queries)], nil)
				times = append(times, time.Since(start))
			}
			slices.Sort(times)
			b.ReportMetric(float64(times[len(times)*99/100].Microseconds()), "p99-µs")
		})
	}
}

// Search stays under 5 ms at the 99th percentile over a catalog grown to
// four times the built-in one (2,980 tools), and the catalog with its
// index stays under 50 MiB. Each evaluation request is timed five times
// and its fastest run kept (see searchP99), so that a machine busy with
// other work does not fail the test; BenchmarkSearch reports the plain
// p99. The race detector slows every memory access several times over, so
// under it the time is only logged.
func TestSearch_LatencyAndMemoryOverGrownCatalog(t *testing.T) {
	queries := evalQueries(t)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	cat := grownCatalog(t, 4)
	runtime.GC()
	runtime.ReadMemStats(&after)
	if len(cat.Tools()) < 2500 {
		t.Fatalf("grown catalog has %d tools", len(cat.Tools()))
	}
	p99 := searchP99(cat, 5)
	heap := float64(after.HeapAlloc-min(before.HeapAlloc, after.HeapAlloc)) / (1 << 20)
	t.Logf("%d tools, %d queries: search p99 %v; catalog with its search index %.1f MiB", len(cat.Tools()), len(queries), p99, heap)
	if p99 >= 5*time.Millisecond && !raceEnabled {
		t.Errorf("search p99 = %v over %d tools, want under 5ms", p99, len(cat.Tools()))
	}
	if heap > 50 {
		t.Errorf("the grown catalog takes %.1f MiB, want under 50", heap)
	}
	runtime.KeepAlive(cat)
}
