package trigger

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/execute"
	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
	"github.com/switchboard-gw/switchboard/internal/webhook"
)

// syncClock is a settable clock that pollers on several goroutines read.
type syncClock struct {
	mu sync.Mutex
	t  time.Time
}

func newSyncClock() *syncClock {
	return &syncClock{t: time.Date(2026, 3, 4, 5, 6, 7, 0, time.UTC)}
}

func (c *syncClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *syncClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type fakeItem struct {
	id      string
	created time.Time
	tag     string
}

type fakeMessage struct {
	id string
	at time.Time
}

type fakeFailure struct {
	status     int
	retryAfter string
}

// pollProvider is a loopback TLS server standing in for a provider without
// webhooks: items with creation times, messages listed newest first
// without times, a change feed with tokens, and sheet rows.
type pollProvider struct {
	srv      *httptest.Server
	mu       sync.Mutex
	items    []fakeItem
	messages []fakeMessage
	changes  []string
	rows     [][]any
	fail     []fakeFailure
	// answers are 200 bodies sent, in order, instead of the next answers.
	answers []string
	revoked bool
	tokens  int
	calls   map[string]int
	queries []url.Values
	// callsByTrigger counts list calls per item tag (one tag per trigger
	// in the replica test).
	callsByTag map[string]int
}

func newPollProvider(t *testing.T) *pollProvider {
	t.Helper()
	f := &pollProvider{calls: map[string]int{}, callsByTag: map[string]int{}}
	f.srv = httptest.NewTLSServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *pollProvider) host() string { return strings.TrimPrefix(f.srv.URL, "https://") }

func (f *pollProvider) callCount(path string) int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls[path]
}

func (f *pollProvider) failNext(fs ...fakeFailure) {
	f.mu.Lock()
	f.fail = append(f.fail, fs...)
	f.mu.Unlock()
}

func (f *pollProvider) addItem(id string, created time.Time, tag string) {
	f.mu.Lock()
	f.items = append(f.items, fakeItem{id, created, tag})
	f.mu.Unlock()
}

// moveItem gives an item another time (an event moved to another start).
func (f *pollProvider) moveItem(id string, at time.Time) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := range f.items {
		if f.items[i].id == id {
			f.items[i].created = at
		}
	}
}

