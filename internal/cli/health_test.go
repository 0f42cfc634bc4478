package cli

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestHealth_ExitCodeFollowsTheServersAnswer holds the container health
// check to /health: 0 only for 200 with status "ok", 1 for anything else
// (503, another body, nothing listening), 2 for a bad command line.
func TestHealth_ExitCodeFollowsTheServersAnswer(t *testing.T) {
	t.Parallel()
	answer := func(status int, body string) string {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/health" || r.Method != http.MethodGet {
				http.NotFound(w, r)
				return
			}
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(status)
			_, _ = w.Write([]byte(body))
		}))
		t.Cleanup(srv.Close)
		return srv.URL + "/health"
	}
	// An address nothing listens on: bind, note it, close.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/health"
	ln.Close()

	cases := []struct {
		name    string
		args    []string
		code    int
		errPart string
	}{
		{"ok", []string{"--url", answer(200, `{"data":{"status":"ok"}}`)}, 0, ""},
		{"database down", []string{"--url", answer(503, `{"data":{"status":"unavailable","database":"unreachable"}}`)}, 1, "503"},
		{"200 but not ok", []string{"--url", answer(200, `{"data":{"status":"starting"}}`)}, 1, `"starting"`},
		{"200 not JSON", []string{"--url", answer(200, `<html>proxy page</html>`)}, 1, "not the health answer"},
		{"wrong path", []string{"--url", strings.TrimSuffix(answer(200, `{}`), "/health") + "/nope"}, 1, "404"},
		{"nothing listening", []string{"--url", closed, "--timeout", "2s"}, 1, "does not answer"},
		{"not a URL", []string{"--url", "localhost:8080"}, 2, "http://"},
		{"positional", []string{"extra"}, 2, "usage"},
		{"bad timeout", []string{"--timeout", "0s"}, 2, "timeout"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runCLI(t, nil, append([]string{"health"}, tc.args...)...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d\nstdout: %s\nstderr: %s", code, tc.code, out, errOut)
			}
			if tc.code == 0 && strings.TrimSpace(out) != "ok" {
				t.Fatalf("stdout %q, want ok", out)
			}
			if !strings.Contains(errOut, tc.errPart) {
				t.Fatalf("stderr %q does not say %q", errOut, tc.errPart)
			}
		})
	}
}

// TestHealth_DefaultURLFromListenAddress: in a container the check runs
// with the server's own environment, so without --url it asks loopback on
// the port of SWITCHBOARD_ADDR (a wildcard or empty host means loopback).
func TestHealth_DefaultURLFromListenAddress(t *testing.T) {
	t.Parallel()
	cases := []struct{ addr, want string }{
		{"", "http://127.0.0.1:8080/health"},
		{":9090", "http://127.0.0.1:9090/health"},
		{"0.0.0.0:7000", "http://127.0.0.1:7000/health"},
		{"[::]:7001", "http://127.0.0.1:7001/health"},
		{"127.0.0.2:7002", "http://127.0.0.2:7002/health"},
		{"[::1]:7003", "http://[::1]:7003/health"},
	}
	for _, tc := range cases {
		if got := defaultHealthURL(tc.addr); got != tc.want {
			t.Errorf("defaultHealthURL(%q) = %q, want %q", tc.addr, got, tc.want)
		}
	}
}

// TestHealth_AgainstRealServe runs the check the image's HEALTHCHECK runs
// against the real serve, reached through SWITCHBOARD_ADDR alone.
func TestHealth_AgainstRealServe(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	srv := startServe(t, nil)
	addr := strings.TrimPrefix(srv.base, "http://")
	code, out, errOut := runCLI(t, map[string]string{"SWITCHBOARD_ADDR": addr}, "health")
	if code != 0 || strings.TrimSpace(out) != "ok" {
		t.Fatalf("health against serve: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	srv.stop()
	if code, _, errOut := runCLI(t, map[string]string{"SWITCHBOARD_ADDR": addr}, "health", "--timeout", "2s"); code != 1 {
		t.Fatalf("health after serve stopped: exit %d, want 1 (stderr %q)", code, errOut)
	}
}
