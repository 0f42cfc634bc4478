package main

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

const itemInput = `{"name":"benchmark item","tags":["alpha","beta"],"count":3}`

// Path names, which budgets and the scale run refer to.
const (
	pathDirect      = "direct (fake provider)"
	pathExecute     = "execute"
	pathBare        = "bare reverse proxy"
	pathProxy       = "proxy"
	pathSessionREST = "session execute (REST)"
	pathSessionMCP  = "session tools/call (MCP)"
	pathEndpointMCP = "endpoint tools/call (MCP)"
	pathToolsList   = "MCP tools/list, 1000 tools"
	pathSearch      = "search_actions, whole catalog"
)

// path is one measured request shape; req builds a fresh request each
// time, and ok says whether an answer's body is a success.
type path struct {
	name string
	req  func() *http.Request
	ok   func([]byte) bool
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

// reachedProvider is a success that carries the fake provider's item: the
// call went all the way and back.
func reachedProvider(b []byte) bool {
	return bytes.Contains(b, []byte("itm_123")) && !bytes.Contains(b, []byte(`"isError":true`)) &&
		!bytes.Contains(b, []byte(`"ok":false`))
}

// mcpResult is a JSON-RPC answer with a result and no tool error.
func mcpResult(b []byte) bool {
	return bytes.Contains(b, []byte(`"result"`)) && !bytes.Contains(b, []byte(`"isError":true`))
}

func anyBody([]byte) bool { return true }

// paths are the measured paths of a stack; the full stack has them all.
func (s *stack) paths() []path {
	f := s.fx
	mcpCall := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"switchboard_execute","arguments":{"action":"benchapi_create_item","input":` + itemInput + `}}}`
	endpointCall := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"benchapi_create_item","arguments":` + itemInput + `}}`
	api := s.srv.baseURL()
	ps := []path{
		{pathDirect, post(f.provider.URL+"/api/items", "provider-key", itemInput), reachedProvider},
		{pathExecute, post(api+"/v1/tools/execute", s.key, `{"toolId":"benchapi_create_item","userId":"bench","input":`+itemInput+`}`), reachedProvider},
		{pathBare, post(f.rproxy.URL+"/api/items", "provider-key", itemInput), reachedProvider},
		{pathProxy, post(api+"/v1/tools/proxy", s.key, `{"connectorId":"benchapi","userId":"bench","endpoint":"/items","method":"POST","body":`+itemInput+`}`), reachedProvider},
		{pathSessionREST, post(api+"/v1/sessions/"+s.sessionID+"/tools/switchboard_execute", s.key,
			`{"arguments":{"action":"benchapi_create_item","input":`+itemInput+`}}`), reachedProvider},
		{pathSessionMCP, post(api+"/v1/sessions/"+s.sessionID+"/mcp", s.key, mcpCall), func(b []byte) bool { return mcpResult(b) && reachedProvider(b) }},
		{pathEndpointMCP, post(s.srv.mcpURL()+"/bench-items/bench", s.key, endpointCall), func(b []byte) bool { return mcpResult(b) && reachedProvider(b) }},
	}
	if s.searchID != "" {
		ps = append(ps,
			path{pathToolsList, post(s.srv.mcpURL()+"/bulk-all/bench", s.key, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`),
				func(b []byte) bool { return bytes.Count(b, []byte(`"name":"bulk_get_item_`)) == 1000 }},
			path{pathSearch, post(api+"/v1/sessions/"+s.searchID+"/tools/switchboard_search_actions", s.key,
				`{"arguments":{"queries":["open a bug in our repository"]}}`), anyBody})
	}
	return ps
}

// Result is one path at one concurrency: the medians over the passes.
type Result struct {
	Path        string  `json:"path"`
	Concurrency int     `json:"concurrency"`
	Requests    int     `json:"requestsPerPass"`
	Failed      int64   `json:"failed"`
	RPS         float64 `json:"requestsPerSecond"`
	P50ms       float64 `json:"p50Ms"`
	P99ms       float64 `json:"p99Ms"`
	Passes      []Pass  `json:"passes,omitempty"`
}

// Pass is one measured pass of a path at one concurrency.
type Pass struct {
	RPS    float64 `json:"requestsPerSecond"`
	P50ms  float64 `json:"p50Ms"`
	P99ms  float64 `json:"p99Ms"`
	Failed int64   `json:"failed"`
}

// drive sends n requests with c workers and returns their latencies, the
// failures and the wall time.
func drive(client *http.Client, p path, n, c int) ([]time.Duration, int64, time.Duration) {
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
				resp, err := client.Do(p.req())
				if err != nil {
					lat[i] = time.Since(t0)
					failed.Add(1)
					continue
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				lat[i] = time.Since(t0)
				if resp.StatusCode != 200 || !p.ok(body) {
					failed.Add(1)
				}
			}
		})
	}
	wg.Wait()
	return lat, failed.Load(), time.Since(start)
}