func (f *pollProvider) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("Content-Type", "application/json")
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.URL.Path == "/token" {
		form, _ := url.ParseQuery(string(body))
		if f.revoked || form.Get("grant_type") != "refresh_token" {
			w.WriteHeader(400)
			_, _ = io.WriteString(w, `{"error":"invalid_grant"}`)
			return
		}
		f.tokens++
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "access-" + strconv.Itoa(f.tokens), "token_type": "Bearer", "expires_in": 3600})
		return
	}
	f.calls[r.URL.Path]++
	f.queries = append(f.queries, r.URL.Query())
	if len(f.fail) > 0 {
		fl := f.fail[0]
		f.fail = f.fail[1:]
		if fl.retryAfter != "" {
			w.Header().Set("Retry-After", fl.retryAfter)
		}
		w.WriteHeader(fl.status)
		_, _ = io.WriteString(w, `{"error":"injected"}`)
		return
	}
	if len(f.answers) > 0 {
		a := f.answers[0]
		f.answers = f.answers[1:]
		_, _ = io.WriteString(w, a)
		return
	}
	authz := r.Header.Get("Authorization")
	if r.Header.Get("X-Api-Key") != "k" && (f.revoked || !strings.HasPrefix(authz, "Bearer access-")) {
		w.WriteHeader(401)
		_, _ = io.WriteString(w, `{"error":"unauthorized"}`)
		return
	}
	q := r.URL.Query()
	switch {
	case r.URL.Path == "/api/items":
		since, err := time.Parse(time.RFC3339, q.Get("since"))
		if err != nil {
			w.WriteHeader(400)
			return
		}
		f.callsByTag[q.Get("tag")]++
		out := []map[string]any{}
		for _, it := range f.items {
			if !it.created.Before(since) && (q.Get("tag") == "" || q.Get("tag") == it.tag) {
				out = append(out, map[string]any{"id": it.id, "created": it.created.Format(time.RFC3339Nano), "tag": it.tag})
			}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"items": out})
	case r.URL.Path == "/api/events":
		// Events of half an hour that overlap the window, as calendar
		// lists answer: one under way is listed too.
		from, err1 := time.Parse(time.RFC3339, q.Get("from"))
		until, err2 := time.Parse(time.RFC3339, q.Get("until"))
		if err1 != nil || err2 != nil {
			w.WriteHeader(400)
			return
		}
		out := []map[string]any{}
		for _, it := range f.items {
			if it.created.Before(until) && it.created.Add(30*time.Minute).After(from) {
				out = append(out, map[string]any{"id": it.id, "start": map[string]any{"at": it.created.Format(time.RFC3339)}})
			}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"events": out})
	case r.URL.Path == "/api/messages":
		var after int64
		for _, word := range strings.Fields(q.Get("q")) {
			if v, ok := strings.CutPrefix(word, "after:"); ok {
				after, _ = strconv.ParseInt(v, 10, 64)
			}
		}
		out := []map[string]any{}
		for i := len(f.messages) - 1; i >= 0; i-- {
			if f.messages[i].at.Unix() >= after {
				out = append(out, map[string]any{"id": f.messages[i].id})
			}
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"messages": out})
	case r.URL.Path == "/api/changes/start":
		_ = json.NewEncoder(w).Encode(map[string]any{"startToken": strconv.Itoa(len(f.changes))})
	case r.URL.Path == "/api/changes":
		n, err := strconv.Atoi(q.Get("token"))
		if err != nil || n > len(f.changes) {
			w.WriteHeader(410)
			return
		}
		end := min(n+2, len(f.changes))
		out := []map[string]any{}
		for _, id := range f.changes[n:end] {
			out = append(out, map[string]any{"id": id})
		}
		res := map[string]any{"changes": out}
		if end < len(f.changes) {
			res["nextPage"] = strconv.Itoa(end)
		} else {
			res["newStart"] = strconv.Itoa(end)
		}
		_ = json.NewEncoder(w).Encode(res)
	case r.URL.Path == "/api/feed/latest":
		var b map[string]any
		_ = json.Unmarshal(body, &b)
		if b["path"] != "/inbox" || r.Method != "POST" {
			w.WriteHeader(400)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"cursor": strconv.Itoa(len(f.changes))})
	case r.URL.Path == "/api/feed/continue":
		var b map[string]any
		_ = json.Unmarshal(body, &b)
		n, err := strconv.Atoi(fmt.Sprint(b["cursor"]))
		if err != nil || n > len(f.changes) {
			w.WriteHeader(409)
			return
		}
		end := min(n+2, len(f.changes))
		out := []map[string]any{}
		for _, id := range f.changes[n:end] {
			out = append(out, map[string]any{"id": id})
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"entries": out, "cursor": strconv.Itoa(end), "has_more": end < len(f.changes)})
	case r.URL.Path == "/api/audit":
		f.queries = append(f.queries, url.Values{"since": {q.Get("since")}})
		since, err := time.Parse(time.RFC3339Nano, q.Get("since"))
		if err != nil || !strings.Contains(q.Get("since"), ".") {
			w.WriteHeader(400)
			return
		}
		out := []map[string]any{}
		for _, it := range f.items {
			if !it.created.Before(since) {
				out = append(out, map[string]any{"uuid": it.id, "published": it.created.Format("2006-01-02T15:04:05.000Z")})
			}
		}
		_ = json.NewEncoder(w).Encode(out)
	case strings.HasPrefix(r.URL.Path, "/api/sheets/"):
		_ = json.NewEncoder(w).Encode(map[string]any{"values": f.rows})
	default:
		w.WriteHeader(404)
	}
}

var pollFS, _ = fs.Sub(os.DirFS("testdata"), "catalog")

// pollEnv is one test's poller over a database, with a webhook that
// receives every trigger.fired event (as a queued delivery).
type pollEnv struct {
	t        *testing.T
	fake     *pollProvider
	dbURL    string
	keyMat   []byte
	clock    *syncClock
	cat      *catalog.Catalog
	store    *store.Store
	accounts *account.Service
	exec     *execute.Executor
	svc      *Service
	poller   *Poller
	project  store.Project
	hook     store.Webhook
}

func newPollEnv(t *testing.T) *pollEnv {
	t.Helper()
	return newPollEnvOn(t, "sqlite:"+filepath.Join(t.TempDir(), "poll.db"))
}

