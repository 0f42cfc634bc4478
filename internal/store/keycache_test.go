package store_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
)

// notifyBound is how long a change made by another instance may take to
// reach a watching instance's cache (measured: a few milliseconds).
const notifyBound = 500 * time.Millisecond

// syncClock is a settable clock safe for the listener's goroutine.
type syncClock struct {
	mu sync.Mutex
	t  time.Time
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

// keyPair is two instances on one PostgreSQL schema: a watches for changes
// (as serve does), b is another replica or the admin CLI.
type keyPair struct {
	a, b    *store.Store
	clock   *syncClock
	project store.Project
	hash    string
	keyID   string
}

func openAt(t *testing.T, url string, now func() time.Time) *store.Store {
	t.Helper()
	ctx := context.Background()
	s, err := store.Open(ctx, url, store.Options{Now: now, MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	return s
}

// watch runs s.WatchKeys until the test ends and waits until it subscribed.
func watch(t *testing.T, s *store.Store) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.WatchKeys(ctx, nil)
	}()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	waitFor(t, "the listener to subscribe", 5*time.Second, s.KeyCacheLive)
}

func waitFor(t *testing.T, what string, bound time.Duration, cond func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > bound {
			t.Fatalf("waited %v for %s", bound, what)
		}
		time.Sleep(time.Millisecond)
	}
	return time.Since(start)
}

func newKeyPair(t *testing.T) *keyPair {
	t.Helper()
	url := storetest.PostgresSchemaURL(t)
	p := &keyPair{clock: &syncClock{t: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}}
	p.b = openAt(t, url, p.clock.Now)
	p.a = openAt(t, url, p.clock.Now)
	watch(t, p.a)
	ctx := context.Background()
	var err error
	if p.project, err = p.b.CreateProject(ctx, "keys"); err != nil {
		t.Fatal(err)
	}
	p.keyID, p.hash = p.newKey(t, nil)
	return p
}

func (p *keyPair) newKey(t *testing.T, expires *time.Time) (id, hash string) {
	t.Helper()
	_, hash, hint, err := apikey.Generate()
	if err != nil {
		t.Fatal(err)
	}
	k, err := p.b.CreateAPIKey(context.Background(), store.NewAPIKey{ProjectID: p.project.ID, Name: "k", Hash: hash, Hint: hint, ExpiresAt: expires})
	if err != nil {
		t.Fatal(err)
	}
	return k.ID, hash
}

