package httpapi

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
	"github.com/switchboard-gw/switchboard/internal/telemetry"
	"github.com/switchboard-gw/switchboard/internal/webhook"
)

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// testCatalogFS is a small catalog of three connectors for route tests.
var testCatalogFS, _ = fs.Sub(os.DirFS("testdata"), "catalog")

// fixture is one test's server with a project and a live key.
type fixture struct {
	t       *testing.T
	srv     *Server
	h       http.Handler
	store   *store.Store
	clock   *storetest.Clock
	logs    *syncBuffer
	project store.Project
	key     string
	keyID   string
	// providerHost is the fake provider's host:port.
	providerHost string
	// worker sends webhook deliveries when a test runs it.
	worker *webhook.Worker
	// ring is the fixture's key ring.
	ring *secret.Keyring
	// metrics are the application's metrics (nil unless the test asked).
	metrics *telemetry.Metrics
}

// database makes a fresh, empty database for one test and returns its URL.
type database func(t *testing.T) string

// sqliteDB is a SQLite file in the test's temp dir.
func sqliteDB(t *testing.T) string { return "sqlite:" + filepath.Join(t.TempDir(), "switchboard.db") }

// postgresDB is a schema of the test's own on SWITCHBOARD_TEST_POSTGRES_URL
// (the test is skipped without it).
var postgresDB database = storetest.PostgresSchemaURL

// storeOpen is the database most tests run on.
var storeOpen database = sqliteDB

func setup(t *testing.T) *fixture { return setupOn(t, sqliteDB) }

// setupOn builds the fixture on the database db makes, with a fake provider
// (a loopback TLS server) that the delta connector's tools reach.
func setupOn(t *testing.T, db database) *fixture {
	t.Helper()
	provider := httptest.NewTLSServer(http.HandlerFunc(fakeDelta))
	t.Cleanup(provider.Close)
	return setupWith(t, db, testCatalogFS, provider)
}

// setupWith builds the fixture on a given catalog and fake provider (nil:
// none).
func setupWith(t *testing.T, db database, catFS fs.FS, provider *httptest.Server) *fixture {
	t.Helper()
	return setupBase(t, db, catFS, provider, "http://sb.test", "http://web.sb.test")
}

// FixtureApp is what a fixture needs to build the application.
type FixtureApp struct {
	// DatabaseURL, BaseURL and WebURL go into the configuration; SecretKeys
	// is the key ring as SWITCHBOARD_SECRET_KEYS.
	DatabaseURL, BaseURL, WebURL, SecretKeys string
	// CatalogFS, Now, Logs, RootCAs and LookupFunc become app.Options.
	CatalogFS  fs.FS
	Now        func() time.Time
	Logs       io.Writer
	RootCAs    *x509.CertPool
	LookupFunc func(ctx context.Context, host string) ([]netip.Addr, error)
	// Metrics and TracerProvider become app.Options (telemetry tests).
	Metrics        bool
	TracerProvider trace.TracerProvider
}

// FixtureParts are the parts of the built application a fixture uses.
type FixtureParts struct {
	Server  *Server
	Store   *store.Store
	Worker  *webhook.Worker
	Keyring *secret.Keyring
	Metrics *telemetry.Metrics
}

// BuildApp builds the whole application with app.New, closed when the test
// ends. wire_test.go sets it: it is in package httpapi_test, since this
// package's own tests cannot import internal/app, which imports httpapi.
var BuildApp func(t *testing.T, in FixtureApp) FixtureParts

// setupBase builds the fixture with given public base and web URLs (a real
// test server's, for a browser), through app.New as serve does, with a
// loopback-allowing guard that trusts the fake provider's certificate.
func setupBase(t *testing.T, db database, catFS fs.FS, provider *httptest.Server, base, web string) *fixture {
	t.Helper()
	return setupObserved(t, db, catFS, provider, base, web, FixtureApp{})
}

