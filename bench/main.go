// Command bench measures what Switchboard costs over a direct call and a
// bare reverse proxy, black-box, as production runs it: the real
// `switchboard serve` binary, built from the tree, in a process of its
// own, configured only through its SWITCHBOARD_* variables, logging every
// request to a file, on a temporary SQLite database (or a fresh schema of
// the PostgreSQL database given with -postgres). The bench process holds
// the clients, a fake provider (TLS on loopback, trusted by serve through
// SSL_CERT_FILE) and the webhook receiver; a bare httputil.ReverseProxy in
// front of the provider runs as a process of its own, as serve does. The bench's connectors are OpenAPI documents (bench/openapi)
// imported with `switchboard admin openapi import`, as an operator imports
// an internal API.
//
// Each path is warmed up at each measured concurrency, then measured in
// -passes passes interleaved across paths (pass 1 of every path, then
// pass 2, …); the medians are reported, checked against the budgets
// (docs/performance.md), printed, and written as JSON and optionally as a
// Markdown section. The exit status is non-zero when a request failed or
// a budget was missed (unless -budgets=false).
//
//	go run ./bench [-n 2000] [-c 32] [-passes 3] [-postgres postgres://…] [-scale] [-markdown docs/performance.md]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/pprof"
	"strings"
	"time"
)

func main() {
	if spec := os.Getenv(rproxyEnv); spec != "" {
		os.Exit(runBareProxy(spec))
	}
	os.Exit(run())
}

// measurer runs interleaved passes of paths at the concurrency levels.
type measurer struct {
	fx     *fixture
	levels []int
	n      int
	warm   int
	passes int
}

// run warms each path up at each level, then measures -passes passes,
// interleaved: pass k of every path and level before pass k+1 of any.
func (m measurer) run(paths []path) []Result {
	for _, p := range paths {
		for _, c := range m.levels {
			drive(m.fx.client, p, max(m.warm, 4*c), c)
		}
	}
	passes := make([][]Pass, len(paths)*len(m.levels))
	for range m.passes {
		for i, p := range paths {
			for j, c := range m.levels {
				k := i*len(m.levels) + j
				passes[k] = append(passes[k], measure(m.fx.client, p, m.n, c))
			}
		}
	}
	var out []Result
	for i, p := range paths {
		for j, c := range m.levels {
			out = append(out, summarize(p.name, c, m.n, passes[i*len(m.levels)+j]))
		}
	}
	return out
}

// Report is everything one run found, as written to the JSON file.
type Report struct {
	Date        string       `json:"date"`
	Database    string       `json:"database"`
	GoVersion   string       `json:"goVersion"`
	CPUs        int          `json:"cpus"`
	CPUModel    string       `json:"cpuModel"`
	LoadBefore  string       `json:"loadAverageBefore"`
	LoadAfter   string       `json:"loadAverageAfter"`
	Passes      int          `json:"passes"`
	Metrics     bool         `json:"metricsOn"`
	Levels      []int        `json:"concurrency"`
	Results     []Result     `json:"results"`
	Ingress     *Ingress     `json:"ingress,omitempty"`
	Memory      MemoryFigure `json:"memory"`
	Log         LogFigure    `json:"log"`
	Scale       []ScaleStage `json:"scale,omitempty"`
	Resolution  *Resolution  `json:"resolution,omitempty"`
	Budgets     []Budget     `json:"budgets"`
	BudgetsHeld bool         `json:"budgetsEnforced"`
}

// MemoryFigure is a serve process's resident memory in KiB: once healthy
// before any traffic (VmRSS), the most sampled during the measurement
// (VmRSS every 100 ms), and the peak the kernel recorded (VmHWM).
type MemoryFigure struct {
	IdleKiB    int64 `json:"idleRssKiB"`
	MaxKiB     int64 `json:"maxSampledRssKiB"`
	PeakHWMKiB int64 `json:"peakHwmKiB"`
}

