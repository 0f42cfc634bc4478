// Command bench measures what Switchboard costs over a direct call and a
// bare reverse proxy, in one run on loopback: a fake provider (a small JSON
// API), Switchboard built and run by internal/app as serve runs it, on a
// temporary SQLite database (or PostgreSQL with -postgres), and an
// httputil.ReverseProxy in front of the same fake. Each
// path is driven with a fixed number of requests at concurrency 1 and at
// -c, after a warm-up; the table and its ratios are printed and written as
// JSON. It exits non-zero if any request failed.
//
//	go run ./bench [-n 2000] [-c 32] [-json bench-results.json] [-postgres postgres://…]
package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing/fstest"
	"text/tabwriter"
	"time"

	builtin "github.com/switchboard-gw/switchboard/catalog"
	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/app"
	"github.com/switchboard-gw/switchboard/internal/config"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/session"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/trigger"
	"github.com/switchboard-gw/switchboard/internal/webhook"
)

//go:embed catalog
var benchFS embed.FS

func main() { os.Exit(run()) }

// providerBody is the fake provider's answer: about 1 KB of JSON.
var providerBody = func() []byte {
	item := map[string]any{"id": "itm_123", "object": "item", "name": "benchmark item", "tags": []string{"alpha", "beta", "gamma"},
		"description": strings.Repeat("A realistic description of an item. ", 20), "created": 1767225600, "owner": map[string]any{"id": "usr_1", "login": "ann"}}
	b, _ := json.Marshal(item)
	return b
}()

const itemInput = `{"name":"benchmark item","tags":["alpha","beta"],"count":3}`

// Result is one path at one concurrency.
type Result struct {
	Path        string  `json:"path"`
	Concurrency int     `json:"concurrency"`
	Requests    int     `json:"requests"`
	Failed      int64   `json:"failed"`
	RPS         float64 `json:"requestsPerSecond"`
	P50ms       float64 `json:"p50Ms"`
	P99ms       float64 `json:"p99Ms"`
}

// stack is everything one run drives.
type stack struct {
	client   *http.Client
	provider *httptest.Server
	rproxy   *httptest.Server
	// apiURL and mcpURL are Switchboard's base and MCP listeners.
	apiURL    string
	mcpURL    string
	key       string
	sessionID string
	searchID  string
	// ingressPaths are the triggers' ingress paths (several, since one
	// trigger takes at most 600 events a minute); received counts
	// deliveries the receiver verified.
	ingressPaths []string
	received     atomic.Int64
	cleanup      []func()
	// dbURL is the database Switchboard runs on (for bulk seeding).
	dbURL string
}

