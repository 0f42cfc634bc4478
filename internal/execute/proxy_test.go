package execute

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// ssrfCorpus are endpoints that try to leave the connector's API base.
var ssrfCorpus = []string{
	"https://evil.example/x",
	"http://169.254.169.254/latest/meta-data/",
	"//evil.example/x",
	"///evil.example/x",
	"/../admin",
	"/items/../../admin",
	"..",
	"../",
	"/./x/../..",
	"/%2e%2e/admin",
	"/%2E%2E/admin",
	"/items/%2f%2f/evil",
	"/items%2F..%2F..%2Fadmin",
	"/items/%252e%252e/admin",
	"\\\\evil.example\\x",
	"/items\\..\\admin",
	"/\\evil.example",
	"/items/%5c..%5cadmin",
	"@evil.example/x",
	"user:pass@evil.example/",
	"/items#@evil.example",
	"http:evil.example",
	"HTTPS://evil.example",
	"ftp://evil.example/",
	"javascript:alert(1)",
	"file:///etc/passwd",
	"/items\r\nHost: evil.example",
	"/items\x00/admin",
	"/items/%00",
	" /items",
	"/items\t",
	"%2f%2fevil.example",
	"//127.0.0.1:22/",
	"/:8443/x",
	// Dot segments in the eyes of servers that drop ";parameters", decode
	// after routing, or fold Unicode compatibility forms.
	"/..;/admin",
	"/items/..;/..;/admin",
	"/items/..;jsessionid=1/admin",
	"/items/.;/x",
	"/items/..%3b/admin",
	"/．．/admin",
	"/items/．．/．．/admin",
	"/%EF%BC%8E%EF%BC%8E/admin",
	"/items/‥/admin",
	"/items/﹒﹒/admin",
	"/items/.../admin",
	"/items／..／admin",
	"/items＼..＼admin",
	"/%c0%ae%c0%ae/admin",
}

func TestProxyURL_RefusesEveryEscape(t *testing.T) {
	t.Parallel()
	base, _ := url.Parse("https://api.acme.test/v2")
	if len(ssrfCorpus) < 30 {
		t.Fatalf("corpus has %d attempts", len(ssrfCorpus))
	}
	for _, ep := range ssrfCorpus {
		u, err := ProxyURL(base, ep)
		if err == nil {
			t.Errorf("%q accepted as %s", ep, u)
			continue
		}
		if e, ok := apierr.As(err); !ok || e.Code != apierr.ForbiddenEndpoint || e.HTTPStatus() != 403 {
			t.Errorf("%q: %v", ep, err)
		}
	}
	for ep, want := range map[string]string{
		"/repos/a/b/issues":     "https://api.acme.test/v2/repos/a/b/issues",
		"users/@me":             "https://api.acme.test/v2/users/@me",
		"/search?q=x&page=2":    "https://api.acme.test/v2/search?q=x&page=2",
		"/files/a%20b":          "https://api.acme.test/v2/files/a%20b",
		"/guilds/1/members/@me": "https://api.acme.test/v2/guilds/1/members/@me",
		"/files/a.b..c/x;v=1":   "https://api.acme.test/v2/files/a.b..c/x;v=1",
		"/files/caf%C3%A9/.env": "https://api.acme.test/v2/files/caf%C3%A9/.env",
	} {
		u, err := ProxyURL(base, ep)
		if err != nil || u.String() != want {
			t.Errorf("%q: %v %v, want %s", ep, u, err, want)
		}
	}
}

func TestProxy_SendsWithCredentialAndMapsAnswers(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.connect("u1", map[string]any{"type": "api_key", "apiKey": "k-secret"})
	call := func(c ProxyCall) (any, error) {
		c.ConnectorID, c.UserID = "acme", "u1"
		if c.Method == "" {
			c.Method = "GET"
		}
		return e.exec.Proxy(context.Background(), e.tenant(), c)
	}
	got, err := call(ProxyCall{Endpoint: "/things/1", Method: "POST", Query: map[string]any{"a": "1", "b": []any{"x", "y"}},
		Body: json.RawMessage(`{"n":1}`), Headers: map[string]string{"Authorization": "Bearer stolen", "Cookie": "c=1", "Host": "evil", "X-Custom": "ok"}})
	if err != nil {
		t.Fatal(err)
	}
	r := e.fake.last()
	if r.Method != "POST" || r.Path != "/api/things/1" || r.Query.Get("a") != "1" || strings.Join(r.Query["b"], ",") != "x,y" ||
		r.Body != `{"n":1}` || r.Header.Get("X-Api-Key") != "Key k-secret" || r.Header.Get("Authorization") != "" ||
		r.Header.Get("Cookie") != "" || r.Header.Get("X-Custom") != "ok" {
		t.Fatalf("request: %+v", r)
	}
	if m := asMap(got); m["path"] != "/api/things/1" {
		t.Fatalf("json answer: %v", got)
	}
	if got, _ := call(ProxyCall{Endpoint: "/status/text"}); got != "plain words" {
		t.Fatalf("text answer: %v", got)
	}
	got, _ = call(ProxyCall{Endpoint: "/status/binary"})
	if m, _ := got.(map[string]string); m["contentType"] != "image/png" || m["base64"] != "iVBORw==" {
		t.Fatalf("binary answer: %v", got)
	}
	for _, code := range []string{"404", "500"} {
		_, err := call(ProxyCall{Endpoint: "/status/" + code})
		wantCode(t, err, apierr.UpstreamError, 502)
	}
	_, err = call(ProxyCall{Endpoint: "//evil.example/x"})
	wantCode(t, err, apierr.ForbiddenEndpoint, 403)
}