func (s *stack) memoryFigure() MemoryFigure {
	m := MemoryFigure{IdleKiB: s.idleRSS, MaxKiB: s.srv.maxRSS.Load()}
	if s.srv.alive() {
		_, m.PeakHWMKiB, _ = s.srv.memory()
	}
	return m
}

// LogFigure says where serve's log went and how much it wrote.
type LogFigure struct {
	Path  string `json:"path"`
	Bytes int64  `json:"bytes"`
	Lines int    `json:"lines"`
}

func run() int {
	n := flag.Int("n", 2000, "requests per pass, path and concurrency level")
	conc := flag.Int("c", 32, "the higher concurrency level (the lower is 1)")
	warm := flag.Int("warmup", 200, "warm-up requests per path at each concurrency level (at least 4 per worker)")
	passes := flag.Int("passes", 3, "measured passes, interleaved across paths; medians are reported")
	jsonOut := flag.String("json", "bench-results.json", "where to write the results as JSON")
	mdOut := flag.String("markdown", "", "a Markdown file (docs/performance.md) whose section for this database is replaced by this run's tables")
	pg := flag.String("postgres", "", "run Switchboard on a fresh schema of this PostgreSQL database instead of SQLite")
	only := flag.String("only", "", "measure only the paths whose name contains this text; 'scale' runs only the scale run, 'resolution' only the account resolution scenario")
	scale := flag.Bool("scale", false, "add the scale run: 1k, then 100k stored connections and sessions against the small database")
	budgets := flag.Bool("budgets", true, "exit non-zero when a budget is missed; -budgets=false only reports them")
	bin := flag.String("bin", "", "a switchboard binary to run instead of building one from the tree")
	logOut := flag.String("log", "", "copy the main serve process's log here at the end (it lives in a temporary directory otherwise)")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the bench process (clients, fake provider, bare proxy) here")
	grow := flag.Int("grow", 0, "also measure tools/list and search_actions on a second serve whose catalog holds the built-in one this many times over (3), as the catalog grows")
	metrics := flag.Bool("metrics", true, "run the main serve with its Prometheus listener on (SWITCHBOARD_METRICS_ADDR), as a monitored deployment runs")
	flag.Parse()

	rep := Report{Date: time.Now().UTC().Format("2006-01-02 15:04 UTC"), Database: dbName(*pg), GoVersion: runtime.Version(),
		CPUs: runtime.NumCPU(), CPUModel: cpuModel(), LoadBefore: loadAverage(), Passes: max(1, *passes), Levels: []int{1, *conc}, BudgetsHeld: *budgets, Metrics: *metrics}
	if *conc <= 1 {
		rep.Levels = []int{1}
	}
	scaleOnly := *only == "scale"
	resolutionOnly := *only != "" && strings.Contains(resolutionName, *only)
	fx, err := newFixture(*pg, *bin, *conc)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	defer fx.close()
	n0 := *n
	m := measurer{fx: fx, levels: rep.Levels, n: n0, warm: *warm, passes: rep.Passes}
	// Each trigger takes at most 600 events a minute: enough triggers for
	// every event of the run at 500 each.
	triggers := (max(*warm, 4**conc)+n0*rep.Passes)/ingressPerTrigger + 2
	st, err := fx.newStack("main", stackOptions{full: true, triggers: triggers, metrics: *metrics})
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	fmt.Printf("serve (pid %d) on %s, REST %s, MCP %s; log: %s; idle RSS %.1f MiB\n",
		st.srv.cmd.Process.Pid, rep.Database, st.srv.baseURL(), st.srv.mcpURL(), st.srv.logPath, float64(st.idleRSS)/1024)

	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		defer pprof.StopCPUProfile()
	}

	st.srv.sampleRSS()
	if !scaleOnly && !resolutionOnly {
		var paths []path
		for _, p := range st.paths() {
			if *only == "" || strings.Contains(p.name, *only) {
				paths = append(paths, p)
			}
		}
		rep.Results = m.run(paths)
		if *grow > 1 {
			grown, err := fx.measureGrown(m, *grow, *metrics, *only)
			if err != nil {
				fmt.Fprintln(os.Stderr, "bench: grown catalog:", err)
				return 1
			}
			rep.Results = append(rep.Results, grown...)
		}
		if *only == "" || strings.Contains("trigger ingress", *only) {
			in := st.measureIngress(m, *conc)
			rep.Ingress = &in
		}
	}
	if *scale || scaleOnly {
		stages, err := fx.runScale(st, m)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench: scale:", err)
			return 1
		}
		rep.Scale = stages
	}
	if resolutionOnly {
		r, err := st.measureResolution(*conc)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench: account resolution:", err)
			return 1
		}
		printResolution(r)
		rep.Resolution = &r
	}
	st.srv.stopSampler()
	rep.Memory = st.memoryFigure()
	if !st.srv.alive() {
		fmt.Fprintf(os.Stderr, "bench: serve exited during the run; its log: %s\n%s\n", st.srv.logPath, st.srv.logTail(2048))
		return 1
	}
	rep.Log = logFigure(st.srv.logPath)
	if *logOut != "" {
		if err := copyFile(st.srv.logPath, *logOut); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
		rep.Log.Path = *logOut
	}
	rep.LoadAfter = loadAverage()

	rep.Budgets = budgetsOf(rep.Results, rep.Levels, rep.Ingress)
	rep.Budgets = append(rep.Budgets, scaleBudgets(rep.Scale)...)
	rep.Budgets = append(rep.Budgets, grownBudgets(rep.Results, *grow)...)
	if rep.Resolution != nil {
		rep.Budgets = append(rep.Budgets, atLeast("account resolution: req/s with writes / without", rep.Resolution.Ratio, 0.9, "x"))
	}
	printReport(os.Stdout, rep)
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(rep, "", "  ")
		if err := os.WriteFile(*jsonOut, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
	}
	if *mdOut != "" {
		if err := writeMarkdown(*mdOut, rep); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
	}
	return verdict(rep)
}

