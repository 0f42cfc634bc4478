package replicas

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// provider is a fake OAuth provider and its API on TLS loopback. Its
// token endpoint counts refreshes and is slow enough that concurrent
// callers overlap; its API accepts only the refreshed token.
type provider struct {
	srv       *httptest.Server
	refreshes atomic.Int64
	calls     atomic.Int64
	stale     atomic.Int64 // API calls with a token other than the fresh one
}

const freshToken = "fresh-access-token"

func newProvider(t *testing.T) *provider {
	p := &provider{}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /token", func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil || r.PostForm.Get("grant_type") != "refresh_token" || r.PostForm.Get("refresh_token") != "old-refresh-token" {
			http.Error(w, `{"error":"invalid_grant"}`, http.StatusBadRequest)
			return
		}
		p.refreshes.Add(1)
		time.Sleep(300 * time.Millisecond)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":%q,"token_type":"Bearer","expires_in":3600,"refresh_token":"new-refresh-token"}`, freshToken)
	})
	mux.HandleFunc("GET /items", func(w http.ResponseWriter, r *http.Request) {
		p.calls.Add(1)
		if r.Header.Get("Authorization") != "Bearer "+freshToken {
			p.stale.Add(1)
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"items":[{"id":1}]}`)
	})
	p.srv = httptest.NewTLSServer(mux)
	t.Cleanup(p.srv.Close)
	return p
}

// certFile writes the provider's certificate where SSL_CERT_FILE can name
// it, so that the serve processes trust it as a root.
func (p *provider) certFile(t *testing.T) string {
	path := filepath.Join(t.TempDir(), "provider.pem")
	b := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: p.srv.Certificate().Raw})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// openAPI is the provider's API as an OpenAPI document with an OAuth
// scheme whose token URL is the fake's.
func (p *provider) openAPI() string {
	return fmt.Sprintf(`openapi: 3.0.3
info: {title: Fake items, version: "1.0"}
servers: [{url: %q}]
components:
  securitySchemes:
    oauth:
      type: oauth2
      flows:
        authorizationCode: {authorizationUrl: "%s/authorize", tokenUrl: "%s/token", scopes: {"items:read": read}}
security: [{oauth: ["items:read"]}]
paths:
  /items:
    get:
      operationId: listItems
      summary: List items
      responses: {"200": {description: ok}}
`, p.srv.URL, p.srv.URL, p.srv.URL)
}

// receiver is a webhook endpoint that verifies each delivery's Standard
// Webhooks signature and records it by delivery id. While its gate is
// closed it holds requests without answering, so that senders have
// deliveries in flight; a held request whose sender goes away (a killed
// replica) is recorded as abandoned, never as delivered.
type receiver struct {
	srv    *httptest.Server
	secret []byte

	mu        sync.Mutex
	gate      chan struct{}
	inflight  map[string]int
	acked     map[string]int
	held      int
	abandoned int
	overlaps  int // a delivery id arriving while another request of it was in flight
	badSig    int
}

func newReceiver(t *testing.T) *receiver {
	rc := &receiver{gate: make(chan struct{}), inflight: map[string]int{}, acked: map[string]int{}}
	rc.srv = httptest.NewServer(http.HandlerFunc(rc.serve))
	t.Cleanup(func() {
		rc.open()
		rc.srv.Close()
	})
	return rc
}

// setSecret takes the endpoint's whsec_ secret as registered.
func (rc *receiver) setSecret(t *testing.T, whsec string) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(whsec, "whsec_"))
	if err != nil {
		t.Fatalf("webhook secret: %v", err)
	}
	rc.mu.Lock()
	rc.secret = key
	rc.mu.Unlock()
}

// release answers the deliveries held now and goes on holding later ones.
func (rc *receiver) release() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	close(rc.gate)
	rc.gate = make(chan struct{})
}

// open lets held and later deliveries be answered 200.
func (rc *receiver) open() {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	select {
	case <-rc.gate:
	default:
		close(rc.gate)
	}
}

func (rc *receiver) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		return
	}
	id, ts := r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp")
	rc.mu.Lock()
	mac := hmac.New(sha256.New, rc.secret)
	fmt.Fprintf(mac, "%s.%s.", id, ts)
	mac.Write(body)
	if r.Header.Get("webhook-signature") != "v1,"+base64.StdEncoding.EncodeToString(mac.Sum(nil)) {
		rc.badSig++
		rc.mu.Unlock()
		w.WriteHeader(http.StatusUnauthorized)
		return
	}
	if rc.inflight[id] > 0 {
		rc.overlaps++
	}
	rc.inflight[id]++
	rc.held++
	gate := rc.gate
	rc.mu.Unlock()

	select {
	case <-gate:
		w.WriteHeader(http.StatusNoContent)
		rc.mu.Lock()
		rc.acked[id]++
	case <-r.Context().Done():
		rc.mu.Lock()
		rc.abandoned++
	}
	rc.inflight[id]--
	rc.held--
	rc.mu.Unlock()
}

// counts is a snapshot of the receiver's figures.
type counts struct {
	held, abandoned, overlaps, badSig int
	distinct, acks, twice             int
}

func (rc *receiver) counts() counts {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	c := counts{held: rc.held, abandoned: rc.abandoned, overlaps: rc.overlaps, badSig: rc.badSig, distinct: len(rc.acked)}
	for _, n := range rc.acked {
		c.acks += n
		if n > 1 {
			c.twice++
		}
	}
	return c
}
