package store

// maxCachedTokens bounds the MCP access token cache: an entry is a few
// hundred bytes.
const maxCachedTokens = 16384

// The MCP access token cache lives in keyCache beside the API keys, with
// the same rules: trusted only while the change listener is subscribed,
// flushed with it, guarded by the generation counter. Only live access
// tokens are stored (an unknown, revoked or refresh token is read every
// time); a revocation drops the tokens from this process's cache at once
// and announces each one to the others ("o:" and its hash, migration 0025,
// or the change count on SQLite), and expiry needs no announcement since
// the caller checks it on every use.

// putToken stores a live access token read at gen, unless something was
// dropped since.
func (c *keyCache) putToken(gen uint64, t OAuthToken) {
	if t.Kind != TokenAccess || t.Revoked {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.gen.Load() != gen {
		return
	}
	c.tokens.Put(t.Hash, t)
}

// dropToken forgets a token: it was revoked or deleted.
func (c *keyCache) dropToken(hash string) {
	c.mu.Lock()
	c.gen.Add(1)
	c.tokens.Remove(hash)
	c.mu.Unlock()
}