// measure runs one pass.
func measure(client *http.Client, p path, n, c int) Pass {
	lat, failed, total := drive(client, p, n, c)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	return Pass{RPS: float64(n) / total.Seconds(), P50ms: ms(lat[n/2]), P99ms: ms(lat[n*99/100]), Failed: failed}
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// summarize turns passes into a Result of their medians (each figure's
// own median) and the failures of all passes.
func summarize(name string, c, n int, passes []Pass) Result {
	r := Result{Path: name, Concurrency: c, Requests: n, Passes: passes}
	var rps, p50, p99 []float64
	for _, p := range passes {
		rps, p50, p99 = append(rps, p.RPS), append(p50, p.P50ms), append(p99, p.P99ms)
		r.Failed += p.Failed
	}
	r.RPS, r.P50ms, r.P99ms = medianOf(rps), medianOf(p50), medianOf(p99)
	return r
}

// medianOf is the median (the mean of the middle two for an even count).
func medianOf(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// Ingress is the trigger ingress measurement: signed GitHub events posted
// at concurrency, timed until every resulting webhook delivery was
// received and verified. The figures are medians over the passes.
type Ingress struct {
	Events          int           `json:"eventsPerPass"`
	Concurrency     int           `json:"concurrency"`
	Failed          int64         `json:"failedPosts"`
	Lost            int64         `json:"lost"`
	EventsPerSecond float64       `json:"eventsPerSecond"`
	Passes          []IngressPass `json:"passes,omitempty"`
}

// IngressPass is one pass of the ingress measurement.
type IngressPass struct {
	Failed          int64   `json:"failedPosts"`
	Delivered       int64   `json:"delivered"`
	Seconds         float64 `json:"seconds"`
	EventsPerSecond float64 `json:"eventsPerSecond"`
}

// ingressPerTrigger keeps each trigger under its 600 events a minute.
const ingressPerTrigger = 500

// ingress sends n events at concurrency c and waits for their deliveries.
func (s *stack) ingress(n, c int) IngressPass {
	body := []byte(`{"action":"opened","issue":{"number":1,"title":"benchmark issue"},"repository":{"full_name":"acme/app"}}`)
	m := hmac.New(sha256.New, []byte(s.ghSecret))
	m.Write(body)
	sig := "sha256=" + hex.EncodeToString(m.Sum(nil))
	first := s.ingressUsed
	s.ingressUsed += n
	var seq atomic.Int64
	req := func() *http.Request {
		i := first + int(seq.Add(1)) - 1
		p := s.ingressPaths[(i/ingressPerTrigger)%len(s.ingressPaths)]
		r, _ := http.NewRequest("POST", s.srv.baseURL()+p, bytes.NewReader(body))
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set("X-GitHub-Event", "issues")
		r.Header.Set("X-GitHub-Delivery", "bench-"+strconv.Itoa(i))
		r.Header.Set("X-Hub-Signature-256", sig)
		return r
	}
	before := s.fx.received.Load()
	start := time.Now()
	_, failed, _ := drive(s.fx.client, path{"trigger ingress", req, anyBody}, n, c)
	want := before + int64(n) - failed
	deadline := time.Now().Add(60 * time.Second)
	for s.fx.received.Load() < want && time.Now().Before(deadline) {
		time.Sleep(2 * time.Millisecond)
	}
	took := time.Since(start)
	got := s.fx.received.Load() - before
	return IngressPass{Failed: failed, Delivered: got, Seconds: took.Seconds(), EventsPerSecond: float64(got) / took.Seconds()}
}

func summarizeIngress(n, c int, passes []IngressPass) Ingress {
	in := Ingress{Events: n, Concurrency: c, Passes: passes}
	var eps []float64
	for _, p := range passes {
		eps = append(eps, p.EventsPerSecond)
		in.Failed += p.Failed
		in.Lost += int64(n) - p.Delivered
	}
	in.EventsPerSecond = medianOf(eps)
	return in
}
