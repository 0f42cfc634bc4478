package connect

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"strings"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apikey"
)

// An OAuth state is bound to the browser that started the sign-in: the
// authorize response sets a cookie holding a random nonce whose hash is
// stored with the state, and the callback completes only with that cookie.
// Without the binding one person could start a sign-in from their link and
// have someone else's browser finish it, linking that person's provider
// account to the first person's user id (login CSRF).

// stateTTL is how long a started sign-in may take.
const stateTTL = 15 * time.Minute

// browserCookiePrefix starts the name of a sign-in's cookie; the rest is
// derived from the state, so sign-ins started in two tabs do not overwrite
// each other's cookie.
const browserCookiePrefix = "sb_oauth_"

// BrowserCookieName is the name of the cookie that binds the sign-in with
// this state (the callback's state parameter) to its browser. It reveals
// nothing of the state: it is a prefix of the state's hash.
func BrowserCookieName(state string) string {
	return browserCookiePrefix + apikey.Hash(state)[:16]
}

// newBrowserNonce returns a random nonce for a sign-in's cookie and the
// hash stored with its state.
func newBrowserNonce() (nonce, hash string, err error) {
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", "", err
	}
	nonce = base64.RawURLEncoding.EncodeToString(raw[:])
	return nonce, apikey.Hash(nonce), nil
}

// browserCookie is the cookie a sign-in's authorize response sets: only
// sent to the callback path, never readable by scripts, Secure when the
// callback is on https, and sent on the provider's top-level redirect back
// (SameSite=Lax) but not on cross-site subrequests.
func (p *Page) browserCookie(state, nonce string, maxAge int) *http.Cookie {
	return &http.Cookie{Name: BrowserCookieName(state), Value: nonce, Path: CallbackPath, MaxAge: maxAge, HttpOnly: true,
		Secure: strings.HasPrefix(p.BaseURL, "https://"), SameSite: http.SameSiteLaxMode}
}

// ClearBrowserCookie is the cookie that removes a finished sign-in's cookie.
func (p *Page) ClearBrowserCookie(state string) *http.Cookie {
	return p.browserCookie(state, "", -1)
}

// sameBrowser reports whether the nonce from the callback's cookie is the
// one the state was started with.
func sameBrowser(nonce, storedHash string) bool {
	return nonce != "" && storedHash != "" && subtle.ConstantTimeCompare([]byte(apikey.Hash(nonce)), []byte(storedHash)) == 1
}
