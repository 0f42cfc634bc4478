package netguard

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"testing"
)

func TestAllowed(t *testing.T) {
	t.Parallel()
	g := New(Options{})
	for _, s := range []string{
		"127.0.0.1", "127.1.2.3", "::1", "10.0.0.1", "172.16.5.4", "192.168.1.1", "169.254.169.254",
		"100.64.0.1", "0.0.0.0", "::", "fe80::1", "fd00:ec2::254", "fc00::1", "::ffff:127.0.0.1",
		"::ffff:169.254.169.254", "224.0.0.1", "255.255.255.255", "64:ff9b::a00:1", "198.18.0.1",
		// IPv4-compatible, IPv4-translated, 6to4, Teredo, site-local, Azure's host agent, 6to4 relay.
		"::7f00:1", "::a9fe:a9fe", "::a00:1", "::ffff:0:7f00:1", "::ffff:0:a9fe:a9fe", "2002:7f00:1::1", "2002:a9fe:a9fe::",
		"2002:808:808::1", "2001:0:4136:e378:8000:63bf:3fff:fdd2", "2001::1", "fec0::1", "fec0:0:0:ffff::1",
		"168.63.129.16", "192.88.99.1", "3fff::1", "4000::1", "100::1",
	} {
		if g.Allowed(netip.MustParseAddr(s)) {
			t.Errorf("%s allowed", s)
		}
	}
	for _, s := range []string{"8.8.8.8", "140.82.112.3", "2606:4700::1111", "2a00:1450:4001:80b::200e", "2001:4860:4860::8888", "168.63.129.17"} {
		if !g.Allowed(netip.MustParseAddr(s)) {
			t.Errorf("%s refused", s)
		}
	}
}

func TestAllowances_OpenChosenNetworksToTheirPurposeOnly(t *testing.T) {
	t.Parallel()
	a, err := ParseAllowances(" connector:gitlab=10.1.0.0/16, connectors=10.9.0.0/16, mcp=fd12::/16,webhooks=10.2.0.0/16 , connector:gitlab=10.3.0.5/32")
	if err != nil {
		t.Fatal(err)
	}
	g := New(Options{Allow: a})
	for _, c := range []struct {
		scope *Scope
		name  string
		open  []string
		shut  []string
	}{
		{g.Connector("gitlab"), "connector gitlab", []string{"10.1.2.3", "10.3.0.5", "10.9.0.1"}, []string{"10.2.0.1", "fd12::5", "10.3.0.6", "127.0.0.1"}},
		{g.Connector("jira"), "connector jira", []string{"10.9.0.1"}, []string{"10.1.2.3", "10.2.0.1", "fd12::5"}},
		{g.MCPServer("gitlab"), "MCP server gitlab", []string{"10.1.2.3", "fd12::5"}, []string{"10.9.0.1", "10.2.0.1"}},
		{g.MCPServer("crm"), "MCP server crm", []string{"fd12::5"}, []string{"10.1.2.3", "10.9.0.1", "10.2.0.1"}},
		{g.Webhooks(), "webhooks", []string{"10.2.0.1"}, []string{"10.1.2.3", "10.9.0.1", "fd12::5"}},
	} {
		for _, addr := range c.open {
			if !c.scope.Allowed(netip.MustParseAddr(addr)) {
				t.Errorf("%s: %s refused", c.name, addr)
			}
		}
		for _, addr := range append(c.shut, "169.254.169.254") {
			if c.scope.Allowed(netip.MustParseAddr(addr)) {
				t.Errorf("%s: %s reached", c.name, addr)
			}
		}
		if !c.scope.Allowed(netip.MustParseAddr("8.8.8.8")) {
			t.Errorf("%s: the public internet refused", c.name)
		}
	}
	if g.Allowed(netip.MustParseAddr("10.1.2.3")) || g.Allowed(netip.MustParseAddr("10.9.0.1")) {
		t.Fatal("the public scope reaches an opened network")
	}
	for _, bad := range []string{"10.0.0.0/8", "10.0.0.0", "connector:gitlab=10.0.0.0", "everything=10.0.0.0/8", "connector:Bad-Id=10.0.0.0/8", "connector:=10.0.0.0/8"} {
		if _, err := ParseAllowances(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestScopes_DoNotSharePooledConnections reaches a loopback server through
// the one scope it is opened to, then checks that the public scope is still
// refused: a pooled connection must not carry one purpose's reach to another.
func TestScopes_DoNotSharePooledConnections(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
	defer srv.Close()
	a, err := ParseAllowances("connector:onprem=127.0.0.1/32")
	if err != nil {
		t.Fatal(err)
	}
	g := New(Options{Allow: a})
	req, _ := http.NewRequest("GET", srv.URL, nil)
	resp, err := g.Connector("onprem").Client().Do(req)
	if err != nil {
		t.Fatalf("the opened connector: %v", err)
	}
	resp.Body.Close()
	for name, c := range map[string]*http.Client{"public": g.Client(), "other connector": g.Connector("cloud").Client(),
		"webhooks": g.Webhooks().Client(), "MCP servers": g.MCPServer("crm").Client()} {
		req, _ := http.NewRequest("GET", srv.URL, nil)
		if _, err := c.Do(req); !errors.Is(err, ErrForbiddenAddress) {
			t.Errorf("%s reached the connector's private address: %v", name, err)
		}
	}
}

func TestClient_RefusesLoopbackUnlessAllowed(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(204) }))
	defer srv.Close()
	req, _ := http.NewRequestWithContext(context.Background(), "GET", srv.URL, nil)
	_, err := New(Options{}).Client().Do(req)
	if !errors.Is(err, ErrForbiddenAddress) {
		t.Fatalf("loopback reached without opt-in: %v", err)
	}
	resp, err := New(Options{AllowLoopback: true}).Client().Do(req)
	if err != nil || resp.StatusCode != 204 {
		t.Fatalf("loopback with opt-in: %v", err)
	}
	resp.Body.Close()
}

