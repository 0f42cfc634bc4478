package execute

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/apierr"
)

// elsewhere is another origin a provider redirects to; it records what
// reaches it.
type elsewhere struct {
	srv  *httptest.Server
	mu   sync.Mutex
	hits []seen
}

func newElsewhere(t *testing.T) *elsewhere {
	t.Helper()
	x := &elsewhere{}
	x.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		x.mu.Lock()
		x.hits = append(x.hits, seen{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone(), Body: string(body)})
		x.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"landed":true}`)
	}))
	t.Cleanup(x.srv.Close)
	return x
}

func (x *elsewhere) requests() []seen {
	x.mu.Lock()
	defer x.mu.Unlock()
	return append([]seen(nil), x.hits...)
}

// leaks reports the credential values found in what another origin received.
func leaks(s seen, secrets ...string) []string {
	var found []string
	all := s.Body + " " + s.Query.Encode()
	for k, v := range s.Header {
		all += " " + k + ": " + strings.Join(v, ",")
	}
	for _, secret := range secrets {
		if strings.Contains(all, secret) {
			found = append(found, secret)
		}
	}
	return found
}

// redirectTo returns the endpoint where the fake provider redirects to target.
func (f *fakeProvider) redirectTo(status, target string) string {
	name := strconv.FormatInt(f.nextRedirect.Add(1), 10)
	f.redirects.Store(name, target)
	return "/redirect/" + status + "/" + name
}

func TestExecute_RedirectToAnotherOriginCarriesNoCredential(t *testing.T) {
	t.Parallel()
	other := newElsewhere(t)
	for _, c := range []struct {
		name       string
		credential map[string]any
		secrets    []string
	}{
		{"api key header", map[string]any{"type": "api_key", "apiKey": "k-secret-1"}, []string{"k-secret-1"}},
		{"custom header and query", map[string]any{"type": "custom", "fields": map[string]any{"token": "tok-secret-2", "workspace": "ws-secret-3"}},
			[]string{"tok-secret-2", "ws-secret-3"}},
		{"basic", map[string]any{"type": "basic", "username": "alice", "password": "pw-secret-4"}, []string{"pw-secret-4", "YWxpY2U6cHctc2VjcmV0LTQ="}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnv(t, nil)
			e.connect("u1", c.credential)
			got, err := e.run("acme_get_file", `{"path":"`+strings.TrimPrefix(e.fake.redirectTo("302", other.srv.URL+"/landing"), "/")+`"}`)
			if err != nil {
				t.Fatalf("a redirect to another origin is followed without the credential: %v", err)
			}
			if m := asMap(got); m["landed"] != true {
				t.Fatalf("answer: %v", got)
			}
			hits := other.requests()
			if len(hits) == 0 {
				t.Fatal("the other origin was not reached")
			}
			if found := leaks(hits[len(hits)-1], c.secrets...); len(found) != 0 {
				t.Fatalf("the credential reached another origin: %v in %+v", found, hits[len(hits)-1])
			}
		})
	}
}

func TestExecute_RedirectNeverResendsBodyToAnotherOrigin(t *testing.T) {
	t.Parallel()
	other := newElsewhere(t)
	e := newEnv(t, nil)
	e.connect("u1", map[string]any{"type": "api_key", "apiKey": "k"})
	_, err := e.exec.Proxy(context.Background(), e.tenant(), ProxyCall{ConnectorID: "acme", UserID: "u1", Method: "POST",
		Endpoint: e.fake.redirectTo("307", other.srv.URL+"/collect"), Body: json.RawMessage(`{"card":"4242"}`)})
	if err == nil {
		t.Fatal("a 307 to another origin was followed")
	}
	if len(other.requests()) != 0 {
		t.Fatalf("the body reached another origin: %+v", other.requests())
	}
}

func TestProxy_RedirectOffTheBaseIsForbidden(t *testing.T) {
	t.Parallel()
	other := newElsewhere(t)
	e := newEnv(t, nil)
	e.connect("u1", map[string]any{"type": "api_key", "apiKey": "k-secret"})
	proxy := func(endpoint string) (any, error) {
		return e.exec.Proxy(context.Background(), e.tenant(), ProxyCall{ConnectorID: "acme", UserID: "u1", Method: "GET", Endpoint: endpoint})
	}
	for _, target := range []string{
		other.srv.URL + "/x",       // another origin
		e.fake.srv.URL + "/admin",  // the API host, outside the base path /api
		e.fake.srv.URL + "/apix/y", // a prefix of the base path, not under it
		"/token?grant_type=evil",   // relative, outside the base path
		e.fake.srv.URL + "/api/../admin",
	} {
		before := len(e.fake.requests)
		_, err := proxy(e.fake.redirectTo("302", target))
		wantCode(t, err, apierr.ForbiddenEndpoint, 403)
		e.fake.mu.Lock()
		after := len(e.fake.requests)
		e.fake.mu.Unlock()
		if after != before+1 {
			t.Errorf("%s: the redirect was followed (%d requests)", target, after-before)
		}
	}
	if len(other.requests()) != 0 {
		t.Fatal("the proxy followed a redirect to another origin")
	}
	// A redirect that stays under the base is followed with the credential.
	got, err := proxy(e.fake.redirectTo("301", "/api/things/2"))
	if err != nil {
		t.Fatal(err)
	}
	if m := asMap(got); m["path"] != "/api/things/2" || e.fake.last().Header.Get("X-Api-Key") != "Key k-secret" {
		t.Fatalf("redirect under the base: %v %+v", got, e.fake.last())
	}
}