// setupObserved is setupBase with the telemetry options of obs (Metrics,
// TracerProvider).
func setupObserved(t *testing.T, db database, catFS fs.FS, provider *httptest.Server, base, web string, obs FixtureApp) *fixture {
	t.Helper()
	clock := storetest.NewClock()
	logs := &syncBuffer{}
	pool := x509.NewCertPool()
	providerHost := ""
	if provider != nil {
		pool.AddCert(provider.Certificate())
		providerHost = strings.TrimPrefix(provider.URL, "https://")
	}
	material := make([]byte, secret.KeySize)
	_, _ = rand.Read(material)
	parts := BuildApp(t, FixtureApp{
		DatabaseURL: db(t), BaseURL: base, WebURL: web, SecretKeys: "k1:" + base64.StdEncoding.EncodeToString(material),
		CatalogFS: catFS, Now: clock.Now, Logs: logs, RootCAs: pool, LookupFunc: fakeLookup,
		Metrics: obs.Metrics, TracerProvider: obs.TracerProvider,
	})
	st := parts.Store
	ctx := context.Background()
	p, err := st.CreateProject(ctx, "test")
	if err != nil {
		t.Fatal(err)
	}
	key, hash, hint, _ := apikey.Generate()
	k, err := st.CreateAPIKey(ctx, store.NewAPIKey{ProjectID: p.ID, Name: "t", Hash: hash, Hint: hint})
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, srv: parts.Server, h: parts.Server.Handler(), store: st, clock: clock, logs: logs, project: p, key: key, keyID: k.ID,
		providerHost: providerHost, worker: parts.Worker, ring: parts.Keyring, metrics: parts.Metrics}
}

// fakeHooks records the hook registrations fakeDelta received.
var fakeHooks sync.Map

// fakeDelta answers like the delta provider: it requires the bearer key
// "delta-secret-key" and echoes what it got.
func fakeDelta(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	if r.Header.Get("Authorization") != "Bearer delta-secret-key" {
		w.WriteHeader(401)
		_, _ = io.WriteString(w, `{"error":"bad key"}`)
		return
	}
	switch {
	case r.URL.Path == "/v1/hooks" && r.Method == "POST":
		body, _ := io.ReadAll(r.Body)
		fakeHooks.Store(string(body), true)
		_, _ = io.WriteString(w, `{"hook":{"id":"hk_77"}}`)
	case r.URL.Path == "/v1/hooks/hk_77" && r.Method == "DELETE":
		fakeHooks.Store("deleted hk_77", true)
		w.WriteHeader(204)
	case r.URL.Path == "/v1/tasks/missing":
		w.WriteHeader(404)
		_, _ = io.WriteString(w, `{"error":"no such task"}`)
	case r.URL.Path == "/v1/tasks/slow":
		// Answers only after the caller has given up (execution log timeouts).
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
		w.WriteHeader(504)
	case r.URL.Path == "/v1/tasks/limited":
		// The provider's own rate limit (quotas_test.go).
		w.Header().Set("Retry-After", "30")
		w.WriteHeader(429)
		_, _ = io.WriteString(w, `{"error":"slow down"}`)
	case r.URL.Path == "/v1/tasks/broken":
		w.WriteHeader(500)
		_, _ = io.WriteString(w, `{"error":"boom"}`)
	default:
		body, _ := io.ReadAll(r.Body)
		_ = json.NewEncoder(w).Encode(map[string]any{"method": r.Method, "path": r.URL.Path, "query": r.URL.RawQuery, "body": string(body)})
	}
}

type response struct {
	status int
	header http.Header
	body   []byte
}

func (f *fixture) do(h http.Handler, method, path, auth string, body string, hdr ...string) response {
	f.t.Helper()
	req := httptest.NewRequest(method, path, strings.NewReader(body))
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// errorCode returns the code of an error envelope, failing on any other body.
func errorCode(t *testing.T, r response) string {
	t.Helper()
	var env struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(r.body, &env); err != nil || env.Error.Code == "" || env.Error.Message == "" {
		t.Fatalf("not an error envelope: %s", r.body)
	}
	if r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("content type %q", r.header.Get("Content-Type"))
	}
	return env.Error.Code
}