func TestClient_RedirectToForbiddenAddressRefused(t *testing.T) {
	t.Parallel()
	// The first hop is allowed (loopback opt-in via the allow list on
	// 127.0.0.1 only); the redirect goes to 127.0.0.2, which is not.
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(200) }))
	defer target.Close()
	redirector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.2:1/", http.StatusFound)
	}))
	defer redirector.Close()
	g := New(Options{Allow: Allowances{Connectors: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}}})
	req, _ := http.NewRequest("GET", redirector.URL, nil)
	_, err := g.Connector("any").Client().Do(req)
	if !errors.Is(err, ErrForbiddenAddress) {
		t.Fatalf("redirect to a forbidden address: %v", err)
	}
}

func TestScope_PlainHTTPReachesOpenedNetworksOnly(t *testing.T) {
	t.Parallel()
	a, err := ParseAllowances("connector:intranet=10.1.0.0/16")
	if err != nil {
		t.Fatal(err)
	}
	g := New(Options{Allow: a})
	for name, s := range map[string]*Scope{"opened connector": g.Connector("intranet").PlainHTTP(), "public scope": g.Connector("github").PlainHTTP()} {
		for _, public := range []string{"8.8.8.8", "2606:4700::1111"} {
			if s.Allowed(netip.MustParseAddr(public)) {
				t.Errorf("%s: plain http may reach the public address %s", name, public)
			}
		}
	}
	if !g.Connector("intranet").PlainHTTP().Allowed(netip.MustParseAddr("10.1.2.3")) {
		t.Fatal("plain http cannot reach the network opened to the connector")
	}
	if g.Connector("github").PlainHTTP().Allowed(netip.MustParseAddr("10.1.2.3")) {
		t.Fatal("plain http of another connector reaches the opened network")
	}
	if !g.Connector("intranet").Allowed(netip.MustParseAddr("8.8.8.8")) {
		t.Fatal("https calls of the connector lost the public internet")
	}
	if p := g.Connector("intranet").PlainHTTP(); p.PlainHTTP() != p {
		t.Fatal("PlainHTTP of a plain-http scope is not itself")
	}
}
