package store_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// The session and endpoint caches share the API key cache's listener
// (keycache_test.go has the pair of instances these tests use).

func (p *keyPair) newSession(t *testing.T, ttl time.Duration) store.Session {
	t.Helper()
	ss, err := p.b.CreateSession(context.Background(), store.Session{ProjectID: p.project.ID, UserID: "u1",
		Spec: []byte(`{"connectors":["github"]}`), ExpiresAt: p.clock.Now().Add(ttl)})
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

func (p *keyPair) newEndpoint(t *testing.T, slug string) store.Endpoint {
	t.Helper()
	e, err := p.b.CreateEndpoint(context.Background(), store.Endpoint{ProjectID: p.project.ID, Slug: slug,
		Mode: "static", RequireUser: true, Spec: []byte(`{"connectors":["github"]}`)})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// silentlyRecords runs a statement with the session and endpoint triggers
// off, so a watching instance that still answers the old row answers it
// from its cache.
func (p *keyPair) silentlyRecords(t *testing.T, q string, args ...any) {
	t.Helper()
	p.sql(t, `ALTER TABLE sessions DISABLE TRIGGER sessions_notify`)
	p.sql(t, `ALTER TABLE endpoints DISABLE TRIGGER endpoints_notify`)
	defer func() {
		p.sql(t, `ALTER TABLE sessions ENABLE TRIGGER sessions_notify`)
		p.sql(t, `ALTER TABLE endpoints ENABLE TRIGGER endpoints_notify`)
	}()
	p.sql(t, q, args...)
}

func getSession(t *testing.T, s *store.Store, project, id string) (store.Session, bool) {
	t.Helper()
	ss, err := s.GetSession(context.Background(), project, id)
	return found(t, ss, err)
}

func warmSession(t *testing.T, s *store.Store, project, id string) {
	t.Helper()
	warm(t, s, "the session", func() { getSession(t, s, project, id) }, func() bool { return s.SessionCached(id) })
}

func warmEndpoint(t *testing.T, s *store.Store, slug string) {
	t.Helper()
	warm(t, s, "the endpoint", func() { getEndpoint(t, s, slug) }, func() bool { return s.EndpointCached(slug) })
}

func getEndpoint(t *testing.T, s *store.Store, slug string) (store.Endpoint, bool) {
	t.Helper()
	e, err := s.EndpointBySlug(context.Background(), slug)
	return found(t, e, err)
}

// TestSessionCache_OtherInstanceDeleteSeen: a session read once is
// answered from the cache (a delete nobody announces is not seen), and one
// deleted by another instance is refused within notifyBound, as is one
// deleted with its project.
func TestSessionCache_OtherInstanceDeleteSeen(t *testing.T) {
	t.Parallel()
	p := newKeyPair(t)
	silent, deleted := p.newSession(t, time.Hour), p.newSession(t, time.Hour)
	for _, ss := range []store.Session{silent, deleted} {
		if got, ok := getSession(t, p.a, p.project.ID, ss.ID); !ok || got.ID != ss.ID || string(got.Spec) != string(ss.Spec) {
			t.Fatalf("a: %+v %v", got, ok)
		}
	}
	if _, ok := getSession(t, p.a, "other-project", silent.ID); ok {
		t.Fatal("a answers a session for another project")
	}
	warmSession(t, p.a, p.project.ID, silent.ID)
	p.silentlyRecords(t, `DELETE FROM sessions WHERE id = $1`, silent.ID)
	if _, ok := getSession(t, p.a, p.project.ID, silent.ID); !ok {
		t.Fatal("a read the session again instead of answering from its cache")
	}
	if _, ok := getSession(t, p.b, p.project.ID, silent.ID); ok {
		t.Fatal("b, which does not watch, still finds the deleted session")
	}

	p.sql(t, `DELETE FROM sessions WHERE id = $1`, deleted.ID)
	took := waitFor(t, "a to refuse the deleted session", notifyBound, func() bool {
		_, ok := getSession(t, p.a, p.project.ID, deleted.ID)
		return !ok
	})
	t.Logf("session deleted on b refused by a after %v", took)

	// Deleted with its project (a cascade), too.
	other := p.newSession(t, time.Hour)
	getSession(t, p.a, p.project.ID, other.ID)
	p.sql(t, `DELETE FROM projects WHERE id = $1`, p.project.ID)
	waitFor(t, "a to refuse a session of a deleted project", notifyBound, func() bool {
		_, ok := getSession(t, p.a, p.project.ID, other.ID)
		return !ok
	})
}

// TestSessionCache_ExpiredRefusedAtExpiry: a cached session is refused at
// its expiry by the cache itself, with no notification and no query (the
// database, changed silently, would still accept it).
func TestSessionCache_ExpiredRefusedAtExpiry(t *testing.T) {
	t.Parallel()
	p := newKeyPair(t)
	ss := p.newSession(t, time.Hour)
	if _, ok := getSession(t, p.a, p.project.ID, ss.ID); !ok {
		t.Fatal("a refuses a session that expires in an hour")
	}
	warmSession(t, p.a, p.project.ID, ss.ID)
	p.silentlyRecords(t, `UPDATE sessions SET expires_at = expires_at + 86400000 WHERE id = $1`, ss.ID)
	p.clock.Advance(time.Hour - time.Millisecond)
	if _, ok := getSession(t, p.a, p.project.ID, ss.ID); !ok {
		t.Fatal("a refuses a session a millisecond before its expiry")
	}
	p.clock.Advance(time.Millisecond)
	if _, ok := getSession(t, p.a, p.project.ID, ss.ID); ok {
		t.Fatal("a accepts a session at its expiry")
	}
}

// TestEndpointCache_OtherInstanceUpdateSeen: an endpoint read once is
// answered from the cache; one updated (mode, scope) or deleted by another
// instance is seen within notifyBound; this instance's own writes at once.
func TestEndpointCache_OtherInstanceUpdateSeen(t *testing.T) {
	t.Parallel()
	p := newKeyPair(t)
	ctx := context.Background()
	e := p.newEndpoint(t, "support-"+p.project.ID)
	if got, ok := getEndpoint(t, p.a, e.Slug); !ok || got.Mode != "static" || got.ProjectID != p.project.ID {
		t.Fatalf("a: %+v %v", got, ok)
	}
	warmEndpoint(t, p.a, e.Slug)
	p.silentlyRecords(t, `UPDATE endpoints SET require_user = FALSE WHERE slug = $1`, e.Slug)
	if got, _ := getEndpoint(t, p.a, e.Slug); !got.RequireUser {
		t.Fatal("a read the endpoint again instead of answering from its cache")
	}

	newSpec := `{"connectors":["slack"]}`
	if err := p.b.UpdateEndpoint(ctx, store.Endpoint{Slug: e.Slug, Mode: "dynamic", RequireUser: true, Spec: []byte(newSpec)}); err != nil {
		t.Fatal(err)
	}
	took := waitFor(t, "a to see the endpoint's new mode and scope", notifyBound, func() bool {
		got, _ := getEndpoint(t, p.a, e.Slug)
		return got.Mode == "dynamic" && string(got.Spec) == newSpec
	})
	t.Logf("endpoint update on b seen by a after %v", took)

	if err := p.b.DeleteEndpoint(ctx, e.Slug); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a to refuse the deleted endpoint", notifyBound, func() bool {
		_, ok := getEndpoint(t, p.a, e.Slug)
		return !ok
	})

	// Its own writes, with nobody announcing them.
	own := p.newEndpoint(t, "own-"+p.project.ID)
	getEndpoint(t, p.a, own.Slug)
	p.sql(t, `ALTER TABLE endpoints DISABLE TRIGGER endpoints_notify`)
	defer p.sql(t, `ALTER TABLE endpoints ENABLE TRIGGER endpoints_notify`)
	if err := p.a.UpdateEndpoint(ctx, store.Endpoint{Slug: own.Slug, Mode: "dynamic", Spec: []byte(newSpec)}); err != nil {
		t.Fatal(err)
	}
	if got, _ := getEndpoint(t, p.a, own.Slug); got.Mode != "dynamic" {
		t.Fatalf("after its own update a answers mode %q", got.Mode)
	}
	if err := p.a.DeleteEndpoint(ctx, own.Slug); err != nil {
		t.Fatal(err)
	}
	if _, ok := getEndpoint(t, p.a, own.Slug); ok {
		t.Fatal("a finds an endpoint it has just deleted itself")
	}
}

