package store

// Bounds of the session and endpoint caches. A session entry holds its
// spec (usually well under a kilobyte), so the sessions cache stays under
// a few tens of megabytes even with large specs; endpoints are few.
const (
	maxCachedSessions  = 16384
	maxCachedEndpoints = 4096
)

// cachedSession is a live session as read, with its expiry in Unix
// milliseconds so a hit compares integers.
type cachedSession struct {
	s       Session
	expires int64
}

// The session and endpoint caches live in keyCache beside the API keys:
// the same listener clears them ("s:" and "e:" notifications, migration
// 0016), they are trusted only while it is subscribed, flushed with it,
// and guarded by the same generation counter, so a read that raced a
// change cannot store what the change made stale. Only what exists is
// stored (a live session, an existing endpoint): an unknown id or slug is
// read every time, as before, and cannot push good entries out.

// session returns the cached session id of project at now (Unix
// milliseconds). found is false when the cache does not know; refused is
// true when it knows the session has expired, which needs no query.
func (c *keyCache) session(project, id string, now int64) (ss Session, found, refused bool) {
	e, ok := c.sessions.Get(id)
	if !ok || e.s.ProjectID != project {
		return Session{}, false, false
	}
	if now >= e.expires {
		return Session{}, false, true
	}
	return e.s, true, false
}

// putSession stores a live session read at gen, unless something was
// dropped since.
func (c *keyCache) putSession(gen uint64, ss Session) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen.Load() != gen {
		return
	}
	c.sessions.Put(ss.ID, cachedSession{s: ss, expires: millis(ss.ExpiresAt)})
}

// dropSession forgets a session: it was updated or deleted.
func (c *keyCache) dropSession(id string) {
	c.mu.Lock()
	c.gen.Add(1)
	c.sessions.Remove(id)
	c.mu.Unlock()
}

// endpoint returns the cached endpoint of slug.
func (c *keyCache) endpoint(slug string) (Endpoint, bool) {
	return c.endpoints.Get(slug)
}

// putEndpoint stores an endpoint read at gen, unless something was dropped
// since.
func (c *keyCache) putEndpoint(gen uint64, e Endpoint) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen.Load() != gen {
		return
	}
	c.endpoints.Put(e.Slug, e)
}

// dropEndpoint forgets the endpoint of slug: it was updated or deleted.
func (c *keyCache) dropEndpoint(slug string) {
	c.mu.Lock()
	c.gen.Add(1)
	c.endpoints.Remove(slug)
	c.mu.Unlock()
}
