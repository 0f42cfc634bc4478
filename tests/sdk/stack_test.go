// Package sdk tests the clients under clients/ and the programs under
// examples/ against a real `switchboard serve` on SQLite: it builds the
// binary and the examples, starts examples/fake-provider as the third-party
// API, imports it as a connector of a fresh project per client, and runs
// the Go client's scenario in process, the TypeScript SDK's tests with
// node and the Python SDK's tests with python3.
package sdk

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// providerKey is the API key the fake provider wants.
const providerKey = "tasks-secret"

// stack is a running serve with the fake provider, shared by the subtests.
type stack struct {
	t        *testing.T
	root     string // the repository
	bin      string // the folder of the built programs
	base     string // serve's base URL
	provider string // the fake provider's base URL
	env      []string
}

// project is one project of the stack with its API key and the tools the
// import made, as the environment the SDK tests read.
type project struct {
	id, key string
	// tools maps an operation (create, get, list) to its tool id.
	tools map[string]string
}

// sdkEnv is what every SDK test run is told about the stack.
func (s *stack) sdkEnv(p project) []string {
	return append(os.Environ(),
		"SB_URL="+s.base, "SB_KEY="+p.key, "SB_CONNECTOR=tasks", "SB_PROVIDER_KEY="+providerKey,
		"SB_TOOL_CREATE="+p.tools["create"], "SB_TOOL_GET="+p.tools["get"], "SB_GITHUB_AUTH=github_api_key")
}

// startStack builds the programs, starts the fake provider and serve, and
// stops them when the test ends.
func startStack(t *testing.T) *stack {
	t.Helper()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	s := &stack{t: t, root: root, bin: t.TempDir()}
	start := time.Now()
	// Without -race even when the test has it: the processes are the
	// subject here, not the test's own goroutines.
	build := exec.Command("go", "build", "-o", s.bin+string(filepath.Separator), "./cmd/switchboard", "./examples/...")
	build.Dir = root
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	t.Logf("built serve and the examples in %v", time.Since(start).Round(time.Millisecond))

	fp := s.startProcess("fake-provider", nil, "-addr", "127.0.0.1:0", "-key", providerKey)
	s.provider = strings.TrimPrefix(fp.firstLine(t, "fake-provider listening on "), "fake-provider listening on ")

	var ring [32]byte
	_, _ = rand.Read(ring[:])
	addr := freeAddr(t)
	s.base = "http://" + addr
	s.env = append(os.Environ(),
		"SWITCHBOARD_DATABASE_URL=sqlite:"+filepath.Join(t.TempDir(), "switchboard.db"),
		"SWITCHBOARD_SECRET_KEYS=k1:"+base64.StdEncoding.EncodeToString(ring[:]),
		"SWITCHBOARD_ADDR="+addr, "SWITCHBOARD_BASE_URL="+s.base,
		// The fake provider and the example webhook receivers are on loopback.
		"SWITCHBOARD_OUTBOUND_ALLOW=connectors=127.0.0.0/8,webhooks=127.0.0.0/8",
		"SWITCHBOARD_WEBHOOKS_ALLOW_HTTP_LOOPBACK=true",
		"SWITCHBOARD_LOG_LEVEL=warn")
	s.startProcess("switchboard", s.env, "serve")
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.base + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not answer /health in 30s: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return s
}

// newProject creates a project with an API key, the fake provider imported
// as connector "tasks" with an API key auth config, and an API key auth
// config for the built-in github connector (for triggers).
func (s *stack) newProject(t *testing.T, name string) project {
	t.Helper()
	var proj struct{ ID string }
	s.adminJSON(t, &proj, "project", "create", name)
	var key struct{ Key string }
	s.adminJSON(t, &key, "key", "create", "--project", proj.ID, "--name", "sdk")
	doc := filepath.Join(t.TempDir(), "tasks.yaml")
	resp, err := http.Get(s.provider + "/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err := os.WriteFile(doc, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	var imp struct {
		Changes struct{ Added []string } `json:"changes"`
	}
	s.adminJSON(t, &imp, "openapi", "import", "--project", proj.ID, "--id", "tasks", doc)
	p := project{id: proj.ID, key: key.Key, tools: map[string]string{}}
	for _, id := range imp.Changes.Added {
		for _, op := range []string{"create", "get", "list"} {
			if strings.HasPrefix(id, "tasks_"+op+"_") {
				p.tools[op] = id
			}
		}
	}
	if len(p.tools) != 3 {
		t.Fatalf("import made %v", imp.Changes.Added)
	}
	s.admin(t, "authconfig", "create", "--project", proj.ID, "--connector", "tasks", "--type", "api_key", "--key", "tasks_key")
	s.admin(t, "authconfig", "create", "--project", proj.ID, "--connector", "github", "--type", "api_key", "--key", "github_api_key")
	return p
}

