package main

import (
	"bytes"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/webhook"

	_ "github.com/jackc/pgx/v5/stdlib" // the PostgreSQL driver, for schemas and seeding
	_ "modernc.org/sqlite"             // the SQLite driver, for seeding
)

// openapiFS holds the OpenAPI documents the bench imports as the project's
// own connectors, as an operator imports an internal API.
//
//go:embed openapi
var openapiFS embed.FS

// providerBody is the fake provider's answer: about 1 KB of JSON.
var providerBody = func() []byte {
	item := map[string]any{"id": "itm_123", "object": "item", "name": "benchmark item", "tags": []string{"alpha", "beta", "gamma"},
		"description": strings.Repeat("A realistic description of an item. ", 20), "created": 1767225600, "owner": map[string]any{"id": "usr_1", "login": "ann"}}
	b, _ := json.Marshal(item)
	return b
}()

// fixture is what every stack shares, all in the bench process: the fake
// provider (TLS on loopback), a bare reverse proxy in front of it, the
// webhook receiver (TLS too), the built binary and the client.
type fixture struct {
	dir      string
	bin      string
	pgURL    string
	certFile string
	client   *http.Client
	provider *httptest.Server
	rproxy   *bareProxy
	receiver *httptest.Server
	// received counts deliveries whose signature verified with hookSecret.
	received   atomic.Int64
	hookMu     sync.Mutex
	hookSecret string
	cleanup    []func()
}

func newFixture(pgURL, bin string, conc int) (*fixture, error) {
	dir, err := os.MkdirTemp("", "switchboard-bench-")
	if err != nil {
		return nil, err
	}
	f := &fixture{dir: dir, pgURL: pgURL}
	f.cleanup = append(f.cleanup, func() { os.RemoveAll(dir) })
	f.provider = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.Header.Get("Authorization") != "Bearer provider-key" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(providerBody)
	}))
	f.cleanup = append(f.cleanup, f.provider.Close)
	// Every httptest TLS server has the same certificate: trusting it as
	// a root (SSL_CERT_FILE for serve) covers the provider and receiver.
	cert := f.provider.Certificate()
	f.certFile = filepath.Join(dir, "bench-ca.pem")
	if err := os.WriteFile(f.certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o600); err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	tlsConf := &tls.Config{RootCAs: pool}

	if f.rproxy, err = startBareProxy(f.provider.URL, f.certFile, conc*2); err != nil {
		return nil, err
	}
	f.cleanup = append(f.cleanup, f.rproxy.Close)

	f.receiver = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var ts int64
		_, _ = fmt.Sscan(r.Header.Get("webhook-timestamp"), &ts)
		f.hookMu.Lock()
		sec := f.hookSecret
		f.hookMu.Unlock()
		if webhook.Verify(sec, r.Header.Get("webhook-id"), ts, b, r.Header.Get("webhook-signature")) {
			f.received.Add(1)
		}
	}))
	f.cleanup = append(f.cleanup, f.receiver.Close)

	f.client = &http.Client{Transport: &http.Transport{TLSClientConfig: tlsConf, MaxIdleConns: conc * 4, MaxIdleConnsPerHost: conc * 2}}
	if bin == "" {
		start := time.Now()
		if bin, err = buildBinary(dir); err != nil {
			return nil, err
		}
		fmt.Printf("built switchboard from the tree in %.1fs\n", time.Since(start).Seconds())
	}
	f.bin = bin
	return f, nil
}

func (f *fixture) close() {
	for i := len(f.cleanup) - 1; i >= 0; i-- {
		f.cleanup[i]()
	}
}

// stack is one Switchboard (a serve process on its own database) with
// the project, key, connectors, accounts and sessions the paths use.
type stack struct {
	name      string
	fx        *fixture
	srv       *server
	dbURL     string
	projectID string
	key       string
	sessionID string
	searchID  string
	// ingressPaths are the triggers' ingress paths; ingressUsed counts the
	// events sent to them so far (each takes at most 600 a minute).
	ingressPaths []string
	ingressUsed  int
	ghSecret     string
	// idleRSS is VmRSS (KiB) once serve is healthy, before any traffic.
	idleRSS int64
}