// TestSessionCache_ListenerLost: with the listener's connection killed,
// sessions and endpoints are read from the database (unannounced changes
// seen at once); once subscribed again the caches start empty.
func TestSessionCache_ListenerLost(t *testing.T) {
	t.Parallel()
	p := newKeyPair(t)
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
	ss, later := p.newSession(t, time.Hour), p.newSession(t, time.Hour)
	e := p.newEndpoint(t, "lost-"+p.project.ID)
	warmSession(t, p.a, p.project.ID, ss.ID)
	warmSession(t, p.a, p.project.ID, later.ID)
	warmEndpoint(t, p.a, e.Slug)
	if p.a.CachedSessions() != 2 || p.a.CachedEndpoints() != 1 {
		t.Fatalf("a caches %d sessions and %d endpoints, want 2 and 1", p.a.CachedSessions(), p.a.CachedEndpoints())
	}

	pid := p.a.KeyListenerPID()
	p.sql(t, `SELECT pg_terminate_backend($1)`, int64(pid))
	waitFor(t, "a to notice its listener is gone", 5*time.Second, func() bool { return !p.a.KeyCacheLive() })
	<-retries

	// Down: unannounced changes are seen on the next request.
	p.silentlyRecords(t, `DELETE FROM sessions WHERE id = $1`, ss.ID)
	if _, ok := getSession(t, p.a, p.project.ID, ss.ID); ok {
		t.Fatal("with its listener down, a still answers a deleted session")
	}
	p.silentlyRecords(t, `UPDATE endpoints SET mode = 'dynamic' WHERE slug = $1`, e.Slug)
	if got, _ := getEndpoint(t, p.a, e.Slug); got.Mode != "dynamic" {
		t.Fatalf("with its listener down, a answers mode %q", got.Mode)
	}
	if p.a.CachedSessions() != 0 || p.a.CachedEndpoints() != 0 {
		t.Fatalf("with its listener down, a caches %d sessions and %d endpoints", p.a.CachedSessions(), p.a.CachedEndpoints())
	}
	p.silentlyRecords(t, `DELETE FROM sessions WHERE id = $1`, later.ID)

	// Subscribed again with empty caches: what changed meanwhile is seen.
	close(release)
	waitFor(t, "a to subscribe again", 5*time.Second, p.a.KeyCacheLive)
	if p.a.CachedSessions() != 0 || p.a.CachedEndpoints() != 0 {
		t.Fatalf("a keeps %d sessions and %d endpoints after subscribing again", p.a.CachedSessions(), p.a.CachedEndpoints())
	}
	if _, ok := getSession(t, p.a, p.project.ID, later.ID); ok {
		t.Fatal("subscribed again, a answers a session deleted while its listener was down")
	}
	third := p.newSession(t, time.Hour)
	getSession(t, p.a, p.project.ID, third.ID)
	p.sql(t, `DELETE FROM sessions WHERE id = $1`, third.ID)
	waitFor(t, "the new listener to carry a session delete", notifyBound, func() bool {
		_, ok := getSession(t, p.a, p.project.ID, third.ID)
		return !ok
	})
}