// admin runs one admin command against the stack's database.
func (s *stack) admin(t *testing.T, args ...string) []byte {
	t.Helper()
	cmd := exec.Command(filepath.Join(s.bin, "switchboard"), append([]string{"admin"}, args...)...)
	cmd.Env = s.env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		t.Fatalf("admin %s: %v\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.Bytes()
}

func (s *stack) adminJSON(t *testing.T, v any, args ...string) {
	t.Helper()
	out := s.admin(t, append(args, "--json")...)
	if err := json.Unmarshal(out, v); err != nil {
		t.Fatalf("admin %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// process is a started program whose output lines are collected.
type process struct {
	name  string
	cmd   *exec.Cmd
	mu    sync.Mutex
	lines []string
	more  chan struct{} // signalled on each new line
	done  chan struct{}
	log   bytes.Buffer
}

// startProcess starts one of the built programs; it is stopped (SIGKILL)
// when the test ends, and its output is logged if the test failed.
func (s *stack) startProcess(name string, env []string, args ...string) *process {
	s.t.Helper()
	return startIn(s.t, filepath.Join(s.bin, name), env, args...)
}

func startIn(t *testing.T, path string, env []string, args ...string) *process {
	t.Helper()
	p := &process{name: filepath.Base(path), cmd: exec.Command(path, args...), more: make(chan struct{}, 1), done: make(chan struct{})}
	p.cmd.Env = env
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p.cmd.Stderr = &syncWriter{p: p}
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", p.name, err)
	}
	go func() {
		defer close(p.done)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			p.mu.Lock()
			p.lines = append(p.lines, sc.Text())
			p.mu.Unlock()
			select {
			case p.more <- struct{}{}:
			default:
			}
		}
		_ = p.cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = p.cmd.Process.Kill()
		<-p.done
		if t.Failed() {
			p.mu.Lock()
			// serve's standard output can hold the first API key of a
			// fresh database; only its standard error is shown.
			stdout := strings.Join(p.lines, "\n")
			if p.name == "switchboard" {
				stdout = "(not shown)"
			}
			t.Logf("%s output:\n%s\n%s", p.name, stdout, p.log.String())
			p.mu.Unlock()
		}
	})
	return p
}

// syncWriter collects a process's standard error.
type syncWriter struct{ p *process }

func (w *syncWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	defer w.p.mu.Unlock()
	return w.p.log.Write(b)
}

// waitLine waits up to 30s for an output line starting with prefix and
// returns it.
func (p *process) waitLine(t *testing.T, prefix string) string {
	t.Helper()
	timeout := time.After(30 * time.Second)
	seen := 0
	for {
		p.mu.Lock()
		for ; seen < len(p.lines); seen++ {
			if strings.HasPrefix(p.lines[seen], prefix) {
				l := p.lines[seen]
				p.mu.Unlock()
				return l
			}
		}
		p.mu.Unlock()
		select {
		case <-p.more:
		case <-p.done:
			p.mu.Lock()
			for ; seen < len(p.lines); seen++ {
				if strings.HasPrefix(p.lines[seen], prefix) {
					l := p.lines[seen]
					p.mu.Unlock()
					return l
				}
			}
			p.mu.Unlock()
			t.Fatalf("%s ended without printing %q: %s", p.name, prefix, p.log.String())
		case <-timeout:
			t.Fatalf("%s printed no %q in 30s", p.name, prefix)
		}
	}
}

// firstLine is waitLine for a program's greeting.
func (p *process) firstLine(t *testing.T, prefix string) string { return p.waitLine(t, prefix) }

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

// run runs a command in dir with env and returns its combined output,
// failing the test when it exits non-zero.
func run(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return string(out)
}

// mustf is a shorthand for checks in scenarios.
func mustf(t *testing.T, ok bool, format string, args ...any) {
	t.Helper()
	if !ok {
		t.Fatalf(format, args...)
	}
}

// errTooOld says a python3 was found but is older than the SDK supports.
var errTooOld = errors.New("python3 is older than 3.9")
