package execute

import (
	"net/url"
	"path"
	"strings"
	"testing"
)

// FuzzProxyURL checks that whatever endpoint a caller sends, ProxyURL
// either refuses it or returns a URL on the base's origin, under its path,
// whose every segment is plain in every server's eyes.
func FuzzProxyURL(f *testing.F) {
	for _, seed := range append(append([]string(nil), ssrfCorpus...),
		"/repos/a/b/issues", "users/@me", "/search?q=x&page=2", "/files/a%20b", "/a;b/c", "/x/..;/y", "/caf%C3%A9") {
		f.Add(seed)
	}
	base, _ := url.Parse("https://api.acme.test/v2")
	f.Fuzz(func(t *testing.T, endpoint string) {
		u, err := ProxyURL(base, endpoint)
		if err != nil {
			return
		}
		if !underBase(base, u) || u.User != nil || u.Fragment != "" {
			t.Fatalf("%q left the base: %s", endpoint, u)
		}
		for _, seg := range strings.Split(u.EscapedPath(), "/") {
			if !plainSegment(seg) {
				t.Fatalf("%q kept segment %q in %s", endpoint, seg, u)
			}
		}
		if clean := path.Clean(u.Path); clean != "/v2" && !strings.HasPrefix(clean, "/v2/") {
			t.Fatalf("%q cleans to %s", endpoint, clean)
		}
		// What is sent parses back to the same place.
		back, err := url.Parse(u.String())
		if err != nil || back.Host != base.Host || !strings.HasPrefix(back.EscapedPath(), "/v2/") {
			t.Fatalf("%q does not survive a round trip: %s (%v)", endpoint, u, err)
		}
	})
}

// FuzzExpandPath checks that a tool's input value in a path placeholder is
// either refused or lands in the tool's path as plain segments only.
func FuzzExpandPath(f *testing.F) {
	for _, seed := range []string{"docs/read me.md", "..", "../admin", "a/../../b", "..;/x", "\uff0e\uff0e", "a%2F..%2Fb", "%2e%2e", "a\\..\\b", "v1.2", ""} {
		f.Add(seed, true)
		f.Add(seed, false)
	}
	base, _ := url.Parse("https://api.acme.test/v2")
	f.Fuzz(func(t *testing.T, value string, slashes bool) {
		tmpl := "/items/{id}/detail"
		if slashes {
			tmpl = "/files/{+id}"
		}
		input := map[string]any{"id": value}
		if _, err := expandPath(tmpl, input); err != nil {
			return
		}
		escaped := escapedPath(tmpl, input)
		for _, seg := range strings.Split(escaped, "/") {
			// A server may decode %2F and %5C in a segment, so each decoded
			// segment is split again before looking for dot segments.
			decoded, err := url.PathUnescape(seg)
			if err != nil || climbs(decoded) {
				t.Fatalf("%q (slashes %v) gave segment %q in %s", value, slashes, seg, escaped)
			}
		}
		u, err := url.Parse(base.String() + escaped)
		if err != nil {
			return // the request is refused when it is built
		}
		if clean := path.Clean(u.Path); !strings.HasPrefix(clean, "/v2/items") && !strings.HasPrefix(clean, "/v2/files") {
			t.Fatalf("%q cleans to %s", value, clean)
		}
	})
}