func TestProxy_GlobalAccountNeedsProxyPermission(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	g := e.connect("", map[string]any{"type": "api_key", "apiKey": "g"})
	call := ProxyCall{ConnectorID: "acme", UserID: "u1", Endpoint: "/x", Method: "GET", AllowGlobal: true}
	_, err := e.exec.Proxy(context.Background(), e.tenant(), call)
	wantCode(t, err, apierr.ActionDisabled, 403)
	if err := e.store.SetGlobalPermission(context.Background(), g.ID, store.GlobalPermission{Proxy: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.exec.Proxy(context.Background(), e.tenant(), call); err != nil {
		t.Fatal(err)
	}
}

func TestProxy_PrivateAddressRefusedAfterResolution(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	// Without the loopback opt-in, a host field pointing at 127.0.0.1 is refused by netguard.
	e.exec.guard = netguard.New(netguard.Options{})
	e.connect("u1", map[string]any{"type": "api_key", "apiKey": "k"})
	_, err := e.exec.Proxy(context.Background(), e.tenant(), ProxyCall{ConnectorID: "acme", UserID: "u1", Endpoint: "/x", Method: "GET"})
	wantCode(t, err, apierr.ForbiddenEndpoint, 403)
	if len(e.fake.requests) != 0 {
		t.Fatal("the request reached the private address")
	}
}

// TestExecute_PrivateNetworkOpenedToOneConnectorOnly opens loopback to the
// acme connector by name and checks that acme's calls reach it while the
// same network opened to another purpose does not let them through.
func TestExecute_PrivateNetworkOpenedToOneConnectorOnly(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	tlsConfig := e.exec.guard.Client().Transport.(*http.Transport).TLSClientConfig
	e.connect("u1", map[string]any{"type": "api_key", "apiKey": "k"})
	for _, c := range []struct {
		allow string
		ok    bool
	}{
		{"connector:acme=127.0.0.0/8", true},
		{"connectors=127.0.0.0/8", true},
		{"connector:other=127.0.0.0/8", false},
		{"webhooks=127.0.0.0/8,mcp=127.0.0.0/8", false},
	} {
		allow, err := netguard.ParseAllowances(c.allow)
		if err != nil {
			t.Fatal(err)
		}
		e.exec.guard = netguard.New(netguard.Options{Allow: allow, TLSConfig: tlsConfig})
		_, err = e.run("acme_get_item", `{"id":"1"}`)
		if c.ok && err != nil {
			t.Errorf("%s: %v", c.allow, err)
		}
		if !c.ok {
			wantCode(t, err, apierr.ForbiddenEndpoint, 403)
		}
	}
}

// TestProxy_CredentialsInAnswersNeverReachTheCaller: a provider answer
// that echoes the account's own key has it replaced with [redacted], and
// a connector's api.omit fields (an account's token) are dropped from
// JSON answers, while an answer of another type, which cannot be cleared
// of them, is refused.
func TestProxy_CredentialsInAnswersNeverReachTheCaller(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.connect("u1", map[string]any{"type": "api_key", "apiKey": "k-secret-value"})
	call := func(endpoint string) (any, error) {
		return e.exec.Proxy(context.Background(), e.tenant(), ProxyCall{ConnectorID: "acme", UserID: "u1", Method: "GET", Endpoint: endpoint})
	}
	got, err := call("/echo")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(got)
	if strings.Contains(string(b), "k-secret-value") || !strings.Contains(string(b), `"sent":"Key [redacted]"`) ||
		!strings.Contains(string(b), "tok-account-1") {
		t.Fatalf("without omit rules: %s", b)
	}

	con, _ := e.cat.Connector("acme")
	con.API.Omit = []string{"auth_token", "accounts.auth_token"}
	got, err = call("/echo")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = json.Marshal(got)
	if strings.Contains(string(b), "tok-account") || !strings.Contains(string(b), `"sid":"AC1"`) || !strings.Contains(string(b), `"name":"main"`) {
		t.Fatalf("with omit rules: %s", b)
	}
	_, err = call("/echo.xml")
	wantCode(t, err, apierr.UpstreamError, 502)
	if strings.Contains(err.Error(), "tok-account") {
		t.Fatalf("the refusal carries the token: %v", err)
	}
}

func TestScrubSecrets_NoAllocationWithoutSecrets(t *testing.T) {
	cred := account.Credential{APIKey: "key-0123456789", Fields: map[string]string{"region": "us"}}
	body := []byte(`{"region":"us","items":[1,2,3],"owner":{"login":"ann"}}`)
	if n := testing.AllocsPerRun(100, func() { scrubSecrets(body, cred) }); n != 0 {
		t.Fatalf("scrubSecrets allocates %v times for an answer without secrets", n)
	}
	if got := string(scrubSecrets([]byte(`{"k":"key-0123456789","r":"us"}`), cred)); got != `{"k":"[redacted]","r":"us"}` {
		t.Fatalf("scrubbed %s", got)
	}
}
