package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/netip"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is an io.Writer safe to read while serve writes to it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// runCLI runs one non-serving command in process and returns its exit code
// and standard output.
func runCLI(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	p := &Program{Stdout: &out, Stderr: &errOut, Getenv: func(k string) string { return env[k] }, LookupFunc: fakeLookup}
	code := p.Run(context.Background(), args)
	return code, out.String(), errOut.String()
}

type server struct {
	base, mcp string
	stdout    *lockedBuffer
	stderr    *lockedBuffer
	stop      func() int
}

// startServe boots the real serve command on loopback ports chosen by the
// kernel, in the current directory unless env says otherwise.
func startServe(t *testing.T, env map[string]string, args ...string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s := &server{stdout: &lockedBuffer{}, stderr: &lockedBuffer{}}
	addrs := make(chan [2]string, 4)
	p := &Program{
		Stdout: s.stdout, Stderr: s.stderr, Getenv: func(k string) string { return env[k] },
		OnListen: func(name, addr string) { addrs <- [2]string{name, addr} },
	}
	done := make(chan int, 1)
	go func() {
		done <- p.Run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--mcp-addr", "127.0.0.1:0"}, args...))
	}()
	for s.base == "" || s.mcp == "" {
		select {
		case a := <-addrs:
			if a[0] == "base" {
				s.base = "http://" + a[1]
			} else if a[0] == "mcp" {
				s.mcp = "http://" + a[1]
			}
		case code := <-done:
			t.Fatalf("serve exited with %d before listening:\n%s", code, s.stderr.String())
		case <-time.After(20 * time.Second):
			t.Fatal("serve did not start listening")
		}
	}
	var once sync.Once
	code := -1
	s.stop = func() int {
		once.Do(func() {
			cancel()
			select {
			case code = <-done:
			case <-time.After(30 * time.Second):
				t.Error("serve did not stop")
			}
		})
		return code
	}
	t.Cleanup(func() { s.stop() })
	return s
}

func get(t *testing.T, url, key string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

var keyPattern = regexp.MustCompile(`sb_[0-9a-f]{64}`)

// TestServe_FreshMachine_EndToEnd is the foundation's "done means": a fresh
// directory, no configuration, a key printed once, 404/401 answers, and a
// revocation that applies at once.
func TestServe_FreshMachine_EndToEnd(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	srv := startServe(t, nil)

	out := srv.stdout.String()
	key := keyPattern.FindString(out)
	if key == "" || !strings.Contains(out, "will not be shown again") {
		t.Fatalf("no key printed on first start:\n%s", out)
	}
	info, err := os.Stat(filepath.Join(dir, "data", "secret.key"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("key file: %v, %v", info, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "data", "switchboard.db")); err != nil {
		t.Fatalf("database file: %v", err)
	}
	if !strings.Contains(srv.stderr.String(), "back it up") {
		t.Fatalf("no backup warning logged:\n%s", srv.stderr.String())
	}

	if code, body := get(t, srv.base+"/health", ""); code != 200 || strings.TrimSpace(body) != `{"data":{"status":"ok"}}` {
		t.Fatalf("health: %d %s", code, body)
	}
	if code, body := get(t, srv.base+"/v1/nothing", key); code != 404 || !strings.Contains(body, `"code":"NOT_FOUND"`) {
		t.Fatalf("with key: %d %s", code, body)
	}
	if code, body := get(t, srv.base+"/v1/nothing", ""); code != 401 || !strings.Contains(body, `"code":"UNAUTHORIZED"`) {
		t.Fatalf("without key: %d %s", code, body)
	}
	if code, _ := get(t, srv.mcp+"/v1/nothing", key); code != 404 {
		t.Fatalf("MCP host answered %d for a path it does not serve", code)
	}

	code, projects, _ := runCLI(t, nil, "admin", "project", "list", "--json")
	var ps []struct{ ID, Name string }
	if code != 0 || json.Unmarshal([]byte(projects), &ps) != nil || len(ps) != 1 || ps[0].Name != "default" {
		t.Fatalf("project list: %d %s", code, projects)
	}
	code, keys, _ := runCLI(t, nil, "admin", "key", "list", "--project", ps[0].ID, "--json")
	var ks []struct{ ID string }
	if code != 0 || json.Unmarshal([]byte(keys), &ks) != nil || len(ks) != 1 {
		t.Fatalf("key list: %d %s", code, keys)
	}
	if strings.Contains(keys, key) {
		t.Fatal("key list shows the key")
	}
	if code, _, stderr := runCLI(t, nil, "admin", "key", "revoke", ks[0].ID); code != 0 {
		t.Fatalf("revoke: %d %s", code, stderr)
	}
	// serve caches verified keys; a revocation by another process on the
	// SQLite file is seen at its next read of the change count (every
	// 100 ms, docs/design-notes.md), so it is refused within that bound.
	deadline := time.Now().Add(500 * time.Millisecond)
	for {
		code, body := get(t, srv.base+"/v1/nothing", key)
		if code == 401 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("revoked key still answered after 500 ms: %d %s", code, body)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if strings.Contains(srv.stderr.String(), key) {
		t.Fatal("the key appears in the log")
	}
	if code := srv.stop(); code != 0 {
		t.Fatalf("serve exited %d:\n%s", code, srv.stderr.String())
	}
	if !strings.Contains(srv.stderr.String(), `"msg":"stopped"`) {
		t.Fatalf("no graceful stop logged:\n%s", srv.stderr.String())
	}

	again := startServe(t, nil)
	if keyPattern.MatchString(again.stdout.String()) {
		t.Fatal("second start printed a key again")
	}
}

func TestServe_BadConfiguration_ExitsWithEveryProblem(t *testing.T) {
	t.Parallel()
	code, _, stderr := runCLI(t, map[string]string{"SWITCHBOARD_LOG_LEVEL": "loud", "SWITCHBOARD_DATABASE_URL": "mysql://x"}, "serve")
	if code != exitUsage || !strings.Contains(stderr, "log level") || !strings.Contains(stderr, "sqlite: or postgres://") {
		t.Fatalf("%d %s", code, stderr)
	}
}

// fakeLookup is the tests' DNS: *.example.com is a public address, anything
// else does not resolve. No test reaches the internet.
func fakeLookup(_ context.Context, host string) ([]netip.Addr, error) {
	if strings.HasSuffix(host, ".example.com") {
		return []netip.Addr{netip.MustParseAddr("93.184.215.14")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}