// verdict is the exit status: failed requests always fail the run; a
// missed budget does unless -budgets=false.
func verdict(rep Report) int {
	code := 0
	fail := func(format string, a ...any) {
		fmt.Fprintf(os.Stderr, "bench: "+format+"\n", a...)
		code = 1
	}
	all := append([]Result(nil), rep.Results...)
	for _, st := range rep.Scale {
		all = append(append(all, st.Small...), st.Large...)
	}
	if rep.Resolution != nil {
		all = append(all, rep.Resolution.Quiet, rep.Resolution.Writing)
	}
	for _, r := range all {
		if r.Failed > 0 {
			fail("%d requests of %s at concurrency %d failed", r.Failed, r.Path, r.Concurrency)
		}
	}
	for _, b := range rep.Budgets {
		if !b.Met {
			if rep.BudgetsHeld {
				fail("budget missed: %s", b)
			} else {
				fmt.Fprintf(os.Stderr, "bench: budget missed (not enforced): %s\n", b)
			}
		}
	}
	return code
}

// measureIngress runs the ingress passes; they follow the paths' passes,
// since events must not share the measured window with other paths.
func (s *stack) measureIngress(m measurer, c int) Ingress {
	s.ingress(max(m.warm, 4*c), c) // warm-up
	var passes []IngressPass
	for range m.passes {
		passes = append(passes, s.ingress(m.n, c))
	}
	return summarizeIngress(m.n, c, passes)
}

func dbName(pg string) string {
	if pg != "" {
		return "postgres"
	}
	return "sqlite"
}

func cpuModel() string {
	b, _ := os.ReadFile("/proc/cpuinfo")
	for line := range strings.SplitSeq(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

func loadAverage() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

func logFigure(p string) LogFigure {
	b, _ := os.ReadFile(p)
	return LogFigure{Path: p, Bytes: int64(len(b)), Lines: strings.Count(string(b), "\n")}
}

func copyFile(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(dst, src); err != nil {
		dst.Close()
		return err
	}
	return dst.Close()
}
