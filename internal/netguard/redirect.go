package netguard

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
)

// Errors a redirect is refused with (wrapped in the client's *url.Error).
var (
	// ErrRedirectDowngrade is a redirect from https to plain http.
	ErrRedirectDowngrade = errors.New("netguard: refused a redirect from https to http")
	// ErrRedirectBody is a 307 or 308 redirect to another origin, which
	// would resend the request body there.
	ErrRedirectBody = errors.New("netguard: refused to resend a request body to another origin")
	// ErrTooManyRedirects stops a redirect loop.
	ErrTooManyRedirects = errors.New("netguard: stopped after 5 redirects")
)

// maxRedirects bounds the hops of one request.
const maxRedirects = 5

// passOnRedirect are the only headers a request carries to another origin
// when it is redirected there. Anything else may be a credential: besides
// Authorization, which http.Client already drops, providers take keys in
// headers of their own (X-Api-Key, PRIVATE-TOKEN, X-Shopify-Access-Token).
var passOnRedirect = map[string]bool{
	"Accept":          true,
	"Accept-Encoding": true,
	"Accept-Language": true,
	"User-Agent":      true,
}

// CheckRedirect is the redirect policy of every guarded client: at most 5
// hops, never from https to plain http, no Referer (it would carry the
// previous URL's query string, where a credential may be), and to another
// origin only the headers in passOnRedirect and never a request body. A
// check set with WithRedirectCheck runs on every hop as well. Each hop's
// address is checked by the dialer like any other.
func CheckRedirect(req *http.Request, via []*http.Request) error {
	if len(via) >= maxRedirects {
		return ErrTooManyRedirects
	}
	if req.URL.Scheme != "https" && (via[0].URL.Scheme == "https" || via[len(via)-1].URL.Scheme == "https") {
		return ErrRedirectDowngrade
	}
	req.Header.Del("Referer")
	if check, ok := req.Context().Value(redirectCheckKey{}).(func(*url.URL) error); ok {
		if err := check(req.URL); err != nil {
			return err
		}
	}
	if SameOrigin(req.URL, via[0].URL) {
		return nil
	}
	// http.Client copies the first request's headers onto every hop, so
	// they are filtered on every hop that leaves the first origin.
	if req.Body != nil && req.Body != http.NoBody {
		return ErrRedirectBody
	}
	for k := range req.Header {
		if !passOnRedirect[k] {
			delete(req.Header, k)
		}
	}
	return nil
}

type redirectCheckKey struct{}

// WithRedirectCheck returns a context whose requests through a guarded
// client run check on every redirect target before following it; an error
// from check stops the request with that error.
func WithRedirectCheck(ctx context.Context, check func(*url.URL) error) context.Context {
	return context.WithValue(ctx, redirectCheckKey{}, check)
}

// SameOrigin reports whether two URLs share scheme, host and port (a
// missing port is the scheme's default).
func SameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return "443"
	case "http":
		return "80"
	}
	return ""
}
