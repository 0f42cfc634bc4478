package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The account resolution scenario (issue 24 #0): many users execute tools
// while connections are written now and then, over a large connections
// table. Run it with -only resolution; it is not part of the default run,
// since seeding a million rows takes a while.
var (
	resolutionRows     = flag.Int("resolution-rows", 100_000, "stored connections in the account resolution scenario (100000, 1000000)")
	resolutionUsers    = flag.Int("resolution-users", 1000, "users executing tools in the account resolution scenario")
	resolutionDuration = flag.Duration("resolution-duration", 10*time.Second, "how long each phase of the account resolution scenario runs")
	resolutionWrites   = flag.Duration("resolution-write-every", time.Second, "how often a connection is written during the second phase")
	resolutionRounds   = flag.Int("resolution-rounds", 3, "interleaved rounds of both phases in the account resolution scenario; medians are reported")
)

// resolutionName is the scenario's name for -only.
const resolutionName = "account resolution"

// Resolution is the account resolution scenario's result.
type Resolution struct {
	Rows        int     `json:"rows"`
	Users       int     `json:"users"`
	Concurrency int     `json:"concurrency"`
	SeedSeconds float64 `json:"seedSeconds"`
	Quiet       Result  `json:"withoutWrites"`
	Writing     Result  `json:"withWrites"`
	Writes      int64   `json:"writes"`
	// Ratio is throughput with writes over throughput without (goal: ≥ 0.9).
	Ratio float64 `json:"ratio"`
}

// measureResolution seeds the connections, then drives execute for random
// users at concurrency c, with no writes and with one connection write
// every -resolution-write-every, in interleaved rounds (a shared machine's
// noise then falls on both phases alike); the medians are reported.
func (s *stack) measureResolution(c int) (Resolution, error) {
	ctx := context.Background()
	r := Resolution{Rows: *resolutionRows, Users: *resolutionUsers, Concurrency: c}
	start := time.Now()
	ids, err := s.seedResolution(ctx, r.Users, r.Rows)
	if err != nil {
		return r, fmt.Errorf("seed %d connections: %w", r.Rows, err)
	}
	r.SeedSeconds = time.Since(start).Seconds()
	fmt.Printf("account resolution: seeded %d connections (%d users executing) in %.1fs; %d interleaved rounds of %s per phase follow\n", r.Rows, r.Users, r.SeedSeconds, max(1, *resolutionRounds), *resolutionDuration)

	req := func() *http.Request {
		u := rand.IntN(r.Users)
		return post(s.srv.baseURL()+"/v1/tools/execute", s.key,
			`{"toolId":"benchapi_create_item","userId":"ru`+strconv.Itoa(u)+`","input":`+itemInput+`}`)()
	}
	// Warm up: every user resolves once at least.
	for u := range r.Users {
		resp, err := s.fx.client.Do(post(s.srv.baseURL()+"/v1/tools/execute", s.key,
			`{"toolId":"benchapi_create_item","userId":"ru`+strconv.Itoa(u)+`","input":`+itemInput+`}`)())
		if err != nil {
			return r, err
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			return r, fmt.Errorf("warm-up execute for ru%d: status %d", u, resp.StatusCode)
		}
	}
	var quiet, writing []Result
	for range max(1, *resolutionRounds) {
		quiet = append(quiet, driveFor(s.fx.client, resolutionName+", no writes", req, *resolutionDuration, c))
		w, n, err := s.driveWhileWriting(req, ids, c)
		if err != nil {
			return r, err
		}
		writing = append(writing, w)
		r.Writes += n
		fmt.Printf("  round: %.0f req/s without writes, %.0f with (%d writes)\n", quiet[len(quiet)-1].RPS, w.RPS, n)
	}
	r.Quiet, r.Writing = median(quiet), median(writing)
	if r.Quiet.RPS > 0 {
		r.Ratio = r.Writing.RPS / r.Quiet.RPS
	}
	return r, nil
}

// driveWhileWriting is driveFor with a connection written every
// -resolution-write-every; it returns the result and the writes made.
func (s *stack) driveWhileWriting(req func() *http.Request, ids []string, c int) (Result, int64, error) {
	stop := make(chan struct{})
	var writes atomic.Int64
	var writeErr atomic.Value
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(*resolutionWrites)
		defer t.Stop()
		for {
			select {
			case <-stop:
				return
			case <-t.C:
			}
			// Rename a random executing user's account: a change resolution
			// sees, so that user's cached answer must go.
			id := ids[rand.IntN(len(ids))]
			body := `{"name":"renamed-` + strconv.Itoa(rand.IntN(1<<30)) + `"}`
			rq, _ := http.NewRequest("PATCH", s.srv.baseURL()+"/v1/connections/"+id, strings.NewReader(body))
			rq.Header.Set("Content-Type", "application/json")
			rq.Header.Set("Authorization", "Bearer "+s.key)
			resp, err := s.fx.client.Do(rq)
			if err != nil {
				writeErr.Store(err)
				continue
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				writeErr.Store(fmt.Errorf("rename %s: status %d", id, resp.StatusCode))
				continue
			}
			writes.Add(1)
		}
	})
	res := driveFor(s.fx.client, resolutionName+", 1 write/s", req, *resolutionDuration, c)
	close(stop)
	wg.Wait()
	if err, _ := writeErr.Load().(error); err != nil {
		return res, writes.Load(), err
	}
	return res, writes.Load(), nil
}

