package replicas

import (
	"bytes"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// balancer is a small round-robin HTTP load balancer on loopback. A
// backend that refuses the connection (a replica that is down) is skipped
// for the next one, as a real balancer's health check would; any other
// failure is answered 502.
type balancer struct {
	srv      *httptest.Server
	mu       sync.Mutex
	backends []string
	hits     []atomic.Int64
	next     atomic.Uint64
	rt       http.RoundTripper
}

func newBalancer(t *testing.T) *balancer {
	b := &balancer{hits: make([]atomic.Int64, 8)}
	b.rt = &http.Transport{MaxIdleConnsPerHost: 64, DisableCompression: true}
	b.srv = httptest.NewServer(http.HandlerFunc(b.serve))
	t.Cleanup(b.srv.Close)
	return b
}

// URL is the balancer's address, every replica's public base URL.
func (b *balancer) URL() string { return b.srv.URL }

func (b *balancer) add(backend string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.backends = append(b.backends, backend)
}

// spread is how many requests each backend answered.
func (b *balancer) spread() []int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := make([]int64, len(b.backends))
	for i := range out {
		out[i] = b.hits[i].Load()
	}
	return out
}

func (b *balancer) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	b.mu.Lock()
	backends := b.backends
	b.mu.Unlock()
	first := int(b.next.Add(1) % uint64(len(backends)))
	for i := range backends {
		n := (first + i) % len(backends)
		out, err := http.NewRequestWithContext(r.Context(), r.Method, backends[n]+r.URL.RequestURI(), bytes.NewReader(body))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		out.Header = r.Header.Clone()
		resp, err := b.rt.RoundTrip(out)
		if errors.Is(err, syscall.ECONNREFUSED) {
			continue
		}
		var op *net.OpError
		if errors.As(err, &op) && op.Op == "dial" {
			continue
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		b.hits[n].Add(1)
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		_, _ = io.Copy(w, resp.Body)
		resp.Body.Close()
		return
	}
	http.Error(w, "no backend up", http.StatusBadGateway)
}
