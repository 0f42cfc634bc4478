package httpapi

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// slowBody sends a request whose body trickles in one byte at a time and
// returns the status the server answered with and when.
func slowBody(t *testing.T, srv *httptest.Server, path string) (int, time.Duration) {
	t.Helper()
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: sb.test\r\nContent-Type: application/json\r\nContent-Length: 10000\r\n\r\n{", path)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
				if _, err := conn.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%s: no answer within 5s: %v", path, err)
	}
	resp.Body.Close()
	return resp.StatusCode, time.Since(start)
}

// Finding 13: a body that trickles in is cut off after the body read
// timeout on the unauthenticated routes that take bodies.
func TestServer_SlowBodyIsCutOff(t *testing.T) {
	t.Parallel()
	f := setup(t)
	path := f.manualDeltaTrigger(t)
	token := f.link(t, `{"userId":"u1"}`)
	f.srv.bodyReadTimeout = 300 * time.Millisecond
	srv := httptest.NewServer(f.srv.Handler())
	t.Cleanup(srv.Close)
	for _, p := range []string{path, "/api/connect/" + token + "/accounts", "/api/connect/" + token + "/authorize"} {
		st, took := slowBody(t, srv, p)
		if st != 400 || took > 2*time.Second {
			t.Errorf("%s: %d after %v; want 400 soon after 300ms", p, st, took)
		}
	}
	// A body that arrives in time is untouched, and so is the connection's
	// next request: the deadline is lifted once the body is read.
	c := srv.Client()
	for range 2 {
		resp, err := c.Post(srv.URL+"/api/connect/"+token+"/accounts", "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 400 {
			t.Fatalf("prompt body: %d", resp.StatusCode)
		}
		time.Sleep(400 * time.Millisecond)
	}
}

// The deadline ends with the body: a handler that works longer than the
// body read timeout after reading its body keeps its context.
func TestServer_BodyDeadlineLiftedAfterBody(t *testing.T) {
	t.Parallel()
	s := New(Options{BodyReadTimeout: 100 * time.Millisecond})
	errc := make(chan error, 1)
	srv := httptest.NewServer(s.instrument(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, err := io.ReadAll(r.Body)
		if err == nil {
			select {
			case <-r.Context().Done():
				err = fmt.Errorf("context ended while the handler worked: %w", r.Context().Err())
			case <-time.After(400 * time.Millisecond):
			}
		}
		errc <- err
	})))
	t.Cleanup(srv.Close)
	resp, err := srv.Client().Post(srv.URL, "application/json", strings.NewReader(`{"a":1}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if err := <-errc; err != nil {
		t.Fatal(err)
	}
}