// sql runs a statement on the shared schema behind both instances' backs.
func (p *keyPair) sql(t *testing.T, q string, args ...any) {
	t.Helper()
	if _, err := p.b.ReadDB().ExecContext(context.Background(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// silently runs a statement with the notifying triggers off, so no
// instance hears of it: what a watching instance answers then comes from
// its cache, not from the database.
func (p *keyPair) silently(t *testing.T, q string, args ...any) {
	t.Helper()
	p.sql(t, `ALTER TABLE api_keys DISABLE TRIGGER api_keys_notify`)
	p.sql(t, `ALTER TABLE projects DISABLE TRIGGER projects_notify`)
	defer func() {
		p.sql(t, `ALTER TABLE api_keys ENABLE TRIGGER api_keys_notify`)
		p.sql(t, `ALTER TABLE projects ENABLE TRIGGER projects_notify`)
	}()
	p.sql(t, q, args...)
}

// found reports whether a lookup found its row: ErrNotFound is false, any
// other error fails the test.
func found[T any](t *testing.T, v T, err error) (T, bool) {
	t.Helper()
	if errors.Is(err, store.ErrNotFound) {
		return v, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return v, true
}

// warm reads with read until s has cached the answer. It first waits until
// every change made so far has reached s, since a late notification would
// drop the entry; then it reads again while a notification about another
// row, arriving during the read, kept the answer from being stored (other
// tests share the database, and so its notification channel).
func warm(t *testing.T, s *store.Store, what string, read func(), cached func() bool) {
	t.Helper()
	if err := s.Settle(context.Background()); err != nil {
		t.Fatal(err)
	}
	for range 100 {
		read()
		if cached() {
			return
		}
	}
	t.Fatalf("%s was read 100 times and never cached", what)
}

func warmKey(t *testing.T, s *store.Store, hash string) {
	t.Helper()
	warm(t, s, "the key", func() { lookup(t, s, hash) }, func() bool { return s.KeyCached(hash) })
}

func lookup(t *testing.T, s *store.Store, hash string) (store.KeyProject, bool) {
	t.Helper()
	kp, err := s.ProjectForKey(context.Background(), hash)
	return found(t, kp, err)
}

// TestKeyCache_ServesWithoutQuery: once verified, a key is answered from
// the cache (a revocation nobody announces is not seen), and an unknown
// key is not cached.
func TestKeyCache_ServesWithoutQuery(t *testing.T) {
	t.Parallel()
	p := newKeyPair(t)
	if kp, ok := lookup(t, p.a, p.hash); !ok || kp.ID != p.project.ID {
		t.Fatalf("a: %+v %v", kp, ok)
	}
	warmKey(t, p.a, p.hash)
	p.silently(t, `UPDATE api_keys SET revoked_at = 1 WHERE id = $1`, p.keyID)
	if _, ok := lookup(t, p.a, p.hash); !ok {
		t.Fatal("a read the key again instead of answering from its cache")
	}
	if _, ok := lookup(t, p.b, p.hash); ok {
		t.Fatal("b, which does not watch, still accepts the revoked key")
	}
	n := p.a.CachedKeys()
	for range 100 {
		_, hash, _, _ := apikey.Generate()
		if _, ok := lookup(t, p.a, hash); ok {
			t.Fatal("an unknown key was accepted")
		}
	}
	if got := p.a.CachedKeys(); got != n {
		t.Fatalf("unknown keys were cached: %d entries, want %d", got, n)
	}
}

// TestKeyCache_OtherInstanceRevocationSeen: a key revoked by another
// instance is refused by the watching one within notifyBound.
func TestKeyCache_OtherInstanceRevocationSeen(t *testing.T) {
	t.Parallel()
	p := newKeyPair(t)
	lookup(t, p.a, p.hash)
	if _, err := p.b.RevokeAPIKey(context.Background(), p.keyID); err != nil {
		t.Fatal(err)
	}
	took := waitFor(t, "a to refuse the revoked key", notifyBound, func() bool {
		_, ok := lookup(t, p.a, p.hash)
		return !ok
	})
	t.Logf("revocation on b refused by a after %v", took)

	// A key deleted with its project, by hand, too.
	_, other := p.newKey(t, nil)
	lookup(t, p.a, other)
	p.sql(t, `DELETE FROM projects WHERE id = $1`, p.project.ID)
	waitFor(t, "a to refuse a key of a deleted project", notifyBound, func() bool {
		_, ok := lookup(t, p.a, other)
		return !ok
	})
}

// TestKeyCache_OtherInstanceVersionsSeen: a tool switch and a connection
// written by another instance move the versions the watching one answers.
func TestKeyCache_OtherInstanceVersionsSeen(t *testing.T) {
	t.Parallel()
	p := newKeyPair(t)
	ctx := context.Background()
	before, _ := lookup(t, p.a, p.hash)
	if err := p.b.SetToolsEnabled(ctx, p.project.ID, []string{"github_list_repos"}, false); err != nil {
		t.Fatal(err)
	}
	took := waitFor(t, "a to see the tools version move", notifyBound, func() bool {
		kp, _ := lookup(t, p.a, p.hash)
		return kp.ToolsVersion > before.ToolsVersion
	})
	t.Logf("tool switch on b seen by a after %v", took)

	// The connections version moves by a trigger on connections.
	before, _ = lookup(t, p.a, p.hash)
	p.sql(t, `UPDATE projects SET connections_version = connections_version + 1 WHERE id = $1`, p.project.ID)
	waitFor(t, "a to see the connections version move", notifyBound, func() bool {
		kp, _ := lookup(t, p.a, p.hash)
		return kp.ConnectionsVersion > before.ConnectionsVersion
	})
}

// TestKeyCache_OwnWritesAtOnce: this process's own writes show on its next
// lookup without waiting for (or even getting) a notification.
func TestKeyCache_OwnWritesAtOnce(t *testing.T) {
	t.Parallel()
	p := newKeyPair(t)
	ctx := context.Background()
	before, _ := lookup(t, p.a, p.hash)
	p.sql(t, `ALTER TABLE projects DISABLE TRIGGER projects_notify`)
	p.sql(t, `ALTER TABLE api_keys DISABLE TRIGGER api_keys_notify`)
	if err := p.a.SetToolsEnabled(ctx, p.project.ID, []string{"github_list_repos"}, false); err != nil {
		t.Fatal(err)
	}
	if kp, _ := lookup(t, p.a, p.hash); kp.ToolsVersion <= before.ToolsVersion {
		t.Fatalf("after its own tool switch a answers tools version %d, want > %d", kp.ToolsVersion, before.ToolsVersion)
	}
	if _, err := p.a.RevokeAPIKey(ctx, p.keyID); err != nil {
		t.Fatal(err)
	}
	if _, ok := lookup(t, p.a, p.hash); ok {
		t.Fatal("a accepts a key it has just revoked itself")
	}
}

// TestKeyCache_ExpiredRefusedAtExpiry: a cached key is refused at its
// expiry by the cache itself, with no notification and no query (the
// database, changed silently, would still accept it).
func TestKeyCache_ExpiredRefusedAtExpiry(t *testing.T) {
	t.Parallel()
	p := newKeyPair(t)
	expires := p.clock.Now().Add(time.Hour)
	id, hash := p.newKey(t, &expires)
	if _, ok := lookup(t, p.a, hash); !ok {
		t.Fatal("a refuses a key that expires in an hour")
	}
	warmKey(t, p.a, hash)
	p.silently(t, `UPDATE api_keys SET expires_at = NULL WHERE id = $1`, id)
	p.clock.Advance(time.Hour - time.Millisecond)
	if _, ok := lookup(t, p.a, hash); !ok {
		t.Fatal("a refuses a key a millisecond before its expiry")
	}
	p.clock.Advance(time.Millisecond)
	if _, ok := lookup(t, p.a, hash); ok {
		t.Fatal("a accepts a key at its expiry")
	}
}

// TestKeyCache_ListenerLost: when the listener's connection is killed, the
// watching instance reads every key from the database (changes nobody
// announces are seen at once), and once subscribed again it has flushed
// what it cached, since it may have missed notifications.
func TestKeyCache_ListenerLost(t *testing.T) {
	t.Parallel()
	p := newKeyPair(t)
	ctx := context.Background()
	release := make(chan struct{})
	retries := make(chan int, 16)
	p.a.SetKeyRetry(func(ctx context.Context, attempt int) bool {
		retries <- attempt
		select {
		case <-release:
			return true
		case <-ctx.Done():
			return false
		}
	})
	_, second := p.newKey(t, nil)
	before, _ := lookup(t, p.a, p.hash)
	lookup(t, p.a, second)

	pid := p.a.KeyListenerPID()
	p.sql(t, `SELECT pg_terminate_backend($1)`, int64(pid))
	took := waitFor(t, "a to notice its listener is gone", 5*time.Second, func() bool { return !p.a.KeyCacheLive() })
	t.Logf("listener killed: a falls back to queries after %v", took)
	<-retries

	// Down: unannounced changes are seen on the next request.
	p.silently(t, `UPDATE api_keys SET revoked_at = 1 WHERE key_hash = $1`, second)
	if _, ok := lookup(t, p.a, second); ok {
		t.Fatal("with its listener down, a still answers a revoked key from its cache")
	}
	p.silently(t, `UPDATE projects SET tools_version = tools_version + 1 WHERE id = $1`, p.project.ID)
	if kp, _ := lookup(t, p.a, p.hash); kp.ToolsVersion != before.ToolsVersion+1 {
		t.Fatalf("with its listener down, a answers tools version %d, want %d", kp.ToolsVersion, before.ToolsVersion+1)
	}
	if _, err := p.b.RevokeAPIKey(ctx, p.keyID); err != nil {
		t.Fatal(err)
	}
	if _, ok := lookup(t, p.a, p.hash); ok {
		t.Fatal("with its listener down, a accepts a key b revoked")
	}

	// Subscribed again, on a new connection, with an empty cache.
	close(release)
	waitFor(t, "a to subscribe again", 5*time.Second, p.a.KeyCacheLive)
	if got := p.a.KeyListenerPID(); got == pid {
		t.Fatalf("listener pid still %d", got)
	}
	if n := p.a.CachedKeys(); n != 0 {
		t.Fatalf("a keeps %d cached keys after subscribing again", n)
	}
	// What changed while it was down, unannounced to it, is seen.
	if _, ok := lookup(t, p.a, p.hash); ok {
		t.Fatal("subscribed again, a accepts the key b revoked while its listener was down")
	}
	if _, ok := lookup(t, p.a, second); ok {
		t.Fatal("subscribed again, a accepts a key revoked while its listener was down")
	}
	_, third := p.newKey(t, nil)
	lookup(t, p.a, third)
	if _, err := p.b.RevokeAPIKey(ctx, keyIDOf(t, p.b, p.project.ID, third)); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the new listener to carry a revocation", notifyBound, func() bool {
		_, ok := lookup(t, p.a, third)
		return !ok
	})
}

func keyIDOf(t *testing.T, s *store.Store, projectID, hash string) string {
	t.Helper()
	var id string
	if err := s.ReadDB().QueryRowContext(context.Background(),
		`SELECT id FROM api_keys WHERE project_id = $1 AND key_hash = $2`, projectID, hash).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return id
}

// TestKeyCache_SQLiteSeesOtherProcesses: on SQLite the cache is on once
// the watcher read the change count (migration 0017), a key is then
// answered without a query (a revocation nobody counts is not seen), and a
// revocation by another process on the same file is refused within a few
// polls.
func TestKeyCache_SQLiteSeesOtherProcesses(t *testing.T) {
	t.Parallel()
	url := "sqlite:" + filepath.Join(t.TempDir(), "switchboard.db")
	a, b := openAt(t, url, nil), openAt(t, url, nil)
	watch(t, a)
	ctx := context.Background()
	proj, err := b.CreateProject(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	newKey := func() (id, hash string) {
		_, hash, hint, _ := apikey.Generate()
		k, err := b.CreateAPIKey(ctx, store.NewAPIKey{ProjectID: proj.ID, Name: "k", Hash: hash, Hint: hint})
		if err != nil {
			t.Fatal(err)
		}
		return k.ID, hash
	}
	silentID, silent := newKey()
	warmKey(t, a, silent)
	// Behind the counting triggers' back: the cached answer stands.
	if _, err := b.WriteDB().ExecContext(ctx, `DROP TRIGGER api_keys_counted_update`); err != nil {
		t.Fatal(err)
	}
	if _, err := b.RevokeAPIKey(ctx, silentID); err != nil {
		t.Fatal(err)
	}
	if _, ok := lookup(t, a, silent); !ok {
		t.Fatal("a read the key again instead of answering from its cache")
	}
	if _, err := b.WriteDB().ExecContext(ctx, `CREATE TRIGGER api_keys_counted_update AFTER UPDATE OF key_hash, project_id, expires_at, revoked_at ON api_keys
		BEGIN UPDATE change_counter SET n = n + 1; END`); err != nil {
		t.Fatal(err)
	}
	id, hash := newKey()
	lookup(t, a, hash)
	if _, err := b.RevokeAPIKey(ctx, id); err != nil {
		t.Fatal(err)
	}
	took := waitFor(t, "a to refuse the key the other process revoked", 500*time.Millisecond, func() bool {
		_, ok := lookup(t, a, hash)
		return !ok
	})
	t.Logf("revocation by another process refused after %v", took)
}

// BenchmarkProjectForKey_Postgres compares a lookup read from the database
// (no listener) with one answered by the cache (listener subscribed).
func BenchmarkProjectForKey_Postgres(b *testing.B) {
	ctx := context.Background()
	s, p := benchStore(b)
	_, hash, hint, _ := apikey.Generate()
	if _, err := s.CreateAPIKey(ctx, store.NewAPIKey{ProjectID: p.ID, Name: "k", Hash: hash, Hint: hint}); err != nil {
		b.Fatal(err)
	}
	run := func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.ProjectForKey(ctx, hash); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("query", run)
	stop := watchUntilLive(s)
	defer stop()
	b.Run("cached", run)
}

// benchStore opens a migrated store on the PostgreSQL test database, with a
// project, for the cache benchmarks (skipped without the database).
func benchStore(b *testing.B) (*store.Store, store.Project) {
	url := os.Getenv(storetest.PostgresURLEnv)
	if url == "" {
		b.Skipf("%s is not set", storetest.PostgresURLEnv)
	}
	ctx := context.Background()
	s, err := store.Open(ctx, url, store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	if _, err := s.Migrate(ctx); err != nil {
		b.Fatal(err)
	}
	p, err := s.CreateProject(ctx, "bench")
	if err != nil {
		b.Fatal(err)
	}
	return s, p
}

// watchUntilLive starts the change listener and waits until the caches
// answer; stop ends it.
func watchUntilLive(s *store.Store) (stop func()) {
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); s.WatchKeys(ctx, nil) }()
	for !s.KeyCacheLive() {
		time.Sleep(time.Millisecond)
	}
	return func() { cancel(); <-done }
}