func newPollEnvOn(t *testing.T, dbURL string) *pollEnv {
	t.Helper()
	cat, err := catalog.Load(pollFS)
	if err != nil {
		t.Fatal(err)
	}
	e := &pollEnv{t: t, fake: newPollProvider(t), dbURL: dbURL, keyMat: make([]byte, secret.KeySize), clock: newSyncClock(), cat: cat}
	_, _ = rand.Read(e.keyMat)
	e.open()
	ctx := context.Background()
	if e.project, err = e.store.CreateProject(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	e.hook, err = e.store.CreateWebhook(ctx, store.Webhook{ID: store.NewID(), ProjectID: e.project.ID, URL: "https://hooks.example.com/x",
		Events: []string{webhook.EventTriggerFired}, Secret: []byte("sealed")})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// open opens (or opens again, as a restarted process) the store and
// builds the services on it.
func (e *pollEnv) open() {
	e.t.Helper()
	ctx := context.Background()
	st, err := store.Open(ctx, e.dbURL, store.Options{Now: e.clock.Now, MaxConns: 4})
	if err != nil {
		e.t.Fatal(err)
	}
	e.t.Cleanup(func() { st.Close() })
	if _, err := st.Migrate(ctx); err != nil {
		e.t.Fatal(err)
	}
	e.store = st
	ring, _ := secret.NewKeyring(secret.Key{ID: "k1", Material: e.keyMat})
	e.accounts = account.NewService(st, ring)
	pool := x509.NewCertPool()
	pool.AddCert(e.fake.srv.Certificate())
	guard := netguard.New(netguard.Options{AllowLoopback: true, Timeout: 5 * time.Second, TLSConfig: &tls.Config{RootCAs: pool}})
	e.exec = execute.New(execute.Options{Store: st, Accounts: e.accounts, Guard: guard, Now: e.clock.Now})
	e.svc = NewService(Options{Store: st, Keyring: ring, Catalog: e.cat, Executor: e.exec, BaseURL: "http://sb.test", Now: e.clock.Now})
	e.poller = e.newPoller()
}

// newPoller returns another poller on the env's store (another process).
func (e *pollEnv) newPoller() *Poller {
	return NewPoller(PollerOptions{Store: e.store, Catalog: e.cat, Caller: e.exec, TenantFunc: e.tenantOf, Now: e.clock.Now})
}

// restart closes the store and opens it again with new services, as a
// restarted process would.
func (e *pollEnv) restart() {
	e.t.Helper()
	e.store.Close()
	e.open()
}

func (e *pollEnv) tenantOf(ctx context.Context, projectID string) (tenant.Tenant, error) {
	kp, err := e.store.ProjectVersions(ctx, projectID)
	if err != nil {
		return tenant.Tenant{}, err
	}
	return tenant.Tenant{ProjectID: kp.ID, Catalog: e.cat, ToolsVersion: kp.ToolsVersion, ConnectionsVersion: kp.ConnectionsVersion}, nil
}

func (e *pollEnv) tenant() tenant.Tenant {
	e.t.Helper()
	tn, err := e.tenantOf(context.Background(), e.project.ID)
	if err != nil {
		e.t.Fatal(err)
	}
	return tn
}

// connect stores an API key account of user u1.
func (e *pollEnv) connect() store.Connection {
	e.t.Helper()
	raw, _ := json.Marshal(map[string]any{"type": "api_key", "apiKey": "k", "host": e.fake.host()})
	c, err := e.accounts.Create(context.Background(), e.tenant(), account.CreateRequest{ConnectorID: "pollme", UserID: "u1", Credential: raw})
	if err != nil {
		e.t.Fatalf("connect: %v", err)
	}
	return c
}

// create subscribes conn to event through the service, as POST /v1/triggers does.
func (e *pollEnv) create(conn store.Connection, event string, config map[string]any) store.Trigger {
	e.t.Helper()
	c, err := e.svc.Create(context.Background(), e.tenant(), CreateRequest{ConnectionID: conn.ID, Event: event, Config: config})
	if err != nil {
		e.t.Fatalf("create %s: %v", event, err)
	}
	if c.URL != "" || c.Setup != SetupPoll {
		e.t.Fatalf("a poll trigger has setup %q and url %q", c.Setup, c.URL)
	}
	return c.Trigger
}

// round runs one round of the poller and returns how many triggers it polled.
func (e *pollEnv) round() int {
	e.t.Helper()
	n, err := e.poller.RunOnce(context.Background())
	if err != nil {
		e.t.Fatal(err)
	}
	return n
}

// fired returns the ids (or, for rows, the row numbers) of the items that
// trigger fired, in the order they were enqueued.
func (e *pollEnv) fired(triggerID string) []string {
	e.t.Helper()
	ds, err := e.store.ListDeliveries(context.Background(), e.project.ID, e.hook.ID, 10_000)
	if err != nil {
		e.t.Fatal(err)
	}
	slices.Reverse(ds)
	var out []string
	for _, d := range ds {
		var ev webhook.Event
		if err := json.Unmarshal(d.Payload, &ev); err != nil {
			e.t.Fatal(err)
		}
		if ev.Type != webhook.EventTriggerFired || ev.Data.TriggerID != triggerID {
			continue
		}
		var item map[string]any
		_ = json.Unmarshal(ev.Data.Payload, &item)
		if id, ok := item["id"].(string); ok {
			out = append(out, id)
		} else if id, ok := item["uuid"].(string); ok {
			out = append(out, id)
		} else {
			out = append(out, fmt.Sprint("row", item["row"]))
		}
	}
	return out
}

func (e *pollEnv) state(triggerID string) store.PollState {
	e.t.Helper()
	st, err := e.store.GetPollState(context.Background(), triggerID)
	if err != nil {
		e.t.Fatal(err)
	}
	return st
}

func wantFired(t *testing.T, got []string, want ...string) {
	t.Helper()
	if len(got) == 0 && len(want) == 0 {
		return
	}
	if !slices.Equal(got, want) {
		t.Fatalf("fired %v, want %v", got, want)
	}
}
