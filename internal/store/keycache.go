package store

import (
	"sync"
	"sync/atomic"

	"github.com/switchboard-gw/switchboard/internal/lru"
)

// Bounds of the API key cache: verified keys, and projects whose versions
// are held for them. An entry is a few dozen bytes, so both together stay
// under a few megabytes.
const (
	maxCachedKeys     = 16384
	maxCachedProjects = 4096
)

// keyCache holds what ProjectForKey answered, so a /v1 request needs no
// database read to learn its project: the verified key (by its SHA-256)
// with its project and expiry, and each such project's versions. It is
// trusted only while WatchKeys is in step with the database (live, see
// notify.go: the PostgreSQL listener is subscribed, or SQLite's change
// count was read); otherwise every lookup reads the database as before. The same machinery caches sessions and endpoints
// (recordcache.go).
//
// Only keys that exist and are live are stored: an unknown key is read
// every time, as it always was, so a flood of random keys costs what it
// did and cannot push good keys out.
//
// Every invalidation bumps gen, and an answer read from the database is
// stored only when gen has not moved since before the read, so a read that
// raced a change cannot store what the change made stale.
type keyCache struct {
	live     atomic.Bool
	gen      atomic.Uint64
	mu       sync.Mutex // orders stores after the gen check against drops
	keys     *lru.Cache[string, cachedKey]
	projects *lru.Cache[string, cachedVersions]
	// sessions by id and endpoints by slug (recordcache.go).
	sessions  *lru.Cache[string, cachedSession]
	endpoints *lru.Cache[string, Endpoint]
	// tokens are MCP access tokens by hash (tokencache.go).
	tokens *lru.Cache[string, OAuthToken]
}

// cachedKey is a verified key: its project and when it expires (Unix
// milliseconds, 0 for never).
type cachedKey struct {
	project string
	id      string
	expires int64
}

// cachedVersions are a project's versions as last read.
type cachedVersions struct {
	tools, connections, policies int64
}

func newKeyCache() *keyCache {
	return &keyCache{
		keys:      lru.New[string, cachedKey](maxCachedKeys),
		projects:  lru.New[string, cachedVersions](maxCachedProjects),
		sessions:  lru.New[string, cachedSession](maxCachedSessions),
		endpoints: lru.New[string, Endpoint](maxCachedEndpoints),
		tokens:    lru.New[string, OAuthToken](maxCachedTokens),
	}
}

// get returns the cached answer for hash at now (Unix milliseconds). found
// is false when the cache does not know; refused is true when it knows the
// key has expired, which needs no query.
func (c *keyCache) get(hash string, now int64) (kp KeyProject, found, refused bool) {
	k, ok := c.keys.Get(hash)
	if !ok {
		return KeyProject{}, false, false
	}
	if k.expires != 0 && now >= k.expires {
		return KeyProject{}, false, true
	}
	v, ok := c.projects.Get(k.project)
	if !ok {
		return KeyProject{}, false, false
	}
	return KeyProject{ID: k.project, KeyID: k.id, ToolsVersion: v.tools, ConnectionsVersion: v.connections, PoliciesVersion: v.policies}, true, false
}

// put stores a live key's answer read at gen, unless something was
// dropped since. Versions only move forward, so an older read never
// replaces a newer one.
func (c *keyCache) put(gen uint64, hash string, kp KeyProject, expires int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen.Load() != gen {
		return
	}
	c.keys.Put(hash, cachedKey{project: kp.ID, id: kp.KeyID, expires: expires})
	if v, ok := c.projects.Get(kp.ID); ok && (v.tools > kp.ToolsVersion || v.connections > kp.ConnectionsVersion || v.policies > kp.PoliciesVersion) {
		return
	}
	c.projects.Put(kp.ID, cachedVersions{tools: kp.ToolsVersion, connections: kp.ConnectionsVersion, policies: kp.PoliciesVersion})
}

// dropKey forgets a key: it was revoked, deleted, or its expiry changed.
func (c *keyCache) dropKey(hash string) {
	c.mu.Lock()
	c.gen.Add(1)
	c.keys.Remove(hash)
	c.mu.Unlock()
}

// dropProject forgets a project's versions, so the next lookup of any of
// its keys reads them again (and finds the project gone if it was deleted).
func (c *keyCache) dropProject(id string) {
	c.mu.Lock()
	c.gen.Add(1)
	c.projects.Remove(id)
	c.mu.Unlock()
}

// flush forgets everything: the listener may have missed notifications.
func (c *keyCache) flush() {
	c.mu.Lock()
	c.gen.Add(1)
	c.keys.Clear()
	c.projects.Clear()
	c.sessions.Clear()
	c.endpoints.Clear()
	c.tokens.Clear()
	c.mu.Unlock()
}

// setLive turns the cache on (after a flush, once the listener is
// subscribed) or off (the listener is down: every lookup reads the
// database, and nothing read is stored).
func (c *keyCache) setLive(live bool) {
	if live {
		c.flush()
	}
	c.live.Store(live)
	if !live {
		c.flush()
	}
}