func run() int {
	n := flag.Int("n", 2000, "requests per path and concurrency level")
	conc := flag.Int("c", 32, "the higher concurrency level")
	warm := flag.Int("warmup", 200, "warm-up requests per path")
	jsonOut := flag.String("json", "bench-results.json", "where to write the results as JSON")
	pg := flag.String("postgres", "", "run Switchboard on this PostgreSQL database instead of SQLite")
	only := flag.String("only", "", "measure only the paths whose name contains this text")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile of the measured part here")
	memProfile := flag.String("memprofile", "", "write an allocation profile of the run here at the end")
	flag.Parse()

	st, err := newStack(*pg, *conc)
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		return 1
	}
	defer func() {
		for i := len(st.cleanup) - 1; i >= 0; i-- {
			st.cleanup[i]()
		}
	}()

	paths := st.paths()
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
	if *memProfile != "" {
		defer func() {
			if err := writeMemProfile(*memProfile); err != nil {
				fmt.Fprintln(os.Stderr, "bench:", err)
			}
		}()
	}
	var results []Result
	for _, p := range paths {
		if *only != "" && !strings.Contains(p.name, *only) {
			continue
		}
		drive(st.client, p.req, *warm, 4) // warm-up
		for _, c := range []int{1, *conc} {
			results = append(results, measure(st.client, p.name, p.req, *n, c))
		}
	}
	ingress := Ingress{}
	if *only == "" || strings.Contains("trigger ingress", *only) {
		ingress = st.measureIngress(*n, *conc)
	}
	var resolution *Resolution
	if *only != "" && strings.Contains(resolutionName, *only) {
		r, err := st.measureResolution(*conc)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bench: account resolution:", err)
			return 1
		}
		printResolution(r)
		results = append(results, r.Quiet, r.Writing)
		resolution = &r
	}
	ratios := ratiosOf(results, *conc)
	ratios["ingressEventsPerSecond"] = ingress.EventsPerSecond
	printTable(results, ratios, *pg != "")
	if ingress.Events > 0 {
		fmt.Printf("trigger ingress -> delivered webhooks:     %.0f events/s, %d sent, %d delivered, %d lost (budget: 1000 events/s, none lost)\n",
			ingress.EventsPerSecond, ingress.Events, ingress.Delivered, int64(ingress.Events)-ingress.Delivered)
	}
	if *jsonOut != "" {
		b, _ := json.MarshalIndent(map[string]any{"database": dbName(*pg), "goVersion": runtime.Version(), "cpus": runtime.NumCPU(),
			"results": results, "ratios": ratios, "ingress": ingress, "resolution": resolution}, "", "  ")
		if err := os.WriteFile(*jsonOut, b, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			return 1
		}
	}
	if ingress.Failed > 0 || ingress.Delivered < int64(ingress.Events) {
		fmt.Fprintf(os.Stderr, "bench: trigger ingress: %d failed, %d of %d delivered\n", ingress.Failed, ingress.Delivered, ingress.Events)
		return 1
	}
	for _, r := range results {
		if r.Failed > 0 {
			fmt.Fprintf(os.Stderr, "bench: %d requests of %s at concurrency %d failed\n", r.Failed, r.Path, r.Concurrency)
			return 1
		}
	}
	return 0
}

// writeMemProfile writes the allocation profile (every allocation since the
// start, sampled) to path.
func writeMemProfile(path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer f.Close()
	return pprof.Lookup("allocs").WriteTo(f, 0)
}

func dbName(pg string) string {
	if pg != "" {
		return "postgres"
	}
	return "sqlite"
}

// path is one measured request shape; req builds a fresh request each time.
type path struct {
	name string
	req  func() *http.Request
}

