package execute

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// seen is one request the fake provider received.
type seen struct {
	Method string
	Path   string
	Query  url.Values
	Header http.Header
	Body   string
}

// fakeProvider is a loopback TLS server standing in for a provider: it
// records every request and answers by path.
type fakeProvider struct {
	srv           *httptest.Server
	mu            sync.Mutex
	requests      []seen
	refreshes     atomic.Int64
	ccTokens      atomic.Int64
	refreshDelay  time.Duration
	nextAccess    atomic.Int64
	validAccess   sync.Map // access token -> true
	revokedTokens sync.Map // refresh token -> true
	redirects     sync.Map // name -> Location, for …/redirect/{status}/{name}
	nextRedirect  atomic.Int64
	// canned, when set, is the answer to a tool's request (the provider's
	// documented response, from testdata/responses).
	canned atomic.Pointer[sampleResponse]
}

func newFakeProvider(t *testing.T) *fakeProvider {
	t.Helper()
	f := &fakeProvider{}
	f.srv = httptest.NewTLSServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeProvider) host() string { return strings.TrimPrefix(f.srv.URL, "https://") }

func (f *fakeProvider) last() seen {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) == 0 {
		return seen{}
	}
	return f.requests[len(f.requests)-1]
}

func (f *fakeProvider) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.URL.Path != "/token" && r.URL.Path != "/cc-token" {
		f.mu.Lock()
		f.requests = append(f.requests, seen{Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.Query(), Header: r.Header.Clone(), Body: string(body)})
		f.mu.Unlock()
	}
	w.Header().Set("Content-Type", "application/json")
	switch {
	case r.URL.Path == "/token":
		f.refreshes.Add(1)
		time.Sleep(f.refreshDelay)
		form, _ := url.ParseQuery(string(body))
		if form.Get("grant_type") != "refresh_token" || form.Get("client_id") != "client-1" || form.Get("client_secret") != "client-secret-1" {
			w.WriteHeader(400)
			_, _ = io.WriteString(w, `{"error":"invalid_client"}`)
			return
		}
		if _, revoked := f.revokedTokens.Load(form.Get("refresh_token")); revoked {
			w.WriteHeader(400)
			_, _ = io.WriteString(w, `{"error":"invalid_grant","error_description":"revoked"}`)
			return
		}
		n := f.nextAccess.Add(1)
		access := "access-" + itoa(n)
		f.validAccess.Store(access, true)
		// Every refresh rotates the refresh token.
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": access, "token_type": "Bearer", "expires_in": 3600, "refresh_token": "refresh-" + itoa(n)})
	case r.URL.Path == "/cc-token":
		f.ccTokens.Add(1)
		user, pass, _ := r.BasicAuth()
		if user != "cc-id" || pass != "cc-secret" {
			w.WriteHeader(401)
			_, _ = io.WriteString(w, `{"error":"invalid_client"}`)
			return
		}
		_, _ = io.WriteString(w, `{"access_token":"cc-access","token_type":"Bearer","expires_in":3600}`)
	case strings.HasPrefix(r.URL.Path, "/api/oauth-only/"):
		if _, ok := f.validAccess.Load(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")); !ok {
			w.WriteHeader(401)
			_, _ = io.WriteString(w, `{"message":"bad token"}`)
			return
		}
		_, _ = io.WriteString(w, `{"ok":true}`)
	case strings.HasPrefix(r.URL.Path, "/api/status/"):
		code := strings.TrimPrefix(r.URL.Path, "/api/status/")
		switch code {
		case "200":
			_, _ = io.WriteString(w, `{"result":{"value":{"deep":1}}}`)
		case "slow":
			time.Sleep(3 * time.Second)
		case "text":
			w.Header().Set("Content-Type", "text/plain")
			_, _ = io.WriteString(w, "plain words")
		case "binary":
			w.Header().Set("Content-Type", "image/png")
			_, _ = w.Write([]byte{0x89, 'P', 'N', 'G'})
		case "429":
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(429)
			_, _ = io.WriteString(w, `{"message":"slow down"}`)
		default:
			status := atoi(code)
			w.WriteHeader(status)
			_, _ = io.WriteString(w, `{"message":"failure `+code+`","detail":"`+strings.Repeat("x", 3000)+`"}`)
		}
	case strings.Contains(r.URL.Path, "/redirect/"):
		// …/redirect/{status}/{name} redirects to the target set for name.
		_, rest, _ := strings.Cut(r.URL.Path, "/redirect/")
		status, name, _ := strings.Cut(rest, "/")
		target, _ := f.redirects.Load(name)
		w.Header().Set("Location", target.(string))
		w.WriteHeader(atoi(status))
	case r.URL.Path == "/api/echo":
		// An API that hands credentials back: the caller's own key, and an
		// account's token (as Twilio's account resource does).
		_ = json.NewEncoder(w).Encode(map[string]any{"sent": r.Header.Get("X-Api-Key"), "auth_token": "tok-account-1",
			"accounts": []any{map[string]any{"sid": "AC1", "auth_token": "tok-account-2"}}, "name": "main"})
	case r.URL.Path == "/api/echo.xml":
		w.Header().Set("Content-Type", "application/xml")
		_, _ = io.WriteString(w, "<Account><AuthToken>tok-account-1</AuthToken></Account>")
	case r.URL.Path == "/api/graphql":
		if strings.Contains(string(body), `"id":"missing"`) {
			_, _ = io.WriteString(w, `{"data":null,"errors":[{"message":"not found"}]}`)
			return
		}
		_, _ = io.WriteString(w, `{"data":{"item":{"name":"widget"}}}`)
	case f.canned.Load() != nil:
		c := f.canned.Load()
		if c.ContentType != "" {
			w.Header().Set("Content-Type", c.ContentType)
		}
		w.WriteHeader(c.status())
		_, _ = w.Write(c.raw)
	default:
		_ = json.NewEncoder(w).Encode(map[string]any{"path": r.URL.EscapedPath(), "method": r.Method})
	}
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func atoi(s string) int {
	n, _ := strconv.Atoi(s)
	return n
}