// stackOptions says what a stack provisions beyond benchapi: the bulk
// connector and the whole-catalog session, and webhooks with triggers.
type stackOptions struct {
	full     bool
	triggers int
	// metrics turns on serve's Prometheus listener, as an operator who
	// scrapes it runs serve.
	metrics bool
	// grow, above 1, imports that many copies of the built-in catalog in
	// all (grow.go).
	grow int
}

// newStack makes a database, provisions it with the admin commands and
// starts serve on it, then adds accounts and sessions through the API.
func (f *fixture) newStack(name string, o stackOptions) (*stack, error) {
	dir := filepath.Join(f.dir, name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	dbURL, drop, err := database(f.pgURL, dir)
	if err != nil {
		return nil, err
	}
	f.cleanup = append(f.cleanup, drop)
	material := make([]byte, secret.KeySize)
	_, _ = rand.Read(material)
	env := []string{
		"SWITCHBOARD_DATABASE_URL=" + dbURL,
		"SWITCHBOARD_SECRET_KEYS=bench:" + base64.StdEncoding.EncodeToString(material),
		// The fake provider and the receiver are on loopback: open it to
		// the bench's connector and to webhooks only (docs/outbound.md).
		"SWITCHBOARD_OUTBOUND_ALLOW=connector:benchapi=127.0.0.0/8,webhooks=127.0.0.0/8",
		"SSL_CERT_FILE=" + f.certFile,
	}
	if o.metrics {
		addr, err := freeAddr()
		if err != nil {
			return nil, err
		}
		env = append(env, "SWITCHBOARD_METRICS_ADDR="+addr)
	}
	srv, err := newServer(f.bin, dir, env)
	if err != nil {
		return nil, err
	}
	s := &stack{name: name, fx: f, srv: srv, dbURL: dbURL}
	if err := s.provision(dir, o); err != nil {
		return nil, err
	}
	f.cleanup = append(f.cleanup, srv.stop)
	if err := srv.start(); err != nil {
		return nil, err
	}
	if s.idleRSS, _, err = srv.memory(); err != nil {
		return nil, err
	}
	if err := s.populate(o); err != nil {
		return nil, err
	}
	return s, nil
}

// provision does, before serve starts, what an operator does with the
// migrate and admin commands: the schema, a project, an API key, the
// imported connectors, the auth config the trigger account needs, and the
// MCP endpoints.
func (s *stack) provision(dir string, o stackOptions) error {
	if err := s.srv.migrate(); err != nil {
		return err
	}
	var proj struct{ ID string }
	if err := s.srv.adminJSON(&proj, "project", "create", "bench"); err != nil {
		return err
	}
	s.projectID = proj.ID
	var key struct{ Key string }
	if err := s.srv.adminJSON(&key, "key", "create", "--project", proj.ID, "--name", "bench"); err != nil {
		return err
	}
	s.key = key.Key
	docs := []string{"benchapi"}
	if o.full {
		docs = append(docs, "bulk")
	}
	for _, id := range docs {
		b, err := openapiFS.ReadFile("openapi/" + id + ".yaml")
		if err != nil {
			return err
		}
		path := filepath.Join(dir, id+".yaml")
		if err := os.WriteFile(path, b, 0o600); err != nil {
			return err
		}
		args := []string{"openapi", "import", "--project", proj.ID, "--id", id, path}
		if id == "benchapi" {
			args = append(args, "--base-url", s.fx.provider.URL+"/api")
		}
		if _, err := s.srv.admin(args...); err != nil {
			return err
		}
	}
	if _, err := s.srv.admin("endpoint", "create", "--project", proj.ID, "--slug", "bench-items", "--connectors", "benchapi", "--mode", "tools"); err != nil {
		return err
	}
	if !o.full {
		return nil
	}
	if o.grow > 1 {
		if err := s.importCopies(dir, o.grow); err != nil {
			return err
		}
	}
	if _, err := s.srv.admin("endpoint", "create", "--project", proj.ID, "--slug", "bulk-all", "--connectors", "bulk", "--mode", "tools"); err != nil {
		return err
	}
	// GitHub's issue events are the trigger: a built-in connector with
	// manual setup, on an account with an API key.
	_, err := s.srv.admin("authconfig", "create", "--project", proj.ID, "--connector", "github", "--type", "api_key", "--key", "github_api_key")
	return err
}

// populate adds, through the API as a project's backend would, the
// executing user's account, the sessions, a webhook and the triggers.
func (s *stack) populate(o stackOptions) error {
	var conn struct{ Data struct{ ID string } }
	if err := s.api("POST", "/v1/connections", map[string]any{"connectorId": "benchapi", "userId": "bench",
		"credential": map[string]any{"type": "api_key", "apiKey": "provider-key"}}, &conn); err != nil {
		return err
	}
	var ss struct{ Data struct{ ID string } }
	if err := s.api("POST", "/v1/sessions", map[string]any{"userId": "bench", "connectors": []string{"benchapi"}}, &ss); err != nil {
		return err
	}
	s.sessionID = ss.Data.ID
	if !o.full {
		return nil
	}
	if err := s.api("POST", "/v1/sessions", map[string]any{"userId": "bench"}, &ss); err != nil {
		return err
	}
	s.searchID = ss.Data.ID
	var hook struct{ Data struct{ Secret string } }
	if err := s.api("POST", "/v1/webhooks", map[string]any{"url": s.fx.receiver.URL + "/hook", "description": "bench"}, &hook); err != nil {
		return err
	}
	s.fx.hookMu.Lock()
	s.fx.hookSecret = hook.Data.Secret
	s.fx.hookMu.Unlock()
	var gh struct{ Data struct{ ID string } }
	if err := s.api("POST", "/v1/connections", map[string]any{"connectorId": "github", "userId": "bench", "authConfig": "github_api_key",
		"credential": map[string]any{"type": "api_key", "apiKey": "ghp_bench"}}, &gh); err != nil {
		return err
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	s.ghSecret = hex.EncodeToString(b)
	for range o.triggers {
		var tr struct{ Data struct{ URL string } }
		if err := s.api("POST", "/v1/triggers", map[string]any{"connectionId": gh.Data.ID, "event": "github_issue_opened",
			"secret": s.ghSecret, "config": map[string]string{"owner": "acme", "repo": "app"}}, &tr); err != nil {
			return err
		}
		s.ingressPaths = append(s.ingressPaths, strings.TrimPrefix(tr.Data.URL, s.srv.baseURL()))
	}
	return nil
}

// api sends one JSON request with the stack's key and decodes a 2xx answer.
func (s *stack) api(method, path string, body, out any) error {
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest(method, s.srv.baseURL()+path, bytes.NewReader(b))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+s.key)
	resp, err := s.fx.client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	rb, _ := io.ReadAll(resp.Body)
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: status %d: %s", method, path, resp.StatusCode, rb)
	}
	if out != nil {
		return json.Unmarshal(rb, out)
	}
	return nil
}

// database returns the URL to run on: a SQLite file in dir, or a fresh
// schema in the given PostgreSQL database; drop removes the schema.
func database(pgURL, dir string) (string, func(), error) {
	if pgURL == "" {
		return "sqlite:" + filepath.Join(dir, "bench.db"), func() {}, nil
	}
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "bench_" + hex.EncodeToString(b[:])
	admin, err := sql.Open("pgx", pgURL)
	if err != nil {
		return "", nil, err
	}
	if _, err := admin.Exec(`CREATE SCHEMA ` + schema); err != nil {
		admin.Close()
		return "", nil, err
	}
	u, err := url.Parse(pgURL)
	if err != nil {
		admin.Close()
		return "", nil, err
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String(), func() {
		_, _ = admin.Exec(`DROP SCHEMA ` + schema + ` CASCADE`)
		admin.Close()
	}, nil
}
