package execute

import (
	"strconv"
	"time"

	"golang.org/x/oauth2"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/lru"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// maxCachedTokens bounds each of the token caches below (one entry per
// account in use).
const maxCachedTokens = 16384

// tokenCache keeps client-credentials tokens per account revision.
type tokenCache struct {
	tokens *lru.Cache[string, *oauth2.Token]
}

func newTokenCache() tokenCache {
	return tokenCache{tokens: lru.New[string, *oauth2.Token](maxCachedTokens)}
}

func tokenKey(conn store.Connection) string {
	return conn.ID + "#" + strconv.FormatInt(conn.Revision, 10)
}

func (c tokenCache) get(key string, now time.Time) (string, bool) {
	t, ok := c.token(key, now)
	if !ok {
		return "", false
	}
	return t.AccessToken, true
}

// token returns the cached token while it is valid for refreshMargin more.
func (c tokenCache) token(key string, now time.Time) (*oauth2.Token, bool) {
	t, ok := c.tokens.Get(key)
	if !ok || (!t.Expiry.IsZero() && t.Expiry.Before(now.Add(refreshMargin))) {
		return nil, false
	}
	return t, true
}

// drop forgets a token the provider refused.
func (c tokenCache) drop(key string) { c.tokens.Remove(key) }

func (c tokenCache) put(key string, t *oauth2.Token) { c.tokens.Put(key, t) }

// freshCredentials keeps the OAuth credential each account's last refresh
// gave this process. A token refresh does not invalidate the resolution
// cache (it changes nothing resolution decides on), so a resolved account
// may still carry the sealed credential from before the refresh; without
// this, every call on it would see an expired token and read the account
// from the database again. Entries are per revision: a rotation moves the
// revision, and the rotated credential wins.
type freshCredentials struct {
	creds *lru.Cache[string, freshCredential]
}

type freshCredential struct {
	revision int64
	cred     account.Credential
}

func newFreshCredentials() freshCredentials {
	return freshCredentials{creds: lru.New[string, freshCredential](maxCachedTokens)}
}

// newer returns the credential a refresh left for conn when it expires
// later than cred, else cred.
func (f freshCredentials) newer(conn store.Connection, cred account.Credential) account.Credential {
	c, ok := f.creds.Get(conn.ID)
	if ok && c.revision == conn.Revision && c.cred.Expiry.After(cred.Expiry) {
		return c.cred
	}
	return cred
}

func (f freshCredentials) put(conn store.Connection, cred account.Credential) {
	f.creds.Put(conn.ID, freshCredential{revision: conn.Revision, cred: cred})
}

// grantedScopes keeps the scopes a token refresh or a client credentials
// token reported for an account, per revision. Storing them does not move
// the connections version (resolution never decides on scopes), so a
// resolved account may carry the scopes from before; the scope check uses
// these instead. A rotation moves the revision and its scopes win.
type grantedScopes struct {
	scopes *lru.Cache[string, revisionScopes]
}

type revisionScopes struct {
	revision int64
	scopes   []string
}

func newGrantedScopes() grantedScopes {
	return grantedScopes{scopes: lru.New[string, revisionScopes](maxCachedTokens)}
}

// of returns the scopes conn was last seen granted in this process.
func (g grantedScopes) of(conn store.Connection) []string {
	if s, ok := g.scopes.Get(conn.ID); ok && s.revision == conn.Revision {
		return s.scopes
	}
	return conn.Scopes
}

func (g grantedScopes) put(conn store.Connection, scopes []string) {
	g.scopes.Put(conn.ID, revisionScopes{revision: conn.Revision, scopes: scopes})
}