// median returns the result with the median throughput.
func median(rs []Result) Result {
	sorted := append([]Result(nil), rs...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].RPS < sorted[j].RPS })
	return sorted[len(sorted)/2]
}

// driveFor sends requests with c workers for d and measures them.
func driveFor(client *http.Client, name string, req func() *http.Request, d time.Duration, c int) Result {
	var mu sync.Mutex
	var lat []time.Duration
	var failed atomic.Int64
	deadline := time.Now().Add(d)
	start := time.Now()
	var wg sync.WaitGroup
	for range c {
		wg.Go(func() {
			var mine []time.Duration
			for time.Now().Before(deadline) {
				t0 := time.Now()
				resp, err := client.Do(req())
				if err != nil {
					failed.Add(1)
					continue
				}
				body, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				mine = append(mine, time.Since(t0))
				if resp.StatusCode != 200 || bytes.Contains(body, []byte(`"ok":false`)) {
					failed.Add(1)
				}
			}
			mu.Lock()
			lat = append(lat, mine...)
			mu.Unlock()
		})
	}
	wg.Wait()
	total := time.Since(start)
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	ms := func(q float64) float64 {
		if len(lat) == 0 {
			return 0
		}
		return float64(lat[int(q*float64(len(lat)-1))].Microseconds()) / 1000
	}
	return Result{Path: name, Concurrency: c, Requests: len(lat), Failed: failed.Load(),
		RPS: float64(len(lat)) / total.Seconds(), P50ms: ms(0.5), P99ms: ms(0.99)}
}

// seedResolution gives users ru0… one benchapi account each through the
// API, then fills the table up to rows with accounts of other users by
// bulk inserts straight into the database (seed.go). It returns the
// executing users' connection ids.
func (s *stack) seedResolution(ctx context.Context, users, rows int) ([]string, error) {
	begin := time.Now()
	ids := make([]string, users)
	var next atomic.Int64
	errs := make(chan error, 8)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for {
				u := int(next.Add(1) - 1)
				if u >= users {
					return
				}
				body, _ := json.Marshal(map[string]any{"connectorId": "benchapi", "userId": "ru" + strconv.Itoa(u),
					"credential": map[string]string{"type": "api_key", "apiKey": "provider-key"}})
				resp, err := s.fx.client.Do(post(s.srv.baseURL()+"/v1/connections", s.key, string(body))())
				if err != nil {
					errs <- err
					return
				}
				var out struct {
					Data struct{ ID string } `json:"data"`
				}
				err = json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 {
					errs <- fmt.Errorf("create account of ru%d: status %d %v", u, resp.StatusCode, err)
					return
				}
				ids[u] = out.Data.ID
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		return nil, err
	}
	fmt.Printf("account resolution: %d accounts through the API in %.1fs\n", users, time.Since(begin).Seconds())
	// The bench user's account is there too.
	return ids, s.seedConnections(ctx, rows-users-1)
}

func printResolution(r Resolution) {
	fmt.Printf("account resolution, %d connections, %d users, concurrency %d:\n", r.Rows, r.Users, r.Concurrency)
	fmt.Printf("  no writes:   %8.0f req/s  p50 %6.2f ms  p99 %6.2f ms  (%d failed)\n", r.Quiet.RPS, r.Quiet.P50ms, r.Quiet.P99ms, r.Quiet.Failed)
	fmt.Printf("  with writes: %8.0f req/s  p50 %6.2f ms  p99 %6.2f ms  (%d failed, %d writes)\n", r.Writing.RPS, r.Writing.P50ms, r.Writing.P99ms, r.Writing.Failed, r.Writes)
	fmt.Printf("  ratio:       %.2f (goal: at least 0.90)\n", r.Ratio)
}
