package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// buildBinary compiles cmd/switchboard into dir, as an operator would
// build it from the tree.
func buildBinary(dir string) (string, error) {
	bin := filepath.Join(dir, "switchboard")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/switchboard-gw/switchboard/cmd/switchboard")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build: %w\n%s", err, out)
	}
	return bin, nil
}

// server is one `switchboard serve` process, configured only through its
// documented SWITCHBOARD_* variables, with its log in a file.
type server struct {
	bin     string
	env     []string
	addr    string // REST listener, host:port
	mcpAddr string // MCP listener, host:port
	logPath string
	cmd     *exec.Cmd
	exited  chan struct{}
	// maxRSS is the largest VmRSS sampled while the sampler runs, in KiB.
	maxRSS       atomic.Int64
	stopSampling chan struct{}
}

// newServer prepares a serve process (not started) on free loopback ports.
// env holds the settings beyond the listeners and the public URLs.
func newServer(bin, dir string, env []string) (*server, error) {
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	mcpAddr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	s := &server{bin: bin, addr: addr, mcpAddr: mcpAddr, logPath: filepath.Join(dir, "serve.log")}
	// Only what is set here reaches the process: no SWITCHBOARD_* of the
	// caller's environment leaks in.
	s.env = append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + dir,
		"SWITCHBOARD_ADDR=" + addr,
		"SWITCHBOARD_MCP_ADDR=" + mcpAddr,
		"SWITCHBOARD_BASE_URL=http://" + addr,
		"SWITCHBOARD_MCP_URL=http://" + mcpAddr,
		"SWITCHBOARD_LOG_FORMAT=json",
	}, env...)
	return s, nil
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}

func (s *server) baseURL() string { return "http://" + s.addr }
func (s *server) mcpURL() string  { return "http://" + s.mcpAddr }

// migrate makes or updates the server's database, as an operator does
// before the first admin command (admin commands never create one).
func (s *server) migrate() error {
	cmd := exec.Command(s.bin, "migrate")
	cmd.Env = s.env
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("migrate: %w\n%s", err, errOut.String())
	}
	return nil
}

// admin runs one admin command of the binary on the server's database
// and settings, and returns its standard output.
func (s *server) admin(args ...string) ([]byte, error) {
	cmd := exec.Command(s.bin, append([]string{"admin"}, args...)...)
	cmd.Env = s.env
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("admin %s: %w\n%s", strings.Join(args, " "), err, errOut.String())
	}
	return out.Bytes(), nil
}

// adminJSON runs an admin command with --json and decodes its output.
func (s *server) adminJSON(v any, args ...string) error {
	out, err := s.admin(append(args, "--json")...)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(out, v); err != nil {
		return fmt.Errorf("admin %s: %w: %s", strings.Join(args, " "), err, out)
	}
	return nil
}

// start launches serve and waits until /health answers 200.
func (s *server) start() error {
	logf, err := os.OpenFile(s.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	s.cmd = exec.Command(s.bin, "serve")
	s.cmd.Env = s.env
	s.cmd.Stdout, s.cmd.Stderr = logf, logf
	if err := s.cmd.Start(); err != nil {
		logf.Close()
		return err
	}
	s.exited = make(chan struct{})
	go func() {
		_ = s.cmd.Wait()
		logf.Close()
		close(s.exited)
	}()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(s.baseURL() + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		select {
		case <-s.exited:
			return fmt.Errorf("serve exited before it was healthy; its log: %s\n%s", s.logPath, s.logTail(2048))
		case <-time.After(50 * time.Millisecond):
		}
	}
	return fmt.Errorf("serve was not healthy within a minute; its log: %s", s.logPath)
}

func (s *server) logTail(n int) string {
	b, _ := os.ReadFile(s.logPath)
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// stop ends serve with SIGTERM (a graceful shutdown), or SIGKILL after 30s.
func (s *server) stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	s.stopSampler()
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
}

// alive reports whether the process still runs.
func (s *server) alive() bool {
	select {
	case <-s.exited:
		return false
	default:
		return true
	}
}

// memory reads VmRSS and VmHWM (KiB) of the process from /proc.
func (s *server) memory() (rss, hwm int64, err error) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		field := strings.Fields(v)
		if len(field) == 0 {
			continue
		}
		switch k {
		case "VmRSS":
			rss, _ = strconv.ParseInt(field[0], 10, 64)
		case "VmHWM":
			hwm, _ = strconv.ParseInt(field[0], 10, 64)
		}
	}
	if rss == 0 {
		return 0, 0, errors.New("no VmRSS in /proc status")
	}
	return rss, hwm, sc.Err()
}

// sampleRSS records the largest VmRSS every 100 ms until stopSampler.
func (s *server) sampleRSS() {
	s.stopSampling = make(chan struct{})
	stop := s.stopSampling
	go func() {
		t := time.NewTicker(100 * time.Millisecond)
		defer t.Stop()
		for {
			if rss, _, err := s.memory(); err == nil && rss > s.maxRSS.Load() {
				s.maxRSS.Store(rss)
			}
			select {
			case <-stop:
				return
			case <-t.C:
			}
		}
	}()
}

func (s *server) stopSampler() {
	if s.stopSampling != nil {
		close(s.stopSampling)
		s.stopSampling = nil
	}
}