// TestSessionCache_SQLiteSeesOtherProcesses: on SQLite sessions and
// endpoints are cached once the watcher read the change count, and another
// process's endpoint update and delete and its session cleanup are seen
// within a few polls.
func TestSessionCache_SQLiteSeesOtherProcesses(t *testing.T) {
	t.Parallel()
	url := "sqlite:" + filepath.Join(t.TempDir(), "switchboard.db")
	// b's clock runs two hours ahead, so its cleanup deletes a session a
	// still sees live.
	later := func() time.Time { return time.Now().Add(2 * time.Hour) }
	a, b := openAt(t, url, nil), openAt(t, url, later)
	watch(t, a)
	ctx := context.Background()
	proj, err := b.CreateProject(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	ss, err := b.CreateSession(ctx, store.Session{ProjectID: proj.ID, UserID: "u", Spec: []byte(`{}`), ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	e, err := b.CreateEndpoint(ctx, store.Endpoint{ProjectID: proj.ID, Slug: "s", Mode: "static", Spec: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	warmSession(t, a, proj.ID, ss.ID)
	warmEndpoint(t, a, e.Slug)
	if a.CachedSessions() != 1 || a.CachedEndpoints() != 1 {
		t.Fatalf("on SQLite a caches %d sessions and %d endpoints, want 1 and 1", a.CachedSessions(), a.CachedEndpoints())
	}
	const bound = 500 * time.Millisecond
	if err := b.UpdateEndpoint(ctx, store.Endpoint{Slug: e.Slug, Mode: "dynamic", Spec: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a to see the other process's endpoint update", bound, func() bool {
		got, _ := getEndpoint(t, a, e.Slug)
		return got.Mode == "dynamic"
	})
	if err := b.DeleteEndpoint(ctx, e.Slug); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a to miss the endpoint the other process deleted", bound, func() bool {
		_, ok := getEndpoint(t, a, e.Slug)
		return !ok
	})
	getSession(t, a, proj.ID, ss.ID)
	if _, err := b.Cleanup(ctx); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a to miss the session the other process deleted", bound, func() bool {
		_, ok := getSession(t, a, proj.ID, ss.ID)
		return !ok
	})
}

// BenchmarkSession_Postgres compares GetSession and EndpointBySlug read
// from the database (no listener) with the cached answers (listener
// subscribed).
func BenchmarkSession_Postgres(b *testing.B) {
	ctx := context.Background()
	s, p := benchStore(b)
	ss, err := s.CreateSession(ctx, store.Session{ProjectID: p.ID, UserID: "u", Spec: []byte(`{"connectors":["github"]}`), ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		b.Fatal(err)
	}
	e, err := s.CreateEndpoint(ctx, store.Endpoint{ProjectID: p.ID, Slug: "bench-" + p.ID, Mode: "static", Spec: []byte(`{}`)})
	if err != nil {
		b.Fatal(err)
	}
	session := func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.GetSession(ctx, p.ID, ss.ID); err != nil {
				b.Fatal(err)
			}
		}
	}
	endpoint := func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := s.EndpointBySlug(ctx, e.Slug); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("session/query", session)
	b.Run("endpoint/query", endpoint)
	stop := watchUntilLive(s)
	defer stop()
	b.Run("session/cached", session)
	b.Run("endpoint/cached", endpoint)
}
