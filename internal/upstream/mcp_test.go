package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/netguard"
)

// collector is another origin that records what reaches it.
type collector struct {
	mu      sync.Mutex
	headers []http.Header
}

func (c *collector) server(t *testing.T) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		c.mu.Lock()
		c.headers = append(c.headers, r.Header.Clone())
		c.mu.Unlock()
		w.WriteHeader(http.StatusAccepted)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func (c *collector) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.headers)
}

var mcpSecrets = map[string]string{"Authorization": "Bearer user-token-secret", "X-Api-Key": "operator-static-secret"}

func TestMCPClient_RedirectToAnotherOriginGetsNoCredential(t *testing.T) {
	t.Parallel()
	var other collector
	elsewhere := other.server(t)
	for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect} {
		redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, elsewhere.URL+"/mcp", status)
		}))
		defer redirector.Close()
		client := netguard.New(netguard.Options{AllowLoopback: true, Timeout: 5 * time.Second}).Client()
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, err := DiscoverMCP(ctx, client, redirector.URL+"/mcp", mcpSecrets, MCPOptions{ID: "crm"})
		cancel()
		if err == nil {
			t.Fatalf("%d: discovery through a redirect to another origin succeeded", status)
		}
	}
	if n := other.count(); n != 0 {
		t.Fatalf("the other origin received %d requests: %v", n, other.headers)
	}
}

// TestMCPClient_SSEEndpointOnAnotherOriginGetsNoCredential serves the old
// HTTP+SSE transport whose endpoint event names another origin.
func TestMCPClient_SSEEndpointOnAnotherOriginGetsNoCredential(t *testing.T) {
	t.Parallel()
	var other collector
	elsewhere := other.server(t)
	sse := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(200)
		fmt.Fprintf(w, "event: endpoint\ndata: %s/messages?sessionId=1\n\n", elsewhere.URL)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer sse.Close()
	client := netguard.New(netguard.Options{AllowLoopback: true, Timeout: 5 * time.Second}).Client()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	cs, err := Connect(ctx, client, sse.URL+"/sse", catalog.TransportSSE, mcpSecrets)
	if err == nil {
		cs.Close()
		t.Fatal("the session started through another origin")
	}
	if n := other.count(); n != 0 {
		t.Fatalf("the other origin received %d requests: %v", n, other.headers)
	}
}

func TestMCPClient_SameOriginCarriesHeaders(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(&mcp.Implementation{Name: "crm", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "ping", InputSchema: json.RawMessage(`{"type":"object"}`)}, noop)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	var mux http.ServeMux
	mux.HandleFunc("/old", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/mcp", http.StatusPermanentRedirect)
	})
	mux.HandleFunc("/mcp", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "operator-static-secret" || !strings.HasSuffix(r.Header.Get("Authorization"), "user-token-secret") {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
	ts := httptest.NewServer(&mux)
	defer ts.Close()
	client := netguard.New(netguard.Options{AllowLoopback: true, Timeout: 5 * time.Second}).Client()
	con, err := DiscoverMCP(context.Background(), client, ts.URL+"/old", mcpSecrets, MCPOptions{ID: "crm"})
	if err != nil {
		t.Fatal(err)
	}
	if len(con.Tools) != 1 {
		t.Fatalf("tools: %d", len(con.Tools))
	}
}