func TestRoutes_Scenarios(t *testing.T) {
	t.Parallel()
	unknownKey, _, _, _ := apikey.Generate()
	noBodyWithAllow := func(allow string) func(t *testing.T, f *fixture, r response) {
		return func(t *testing.T, f *fixture, r response) {
			if got := r.header.Get("Allow"); got != allow {
				t.Fatalf("Allow %q, want %q", got, allow)
			}
			if r.status == 405 && len(r.body) != 0 {
				t.Fatalf("405 has a body: %s", r.body)
			}
		}
	}
	runScenarios(t, []Scenario{
		{Name: "no key", Method: "GET", Path: "/v1/nothing", Auth: NoAuth, Status: 401, Code: "UNAUTHORIZED"},
		{Name: "not bearer", Method: "GET", Path: "/v1/nothing", Auth: "Basic {key}", Status: 401, Code: "UNAUTHORIZED"},
		{Name: "malformed key", Method: "GET", Path: "/v1/nothing", Auth: "Bearer sb_123", Status: 401, Code: "UNAUTHORIZED"},
		{Name: "unknown key", Method: "GET", Path: "/v1/nothing", Auth: "Bearer " + unknownKey, Status: 401, Code: "UNAUTHORIZED"},
		{Name: "unknown route after auth", Method: "GET", Path: "/v1/nothing", Status: 404, Code: "NOT_FOUND", After: noBodyWithAllow("")},
		{Name: "bare v1 without key", Method: "GET", Path: "/v1", Auth: NoAuth, Status: 401, Code: "UNAUTHORIZED"},
		{Name: "bare v1", Method: "GET", Path: "/v1", Status: 404, Code: "NOT_FOUND"},
		{Name: "lowercase bearer scheme", Method: "DELETE", Path: "/v1/x/y", Auth: "bearer {key}", Status: 404, Code: "NOT_FOUND"},
		{Name: "unknown public route", Method: "GET", Path: "/nope", Auth: NoAuth, Status: 404, Code: "NOT_FOUND"},
		{Name: "wrong method on a route", Method: "POST", Path: "/health", Auth: NoAuth, Status: 405, After: noBodyWithAllow("GET")},
		{Name: "health", Method: "GET", Path: "/health", Auth: NoAuth, Status: 200, JSON: map[string]any{"data.status": "ok"}},
	}, bothDatabases...)
}

func TestHealth_AnswersOK(t *testing.T) {
	t.Parallel()
	f := setup(t)
	r := f.do(f.h, "GET", "/health", "", "")
	if r.status != 200 || strings.TrimSpace(string(r.body)) != `{"data":{"status":"ok"}}` {
		t.Fatalf("%d %s", r.status, r.body)
	}
}

func TestHealth_DatabaseDown_503(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.store.Close()
	r := f.do(f.h, "GET", "/health", "", "")
	if r.status != 503 || !strings.Contains(string(r.body), `"status":"unavailable"`) {
		t.Fatalf("%d %s", r.status, r.body)
	}
}

func TestAPIKey_RevocationStopsTheNextRequest(t *testing.T) {
	t.Parallel()
	f := setup(t)
	bearer := "Bearer " + f.key
	if r := f.do(f.h, "GET", "/v1/nothing", bearer, ""); r.status != 404 {
		t.Fatalf("live key: %d", r.status)
	}
	if _, err := f.store.RevokeAPIKey(context.Background(), f.keyID); err != nil {
		t.Fatal(err)
	}
	if r := f.do(f.h, "GET", "/v1/nothing", bearer, ""); r.status != 401 || errorCode(t, r) != "UNAUTHORIZED" {
		t.Fatalf("revoked key: %d %s", r.status, r.body)
	}
}

func TestAPIKey_ExpiredKey_401(t *testing.T) {
	t.Parallel()
	f := setup(t)
	key, hash, hint, _ := apikey.Generate()
	exp := f.clock.Now().Add(time.Hour)
	if _, err := f.store.CreateAPIKey(context.Background(), store.NewAPIKey{ProjectID: f.project.ID, Name: "e", Hash: hash, Hint: hint, ExpiresAt: &exp}); err != nil {
		t.Fatal(err)
	}
	if r := f.do(f.h, "GET", "/v1/x", "Bearer "+key, ""); r.status != 404 {
		t.Fatalf("before expiry: %d", r.status)
	}
	f.clock.Advance(time.Hour)
	if r := f.do(f.h, "GET", "/v1/x", "Bearer "+key, ""); r.status != 401 {
		t.Fatalf("after expiry: %d", r.status)
	}
}

func TestV1_SendsNoCORSHeaders(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, auth := range []string{"", "Bearer " + f.key} {
		r := f.do(f.h, "GET", "/v1/nothing", auth, "", "Origin", "https://evil.example")
		for name := range r.header {
			if strings.HasPrefix(strings.ToLower(name), "access-control-") {
				t.Fatalf("CORS header %s sent", name)
			}
		}
		o := f.do(f.h, "OPTIONS", "/v1/nothing", auth, "", "Origin", "https://evil.example", "Access-Control-Request-Method", "GET")
		for name := range o.header {
			if strings.HasPrefix(strings.ToLower(name), "access-control-") {
				t.Fatalf("CORS header %s sent on preflight", name)
			}
		}
	}
}

func TestRequestID_OnResponseAndLogLines(t *testing.T) {
	t.Parallel()
	f := setup(t)
	r := f.do(f.h, "GET", "/health", "", "", "X-Request-Id", "abc-123")
	if r.header.Get("X-Request-Id") != "abc-123" {
		t.Fatalf("caller id not kept: %q", r.header.Get("X-Request-Id"))
	}
	r = f.do(f.h, "GET", "/health", "", "", "X-Request-Id", "bad id\nwith newline")
	generated := r.header.Get("X-Request-Id")
	if len(generated) != 24 {
		t.Fatalf("unsafe caller id not replaced: %q", generated)
	}
	if !strings.Contains(f.logs.String(), `"request_id":"`+generated+`"`) {
		t.Fatalf("log has no line with the request id:\n%s", f.logs.String())
	}
}

