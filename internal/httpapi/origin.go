package httpapi

import (
	"net/url"
	"strings"
)

// sameWebOrigin reports whether a browser's Origin is the web app at
// webURL (docs/mcp.md): the same scheme, host and port. A web app on a
// loopback name (localhost, 127.0.0.1, [::1]) is the same app under any of
// the three, since a browser names the origin by what the user typed.
func sameWebOrigin(origin, webURL string) bool {
	w, err := url.Parse(webURL)
	if err != nil || w.Host == "" {
		return false
	}
	if strings.EqualFold(origin, w.Scheme+"://"+w.Host) {
		return true
	}
	o, err := url.Parse(origin)
	if err != nil || o.Host == "" || o.Path != "" || o.User != nil || o.RawQuery != "" || !strings.EqualFold(o.Scheme, w.Scheme) {
		return false
	}
	return loopbackName(o.Hostname()) && loopbackName(w.Hostname()) && effectivePort(o) == effectivePort(w)
}

func loopbackName(host string) bool {
	return strings.EqualFold(host, "localhost") || host == "127.0.0.1" || host == "::1"
}

// effectivePort is a URL's port, or its scheme's default.
func effectivePort(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}