func post(u, key, body string) func() *http.Request {
	return func() *http.Request {
		r, _ := http.NewRequest("POST", u, strings.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("Accept", "application/json, text/event-stream")
		if key != "" {
			r.Header.Set("Authorization", "Bearer "+key)
		}
		return r
	}
}

func (s *stack) paths() []path {
	mcpCall := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"switchboard_execute","arguments":{"action":"benchapi_create_item","input":` + itemInput + `}}}`
	return []path{
		{"direct (fake provider)", post(s.provider.URL+"/api/items", "provider-key", itemInput)},
		{"execute", post(s.apiURL+"/v1/tools/execute", s.key, `{"toolId":"benchapi_create_item","userId":"bench","input":`+itemInput+`}`)},
		{"bare reverse proxy", post(s.rproxy.URL+"/api/items", "provider-key", itemInput)},
		{"proxy", post(s.apiURL+"/v1/tools/proxy", s.key, `{"connectorId":"benchapi","userId":"bench","endpoint":"/items","method":"POST","body":`+itemInput+`}`)},
		{"session execute (REST)", post(s.apiURL+"/v1/sessions/"+s.sessionID+"/tools/switchboard_execute", s.key,
			`{"arguments":{"action":"benchapi_create_item","input":`+itemInput+`}}`)},
		{"session tools/call (MCP)", post(s.apiURL+"/v1/sessions/"+s.sessionID+"/mcp", s.key, mcpCall)},
		{"MCP tools/list, 1000 tools", post(s.mcpURL+"/bulk-all/bench", s.key, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)},
		{"search_actions, whole catalog", post(s.apiURL+"/v1/sessions/"+s.searchID+"/tools/switchboard_search_actions", s.key,
			`{"arguments":{"queries":["open a bug in our repository"]}}`)},
	}
}

// drive sends n requests with c workers and returns their latencies and failures.
func drive(client *http.Client, req func() *http.Request, n, c int) ([]time.Duration, int64, time.Duration) {
	lat := make([]time.Duration, n)
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	start := time.Now()
	for range c {
		wg.Go(func() {
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				t0 := time.Now()
				resp, err := client.Do(req())
				if err != nil {
					failed.Add(1)
					continue
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				lat[i] = time.Since(t0)
				if resp.StatusCode != 200 || bytes.Contains(body, []byte(`"isError":true`)) || bytes.Contains(body, []byte(`"ok":false`)) {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return lat, failed.Load(), time.Since(start)
}

func measure(client *http.Client, name string, req func() *http.Request, n, c int) Result {
	lat, failed, total := drive(client, req, n, c)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	return Result{Path: name, Concurrency: c, Requests: n, Failed: failed, RPS: float64(n) / total.Seconds(),
		P50ms: ms(lat[n/2]), P99ms: ms(lat[n*99/100])}
}

// Ingress is the trigger ingress measurement: signed provider events posted
// at concurrency, until every resulting webhook delivery was received.
type Ingress struct {
	Events          int     `json:"events"`
	Failed          int64   `json:"failedPosts"`
	Delivered       int64   `json:"delivered"`
	Seconds         float64 `json:"seconds"`
	EventsPerSecond float64 `json:"eventsPerSecond"`
}

func (s *stack) measureIngress(n, c int) Ingress {
	body := []byte(`{"action":"created","item":{"id":"itm_1","name":"benchmark item"}}`)
	m := hmac.New(sha256.New, []byte("bench-trigger-secret"))
	m.Write(body)
	sig := "sha256=" + hex.EncodeToString(m.Sum(nil))
	var next atomic.Int64
	req := func() *http.Request {
		path := s.ingressPaths[int(next.Add(1))%len(s.ingressPaths)]
		r, _ := http.NewRequest("POST", s.apiURL+path, bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("X-Hub-Signature-256", sig)
		return r
	}
	if n > 500*len(s.ingressPaths) {
		n = 500 * len(s.ingressPaths) // stay under each trigger's 600 a minute
	}
	start := time.Now()
	_, failed, _ := drive(s.client, req, n, c)
	deadline := time.Now().Add(60 * time.Second)
	for s.received.Load() < int64(n) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	took := time.Since(start)
	got := s.received.Load()
	return Ingress{Events: n, Failed: failed, Delivered: got, Seconds: took.Seconds(), EventsPerSecond: float64(got) / took.Seconds()}
}

func find(rs []Result, name string, c int) Result {
	for _, r := range rs {
		if r.Path == name && r.Concurrency == c {
			return r
		}
	}
	return Result{}
}

// ratiosOf computes the ratios the benchmark states its budgets in.
func ratiosOf(rs []Result, conc int) map[string]float64 {
	direct, exec := find(rs, "direct (fake provider)", 1), find(rs, "execute", 1)
	rp, px := find(rs, "bare reverse proxy", 1), find(rs, "proxy", 1)
	rpC, pxC := find(rs, "bare reverse proxy", conc), find(rs, "proxy", conc)
	return map[string]float64{
		"executeOverheadP50Ms":       exec.P50ms - direct.P50ms,
		"proxyOverBareP50":           px.P50ms / rp.P50ms,
		"proxyOverBareThroughputAtC": rpC.RPS / pxC.RPS,
		"toolsList1000P50Ms":         find(rs, "MCP tools/list, 1000 tools", 1).P50ms,
		"searchP99Ms":                find(rs, "search_actions, whole catalog", 1).P99ms,
	}
}

func printTable(rs []Result, ratios map[string]float64, pg bool) {
	tw := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(os.Stdout, "Switchboard benchmark (%s, %s, %d CPUs)\n\n", dbName(map[bool]string{true: "pg"}[pg]), runtime.Version(), runtime.NumCPU())
	fmt.Fprintln(tw, "path\tconc\treq/s\tp50 ms\tp99 ms\tfailed\t")
	for _, r := range rs {
		fmt.Fprintf(tw, "%s\t%d\t%.0f\t%.3f\t%.3f\t%d\t\n", r.Path, r.Concurrency, r.RPS, r.P50ms, r.P99ms, r.Failed)
	}
	tw.Flush()
	fmt.Printf("\nexecute overhead over direct, p50:        %+.3f ms   (budget: at most 1 ms)\n", ratios["executeOverheadP50Ms"])
	fmt.Printf("proxy / bare reverse proxy, p50:          %.2fx      (budget: at most 1.5x)\n", ratios["proxyOverBareP50"])
	fmt.Printf("bare reverse proxy / proxy, req/s at c:   %.2fx\n", ratios["proxyOverBareThroughputAtC"])
	fmt.Printf("MCP tools/list with 1000 tools, p50:      %.3f ms   (budget: under 5 ms)\n", ratios["toolsList1000P50Ms"])
	fmt.Printf("search_actions over the catalog, p99:     %.3f ms   (budget: under 5 ms)\n", ratios["searchP99Ms"])
}

// newStack starts the fake provider, the bare reverse proxy and Switchboard.
func newStack(pgURL string, conc int) (*stack, error) {
	s := &stack{}
	s.provider = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.Header.Get("Authorization") != "Bearer provider-key" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(providerBody)
	}))
	s.cleanup = append(s.cleanup, s.provider.Close)
	pool := x509.NewCertPool()
	pool.AddCert(s.provider.Certificate())
	tlsConf := &tls.Config{RootCAs: pool}

	target, _ := url.Parse(s.provider.URL)
	rp := httputil.NewSingleHostReverseProxy(target)
	rp.Transport = &http.Transport{TLSClientConfig: tlsConf, MaxIdleConnsPerHost: conc * 2}
	s.rproxy = httptest.NewServer(rp)
	s.cleanup = append(s.cleanup, s.rproxy.Close)

	merged := fstest.MapFS{}
	for _, src := range []fs.FS{builtin.FS, mustSub(benchFS, "catalog")} {
		err := fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			b, err := fs.ReadFile(src, p)
			merged[p] = &fstest.MapFile{Data: b}
			return err
		})
		if err != nil {
			return nil, err
		}
	}
	dbURL, dropDB, err := database(pgURL)
	if err != nil {
		return nil, err
	}
	s.cleanup = append(s.cleanup, dropDB)
	s.dbURL = dbURL
	ctx := context.Background()
	// Switchboard is built and run as serve runs it (internal/app): the
	// per-project catalogs, the Connect page, webhooks and the background
	// jobs are all on the measured path. Only the outbound guard is opened
	// to loopback, where the fake provider and the receiver listen.
	material := make([]byte, secret.KeySize)
	_, _ = rand.Read(material)
	cfg, err := benchConfig(dbURL, "bench:"+base64.StdEncoding.EncodeToString(material))
	if err != nil {
		return nil, err
	}
	listening := make(chan [2]string, 3)
	a, err := app.New(ctx, cfg, app.Options{CatalogFS: merged, AllowLoopback: true, RootCAs: pool,
		OnListen: func(name, addr string) { listening <- [2]string{name, addr} }})
	if err != nil {
		return nil, err
	}
	// Deliver webhooks promptly and in large batches: the ingress figure
	// measures event to delivered webhook.
	a.Worker.Poll = 50 * time.Millisecond
	a.Worker.Batch = 256
	runCtx, stop := context.WithCancel(ctx)
	runDone := make(chan error, 1)
	go func() { runDone <- a.Run(runCtx) }()
	s.cleanup = append(s.cleanup, func() {
		stop()
		<-runDone
	})
	for s.apiURL == "" || s.mcpURL == "" {
		select {
		case l := <-listening:
			switch l[0] {
			case "base":
				s.apiURL = "http://" + l[1]
			case "mcp":
				s.mcpURL = "http://" + l[1]
			}
		case err := <-runDone:
			return nil, fmt.Errorf("switchboard stopped before listening: %w", err)
		case <-time.After(10 * time.Second):
			return nil, errors.New("switchboard did not start listening")
		}
	}
	st, accounts, sessions := a.Store, a.Accounts, a.Sessions

	proj, err := st.CreateProject(ctx, "bench")
	if err != nil {
		return nil, err
	}
	key, hash, hint, _ := apikey.Generate()
	if _, err := st.CreateAPIKey(ctx, store.NewAPIKey{ProjectID: proj.ID, Name: "bench", Hash: hash, Hint: hint}); err != nil {
		return nil, err
	}
	s.key = key
	cred, _ := json.Marshal(map[string]string{"type": "api_key", "apiKey": "provider-key", "host": target.Host})
	if _, err := accounts.Create(ctx, proj.ID, account.CreateRequest{ConnectorID: "benchapi", UserID: "bench", Credential: cred}); err != nil {
		return nil, err
	}
	ss, _, err := sessions.Create(ctx, proj.ID, session.CreateRequest{UserID: "bench", Connectors: []string{"benchapi"}})
	if err != nil {
		return nil, err
	}
	s.sessionID = ss.ID
	all, _, err := sessions.Create(ctx, proj.ID, session.CreateRequest{UserID: "bench"})
	if err != nil {
		return nil, err
	}
	s.searchID = all.ID
	rec, err := sessions.EndpointRecord(context.Background(), session.EndpointRequest{ProjectID: proj.ID, Slug: "bulk-all", Connectors: []string{"bulk"}})
	if err != nil {
		return nil, err
	}
	if _, err := st.CreateEndpoint(ctx, rec); err != nil {
		return nil, err
	}
	// Trigger ingress: a receiver that verifies each delivery, a project
	// webhook for it, a manual trigger, and a delivery worker.
	receiver := httptest.NewServer(nil)
	s.cleanup = append(s.cleanup, receiver.Close)
	hook, err := a.Webhooks.Create(ctx, proj.ID, receiver.URL+"/hook", nil, "bench")
	if err != nil {
		return nil, err
	}
	receiver.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		ts, _ := strconv.ParseInt(r.Header.Get("webhook-timestamp"), 10, 64)
		if webhook.Verify(hook.Secret, r.Header.Get("webhook-id"), ts, b, r.Header.Get("webhook-signature")) {
			s.received.Add(1)
		}
	})
	conns, _ := st.ListConnections(ctx, proj.ID, "bench")
	secretValue := "bench-trigger-secret"
	for range 20 {
		tr, err := a.Triggers.Create(ctx, proj.ID, trigger.CreateRequest{ConnectionID: conns[0].ID, Event: "benchapi_item_created", Secret: &secretValue})
		if err != nil {
			return nil, err
		}
		s.ingressPaths = append(s.ingressPaths, strings.TrimPrefix(tr.URL, "http://localhost"))
	}

	s.client = &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConf, MaxIdleConns: conc * 4, MaxIdleConnsPerHost: conc * 2}}
	return s, nil
}

func mustSub(f fs.FS, dir string) fs.FS {
	sub, err := fs.Sub(f, dir)
	if err != nil {
		panic(err)
	}
	return sub
}

// database returns the URL to run on: a temporary SQLite file, or a fresh
// schema in the given PostgreSQL database; drop removes it afterwards.
func database(pgURL string) (string, func(), error) {
	if pgURL == "" {
		dir, err := os.MkdirTemp("", "switchboard-bench-")
		if err != nil {
			return "", nil, err
		}
		return "sqlite:" + filepath.Join(dir, "bench.db"), func() { os.RemoveAll(dir) }, nil
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "bench_" + hex.EncodeToString(b[:])
	admin, err := sql.Open("pgx", pgURL)
	if err != nil {
		return "", nil, err
	}
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		admin.Close()
		return "", nil, err
	}
	u, err := url.Parse(pgURL)
	if err != nil {
		admin.Close()
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), func() {
		_, _ = admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`)
		admin.Close()
	}, nil
}

// benchConfig is serve's default configuration on the given database and
// key ring, listening on loopback ports the kernel picks.
func benchConfig(dbURL, keys string) (*config.Config, error) {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	cfg, finish := config.Bind(fs, func(string) string { return "" })
	if err := fs.Parse(nil); err != nil {
		return nil, err
	}
	cfg.Addr, cfg.MCPAddr = "127.0.0.1:0", "127.0.0.1:0"
	cfg.BaseURL, cfg.WebURL = "http://localhost", "http://localhost"
	cfg.DatabaseURL, cfg.SecretKeys = dbURL, keys
	cfg.WebhooksAllowHTTPLoopback = true
	if err := cfg.Resolve(finish()); err != nil {
		return nil, err
	}
	return cfg, nil
}