// env is one test's executor over a fresh store.
type env struct {
	t        *testing.T
	fake     *fakeProvider
	store    *store.Store
	accounts *account.Service
	exec     *Executor
	cat      *catalog.Catalog
	project  store.Project
	clock    *storetest.Clock
}

var fixtureFS, _ = fs.Sub(os.DirFS("testdata"), "catalog")

func newEnv(t *testing.T, cat *catalog.Catalog) *env {
	t.Helper()
	fake := newFakeProvider(t)
	if cat == nil {
		var err error
		if cat, err = catalog.Load(fixtureFS); err != nil {
			t.Fatal(err)
		}
	}
	clock := storetest.NewClock()
	st := storetest.OpenSQLite(t, clock.Now)
	key := make([]byte, secret.KeySize)
	_, _ = rand.Read(key)
	ring, _ := secret.NewKeyring(secret.Key{ID: "k1", Material: key})
	accounts := account.NewService(st, ring)
	pool := x509.NewCertPool()
	pool.AddCert(fake.srv.Certificate())
	guard := netguard.New(netguard.Options{AllowLoopback: true, Timeout: 2 * time.Second, TLSConfig: &tls.Config{RootCAs: pool}})
	ex := New(Options{Store: st, Accounts: accounts, Guard: guard, Now: clock.Now})
	p, err := st.CreateProject(context.Background(), "p")
	if err != nil {
		t.Fatal(err)
	}
	return &env{t: t, fake: fake, store: st, accounts: accounts, exec: ex, cat: cat, project: p, clock: clock}
}

// connect stores a credential for user (or a global account when user is "").
func (e *env) connect(user string, credential map[string]any) store.Connection {
	e.t.Helper()
	if _, ok := credential["host"]; !ok {
		credential["host"] = e.fake.host()
	}
	raw, _ := json.Marshal(credential)
	c, err := e.accounts.Create(context.Background(), e.tenant(), account.CreateRequest{
		ConnectorID: "acme", UserID: user, Global: user == "", Credential: raw,
	})
	if err != nil {
		e.t.Fatalf("connect: %v", err)
	}
	return c
}

// oauthConfig creates the explicit OAuth auth config with a sealed client
// secret, allowed (as an operator would allow a self-hosted provider) on
// the fake provider's host.
func (e *env) oauthConfig() store.AuthConfig {
	e.t.Helper()
	return e.oauthConfigOn(e.fake.host())
}

// oauthConfigOn creates the explicit OAuth auth config with the given
// operator hosts (none: the definition's allowedHosts).
func (e *env) oauthConfigOn(hosts ...string) store.AuthConfig {
	e.t.Helper()
	id := store.NewID()
	sealed, err := e.accounts.SealClientSecret(id, "client-secret-1")
	if err != nil {
		e.t.Fatal(err)
	}
	ac, err := e.store.CreateAuthConfig(context.Background(), store.AuthConfig{ID: id, ProjectID: e.project.ID, ConnectorID: "acme",
		Key: "acme-oauth", AuthMethodID: "oauth2", AuthType: "oauth2", ClientID: "client-1", ClientSecret: sealed, Hosts: hosts})
	if err != nil {
		e.t.Fatal(err)
	}
	return ac
}

func (e *env) run(tool string, input string, opts ...func(*Call)) (any, error) {
	e.t.Helper()
	c := Call{ToolID: tool, Input: json.RawMessage(input), UserID: "u1"}
	for _, o := range opts {
		o(&c)
	}
	return e.exec.Execute(context.Background(), e.tenant(), c)
}

// tenant returns the project's tenant with its versions as stored now, as
// a new request would see it.
func (e *env) tenant() tenant.Tenant {
	e.t.Helper()
	kp, err := e.store.ProjectVersions(context.Background(), e.project.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return e.tenantAt(kp)
}

// tenantAt returns the project's tenant at the versions of kp.
func (e *env) tenantAt(kp store.KeyProject) tenant.Tenant {
	return tenant.Tenant{ProjectID: kp.ID, Catalog: e.cat, ToolsVersion: kp.ToolsVersion, ConnectionsVersion: kp.ConnectionsVersion}
}

func createReq(user string, raw json.RawMessage, key string) account.CreateRequest {
	return account.CreateRequest{ConnectorID: "acme", UserID: user, Credential: raw, AuthConfigKey: key}
}

func accountCred() account.Credential { return account.Credential{Type: "api_key", APIKey: "moved"} }

// revokeAll answers 401 to every API call but keeps the token endpoint.
func revokeAll(f *fakeProvider) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/token" {
			f.serve(w, r)
			return
		}
		w.WriteHeader(401)
	})
}