func TestAccessLog_LogsRouteNotPathAndNoKey(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.do(f.h, "POST", "/api/triggers/tok_supersecret", "", "{}")
	f.do(f.h, "GET", "/v1/nothing", "Bearer "+f.key, "")
	f.do(f.h, "GET", "/health", "", "")
	logs := f.logs.String()
	for _, leak := range []string{"tok_supersecret", f.key} {
		if strings.Contains(logs, leak) {
			t.Fatalf("log contains %q:\n%s", leak, logs)
		}
	}
	var sawHealth, sawProject bool
	for _, line := range strings.Split(strings.TrimSpace(logs), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("log line is not JSON: %q", line)
		}
		if m["route"] == "GET /health" && m["status"] == float64(200) {
			sawHealth = true
		}
		if m["project_id"] == f.project.ID && m["status"] == float64(404) {
			sawProject = true
		}
	}
	if !sawHealth || !sawProject {
		t.Fatalf("access log lines missing (health %v, project %v):\n%s", sawHealth, sawProject, logs)
	}
}

func TestPanic_Recovers500WithoutInternals(t *testing.T) {
	t.Parallel()
	f := setup(t)
	h := f.srv.instrument(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {
		panic("database password is hunter2")
	}))
	r := f.do(h, "GET", "/boom", "", "")
	if r.status != 500 || errorCode(t, r) != "INTERNAL_ERROR" || strings.Contains(string(r.body), "hunter2") {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if !strings.Contains(f.logs.String(), `"msg":"panic"`) {
		t.Fatalf("panic not logged")
	}
}

func TestFail_UnknownErrorIsInternalAndLogged(t *testing.T) {
	t.Parallel()
	f := setup(t)
	rec := httptest.NewRecorder()
	f.srv.fail(rec, httptest.NewRequest("GET", "/", nil), io.ErrUnexpectedEOF)
	if rec.Code != 500 || strings.Contains(rec.Body.String(), "unexpected EOF") {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	if !strings.Contains(f.logs.String(), "unexpected EOF") {
		t.Fatal("detail not logged")
	}
}

func TestAPIKey_DecidesTheProject(t *testing.T) {
	t.Parallel()
	f := setup(t)
	other, _ := f.store.CreateProject(context.Background(), "other")
	key, hash, hint, _ := apikey.Generate()
	if _, err := f.store.CreateAPIKey(context.Background(), store.NewAPIKey{ProjectID: other.ID, Name: "o", Hash: hash, Hint: hint}); err != nil {
		t.Fatal(err)
	}
	h := f.srv.requireAPIKey(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.WriteString(w, tenantOf(r).ProjectID)
	}))
	for k, want := range map[string]string{f.key: f.project.ID, key: other.ID} {
		if r := f.do(h, "GET", "/v1/x", "Bearer "+k, ""); string(r.body) != want {
			t.Fatalf("key decided project %q, want %q", r.body, want)
		}
	}
}

// newProjectKey makes a live API key for a project.
func newProjectKey(t *testing.T, f *fixture, projectID string) string {
	t.Helper()
	key, hash, hint, _ := apikey.Generate()
	if _, err := f.store.CreateAPIKey(context.Background(), store.NewAPIKey{ProjectID: projectID, Name: "o", Hash: hash, Hint: hint}); err != nil {
		t.Fatal(err)
	}
	return key
}

// decodeMap decodes a JSON object body, or nil.
func decodeMap(b []byte) map[string]any {
	var m map[string]any
	_ = json.Unmarshal(b, &m)
	return m
}

// fakeLookup is the tests' DNS: no test reaches the internet.
func fakeLookup(_ context.Context, host string) ([]netip.Addr, error) {
	switch host {
	case "localhost":
		return []netip.Addr{netip.MustParseAddr("127.0.0.1"), netip.MustParseAddr("::1")}, nil
	case "internal.example.com":
		// One public and one private answer: every answer must be allowed.
		return []netip.Addr{netip.MustParseAddr("93.184.215.14"), netip.MustParseAddr("10.9.8.7")}, nil
	case "nxdomain.example.com":
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	if strings.HasSuffix(host, ".example.com") || strings.HasSuffix(host, ".test") {
		return []netip.Addr{netip.MustParseAddr("93.184.215.14")}, nil
	}
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}
