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

func TestAllowList_OpensChosenNetworksOnly(t *testing.T) {
	t.Parallel()
	allow, err := ParseAllow(" 10.1.0.0/16, fd12::/16 ")
	if err != nil {
		t.Fatal(err)
	}
	g := New(Options{Allow: allow})
	if !g.Allowed(netip.MustParseAddr("10.1.2.3")) || !g.Allowed(netip.MustParseAddr("fd12::5")) {
		t.Fatal("allowed network refused")
	}
	if g.Allowed(netip.MustParseAddr("10.2.0.1")) || g.Allowed(netip.MustParseAddr("127.0.0.1")) {
		t.Fatal("network outside the allow list reached")
	}
	if _, err := ParseAllow("10.0.0.0"); err == nil {
		t.Fatal("a bare address was accepted as a CIDR")
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
	g := New(Options{Allow: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	req, _ := http.NewRequest("GET", redirector.URL, nil)
	_, err := g.Client().Do(req)
	if !errors.Is(err, ErrForbiddenAddress) {
		t.Fatalf("redirect to a forbidden address: %v", err)
	}
}
