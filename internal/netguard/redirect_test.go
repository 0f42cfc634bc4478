package netguard

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// seen records what a test server received.
type seen struct {
	mu   sync.Mutex
	reqs []*http.Request
	body []string
}

func (s *seen) handler(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		s.mu.Lock()
		s.reqs = append(s.reqs, r)
		s.body = append(s.body, string(b))
		s.mu.Unlock()
		if next != nil {
			next(w, r)
		}
	}
}

func (s *seen) last(t *testing.T) (*http.Request, string) {
	t.Helper()
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.reqs) == 0 {
		t.Fatal("the server was not reached")
	}
	return s.reqs[len(s.reqs)-1], s.body[len(s.body)-1]
}

// redirector answers every request with a redirect to target.
func redirector(t *testing.T, status int, target func() string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/final" {
			w.WriteHeader(200)
			return
		}
		http.Redirect(w, r, target(), status)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestRedirect_ToAnotherOriginCarriesNoCredential(t *testing.T) {
	t.Parallel()
	var other seen
	elsewhere := httptest.NewServer(other.handler(nil))
	defer elsewhere.Close()
	api := redirector(t, http.StatusFound, func() string { return elsewhere.URL + "/landing" })

	req, _ := http.NewRequest("GET", api.URL+"/items?api_key=s3cret-query", nil)
	req.Header.Set("Authorization", "Bearer s3cret-bearer")
	req.Header.Set("X-Api-Key", "s3cret-header")
	req.Header.Set("PRIVATE-TOKEN", "s3cret-gitlab")
	req.Header.Set("X-Shopify-Access-Token", "s3cret-shopify")
	req.Header.Set("Accept", "application/json")
	resp, err := New(Options{AllowLoopback: true}).Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got, _ := other.last(t)
	for k, v := range got.Header {
		if strings.Contains(strings.Join(v, " "), "s3cret") {
			t.Errorf("header %s reached the other origin: %q", k, v)
		}
	}
	if ref := got.Header.Get("Referer"); ref != "" {
		t.Errorf("Referer sent to the other origin: %q", ref)
	}
	if got.Header.Get("Accept") != "application/json" {
		t.Errorf("Accept was dropped: %v", got.Header)
	}
}

func TestRedirect_SameOriginKeepsHeadersWithoutReferer(t *testing.T) {
	t.Parallel()
	var s seen
	var srv *httptest.Server
	srv = httptest.NewServer(s.handler(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, srv.URL+"/new", http.StatusMovedPermanently)
		}
	}))
	defer srv.Close()
	req, _ := http.NewRequest("GET", srv.URL+"/old?key=s3cret-query", nil)
	req.Header.Set("X-Api-Key", "k")
	resp, err := New(Options{AllowLoopback: true}).Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	got, _ := s.last(t)
	if got.URL.Path != "/new" || got.Header.Get("X-Api-Key") != "k" {
		t.Fatalf("same-origin redirect: %s %v", got.URL.Path, got.Header)
	}
	if got.Header.Get("Referer") != "" {
		t.Fatalf("Referer carries the previous URL: %q", got.Header.Get("Referer"))
	}
}

func TestRedirect_BodyNeverResentToAnotherOrigin(t *testing.T) {
	t.Parallel()
	var other seen
	elsewhere := httptest.NewServer(other.handler(nil))
	defer elsewhere.Close()
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		api := redirector(t, status, func() string { return elsewhere.URL + "/collect" })
		req, _ := http.NewRequest("POST", api.URL+"/token", strings.NewReader("client_secret=s3cret"))
		_, err := New(Options{AllowLoopback: true}).Client().Do(req)
		if !errors.Is(err, ErrRedirectBody) {
			t.Errorf("%d to another origin with a body: %v", status, err)
		}
	}
	other.mu.Lock()
	defer other.mu.Unlock()
	if len(other.reqs) != 0 {
		t.Fatalf("the other origin received %d requests", len(other.reqs))
	}
}

func TestRedirect_SameOriginResendsBody(t *testing.T) {
	t.Parallel()
	var s seen
	var srv *httptest.Server
	srv = httptest.NewServer(s.handler(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(w, r, srv.URL+"/new", http.StatusTemporaryRedirect)
		}
	}))
	defer srv.Close()
	req, _ := http.NewRequest("POST", srv.URL+"/old", strings.NewReader(`{"a":1}`))
	resp, err := New(Options{AllowLoopback: true}).Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got, body := s.last(t); got.URL.Path != "/new" || body != `{"a":1}` {
		t.Fatalf("307 on the same origin: %s %q", got.URL.Path, body)
	}
}

func TestRedirect_HTTPSToHTTPRefused(t *testing.T) {
	t.Parallel()
	var plain seen
	insecure := httptest.NewServer(plain.handler(nil))
	defer insecure.Close()
	secure := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, insecure.URL+"/x", http.StatusFound)
	}))
	defer secure.Close()
	g := New(Options{AllowLoopback: true, TLSConfig: secure.Client().Transport.(*http.Transport).TLSClientConfig})
	req, _ := http.NewRequest("GET", secure.URL, nil)
	if _, err := g.Client().Do(req); !errors.Is(err, ErrRedirectDowngrade) {
		t.Fatalf("https to http: %v", err)
	}
	if len(plain.reqs) != 0 {
		t.Fatal("the plain-http server was reached")
	}
}

func TestRedirect_ContextCheckRunsOnEveryHop(t *testing.T) {
	t.Parallel()
	final := redirector(t, http.StatusFound, func() string { return "/final" })
	api := redirector(t, http.StatusFound, func() string { return final.URL + "/next" })
	stop := errors.New("off the base")
	var checked []string
	ctx := WithRedirectCheck(context.Background(), func(u *url.URL) error {
		checked = append(checked, u.Path)
		if u.Path == "/final" {
			return stop
		}
		return nil
	})
	req, _ := http.NewRequestWithContext(ctx, "GET", api.URL+"/start", nil)
	if _, err := New(Options{AllowLoopback: true}).Client().Do(req); !errors.Is(err, stop) {
		t.Fatalf("check error not returned: %v", err)
	}
	if strings.Join(checked, ",") != "/next,/final" {
		t.Fatalf("checked %v", checked)
	}
}

func TestRedirect_LoopStops(t *testing.T) {
	t.Parallel()
	var srv *httptest.Server
	srv = redirector(t, http.StatusFound, func() string { return srv.URL + "/again" })
	req, _ := http.NewRequest("GET", srv.URL, nil)
	if _, err := New(Options{AllowLoopback: true}).Client().Do(req); !errors.Is(err, ErrTooManyRedirects) {
		t.Fatalf("loop: %v", err)
	}
}

func TestSameOrigin(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"https://api.example.com/a", "https://API.example.com:443/b", true},
		{"http://h/a", "http://h:80/b", true},
		{"https://h/a", "http://h/a", false},
		{"https://h/a", "https://h:8443/a", false},
		{"https://api.example.com/", "https://uploads.example.com/", false},
	} {
		a, _ := url.Parse(c.a)
		b, _ := url.Parse(c.b)
		if SameOrigin(a, b) != c.want {
			t.Errorf("SameOrigin(%s, %s) != %v", c.a, c.b, c.want)
		}
	}
}
