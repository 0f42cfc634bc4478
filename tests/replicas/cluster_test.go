package replicas

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// cluster is N `switchboard serve` processes of one binary on one
// PostgreSQL database, reached directly or through a round-robin balancer.
type cluster struct {
	t        *testing.T
	bin      string
	env      []string
	dir      string
	replicas []*replica
	lb       *balancer
}

// replica is one serve process on fixed loopback ports, so that a
// restart comes back where the balancer expects it.
type replica struct {
	name      string
	addr, mcp string // host:port
	logPath   string
	cmd       *exec.Cmd
	exited    chan struct{}
}

// base is the replica's own REST address.
func (r *replica) base() string { return "http://" + r.addr }

// buildBinary compiles cmd/switchboard once into dir.
func buildBinary(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "switchboard")
	start := time.Now()
	// Built without -race even when the test has it: race-built replicas
	// take twice as long to build and start, past this test's budget.
	cmd := exec.Command("go", "build", "-o", bin, "github.com/switchboard-gw/switchboard/cmd/switchboard")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Logf("built the binary in %v", time.Since(start).Round(time.Millisecond))
	return bin
}

// freeAddr returns a loopback address nobody listens on right now.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// newCluster prepares n replicas (not started) behind a balancer whose URL
// is every replica's public base URL.
func newCluster(t *testing.T, bin string, n int, env []string) *cluster {
	t.Helper()
	c := &cluster{t: t, bin: bin, dir: t.TempDir()}
	c.lb = newBalancer(t)
	c.env = append(env, "SWITCHBOARD_BASE_URL="+c.lb.URL(), "SWITCHBOARD_LOG_FORMAT=json")
	for i := range n {
		r := &replica{name: fmt.Sprintf("r%d", i), addr: freeAddr(t), mcp: freeAddr(t)}
		r.logPath = filepath.Join(c.dir, r.name+".log")
		c.replicas = append(c.replicas, r)
		c.lb.add(r.base())
	}
	t.Cleanup(func() {
		for _, r := range c.replicas {
			c.kill(r)
		}
		if t.Failed() {
			for _, r := range c.replicas {
				b, _ := os.ReadFile(r.logPath)
				t.Logf("log of %s (last 4 KB):\n%s", r.name, tail(b, 4096))
			}
		}
	})
	return c
}

func tail(b []byte, n int) []byte {
	if len(b) > n {
		return b[len(b)-n:]
	}
	return b
}

// admin runs one admin command of the binary against the cluster's
// database and returns its standard output.
func (c *cluster) admin(stdin string, args ...string) string {
	c.t.Helper()
	cmd := exec.Command(c.bin, append([]string{"admin"}, args...)...)
	cmd.Env = c.env
	cmd.Stdin = strings.NewReader(stdin)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		c.t.Fatalf("admin %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.String()
}

// adminJSON runs an admin command with --json and decodes its answer.
func (c *cluster) adminJSON(v any, stdin string, args ...string) {
	c.t.Helper()
	out := c.admin(stdin, append(args, "--json")...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		c.t.Fatalf("admin %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// start launches the replica's process and waits until /health answers.
func (c *cluster) start(r *replica) {
	c.t.Helper()
	errs := make(chan string, 1)
	c.launch(r, errs)
	close(errs)
	for e := range errs {
		c.t.Fatal(e)
	}
}

// startAll starts every replica at once, as a deployment would.
func (c *cluster) startAll() {
	c.t.Helper()
	var wg sync.WaitGroup
	errs := make(chan string, len(c.replicas))
	for _, r := range c.replicas {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.launch(r, errs)
		}()
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		c.t.Fatal(e)
	}
}

// launch starts the process and waits until it is healthy; it reports a
// failure on errs rather than with t.Fatal, so that goroutines may call it.
func (c *cluster) launch(r *replica, errs chan<- string) {
	logf, err := os.OpenFile(r.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		errs <- err.Error()
		return
	}
	cmd := exec.Command(c.bin, "serve", "--addr", r.addr, "--mcp-addr", r.mcp)
	cmd.Env = c.env
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		logf.Close()
		errs <- fmt.Sprintf("start %s: %v", r.name, err)
		return
	}
	r.cmd, r.exited = cmd, make(chan struct{})
	go func() {
		_ = cmd.Wait()
		logf.Close()
		close(r.exited)
	}()
	if err := waitHealthy(r, 30*time.Second); err != nil {
		errs <- err.Error()
	}
}

// waitHealthy polls the replica's /health until it answers 200, the
// process exits, or timeout passes.
func waitHealthy(r *replica, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		resp, err := http.Get(r.base() + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		select {
		case <-r.exited:
			b, _ := os.ReadFile(r.logPath)
			return fmt.Errorf("%s exited before it was healthy:\n%s", r.name, tail(b, 4096))
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not healthy within %v (last error %v)", r.name, timeout, err)
		}
	}
}

// kill ends the replica's process with SIGKILL: no shutdown, no cleanup,
// as when a host dies.
func (c *cluster) kill(r *replica) {
	if r.cmd == nil || r.cmd.Process == nil {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-r.exited:
	case <-time.After(10 * time.Second):
		c.t.Errorf("%s did not die", r.name)
	}
	r.cmd = nil
}

// call is one HTTP exchange with a JSON answer.
type call struct {
	status int
	body   []byte
	header http.Header
}

// code is the answer's error code, if any.
func (a call) code() string {
	var e struct {
		Error struct{ Code string } `json:"error"`
	}
	_ = json.Unmarshal(a.body, &e)
	return e.Error.Code
}

// decode reads the answer's JSON into v.
func (a call) decode(t *testing.T, v any) {
	t.Helper()
	if err := json.Unmarshal(a.body, v); err != nil {
		t.Fatalf("decode %s: %v", a.body, err)
	}
}

// client sends requests with one API key.
type client struct {
	t   *testing.T
	key string
	hc  *http.Client
}

// do sends method url with body (JSON unless nil) and extra headers as
// name, value pairs. It never calls t.Fatal, so goroutines may use it;
// a transport error is reported as status 0 with the error as body.
func (c client) do(ctx context.Context, method, url string, body []byte, header ...string) call {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return call{body: []byte(err.Error())}
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return call{body: []byte(err.Error())}
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return call{status: resp.StatusCode, body: b, header: resp.Header}
}

// must sends a request and fails the test unless the status is want.
func (c client) must(want int, method, url string, body any, header ...string) call {
	c.t.Helper()
	var b []byte
	if body != nil {
		var err error
		if b, err = json.Marshal(body); err != nil {
			c.t.Fatal(err)
		}
	}
	a := c.do(context.Background(), method, url, b, header...)
	if a.status != want {
		c.t.Fatalf("%s %s: %d, want %d: %s", method, url, a.status, want, a.body)
	}
	return a
}
