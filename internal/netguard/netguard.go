// Package netguard is Switchboard's one outbound HTTP client: a shared,
// tuned transport whose dialer refuses private, loopback, link-local and
// cloud-metadata addresses after DNS resolution. The check sits in the
// dialer's Control hook, so it sees the address actually connected to:
// every connection, every redirect hop, and no DNS-rebinding gap.
package netguard

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"syscall"
	"time"
)

// ErrForbiddenAddress is returned (wrapped) when a request would reach an
// address the guard refuses.
var ErrForbiddenAddress = errors.New("netguard: destination address is not allowed")

// Options configure a Guard.
type Options struct {
	// Allow lists networks that are reachable although private, for
	// development or an on-premises provider (SWITCHBOARD_OUTBOUND_ALLOW).
	Allow []netip.Prefix
	// AllowLoopback lets tests reach httptest servers on 127.0.0.1 and ::1.
	AllowLoopback bool
	// Timeout bounds a whole request; 0 means 30 seconds.
	Timeout time.Duration
	// TLSConfig overrides the TLS settings (tests trust their own CA).
	TLSConfig *tls.Config
}

// Guard owns the shared transport and client.
type Guard struct {
	allow         []netip.Prefix
	allowLoopback bool
	transport     *http.Transport
	client        *http.Client
}

// blocked are the networks no outbound request may reach unless allowed.
var blocked = mustPrefixes(
	"0.0.0.0/8",        // "this" network
	"10.0.0.0/8",       // private
	"100.64.0.0/10",    // carrier-grade NAT
	"127.0.0.0/8",      // loopback
	"169.254.0.0/16",   // link-local, including 169.254.169.254 cloud metadata
	"172.16.0.0/12",    // private
	"192.0.0.0/24",     // IETF protocol assignments
	"192.0.2.0/24",     // documentation
	"192.168.0.0/16",   // private
	"198.18.0.0/15",    // benchmarking
	"198.51.100.0/24",  // documentation
	"203.0.113.0/24",   // documentation
	"224.0.0.0/4",      // multicast
	"240.0.0.0/4",      // reserved, broadcast
	"168.63.129.16/32", // Azure host agent (wire server), reachable from every VM
	"192.88.99.0/24",   // 6to4 relay anycast
	"::/96",            // IPv4-compatible (deprecated), including :: and ::1
	"::ffff:0:0:0/96",  // IPv4-translated (SIIT)
	"2002::/16",        // 6to4, embeds an IPv4 address
	"2001::/32",        // Teredo, embeds an IPv4 address
	"fec0::/10",        // site-local (deprecated)
	"64:ff9b::/96",     // NAT64 (embeds IPv4, possibly private)
	"64:ff9b:1::/48",   // local-use NAT64
	"100::/64",         // discard
	"2001:db8::/32",    // documentation
	"3fff::/20",        // documentation (RFC 9637)
	"fc00::/7",         // unique local, including fd00:ec2::254 metadata
	"fe80::/10",        // link-local
	"ff00::/8",         // multicast
)

func mustPrefixes(ss ...string) []netip.Prefix {
	out := make([]netip.Prefix, len(ss))
	for i, s := range ss {
		out[i] = netip.MustParsePrefix(s)
	}
	return out
}

// ParseAllow reads a comma-separated list of CIDRs.
func ParseAllow(s string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part == "" {
			continue
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, fmt.Errorf("netguard: %q is not a CIDR such as 10.1.0.0/16", part)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

// New returns a Guard with its shared transport.
func New(o Options) *Guard {
	g := &Guard{allow: o.Allow, allowLoopback: o.AllowLoopback}
	dialer := &net.Dialer{
		Timeout:   10 * time.Second,
		KeepAlive: 30 * time.Second,
		Control:   g.control,
	}
	g.transport = &http.Transport{
		Proxy:                 nil, // an environment proxy would bypass the address check
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          512,
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		ExpectContinueTimeout: time.Second,
		TLSClientConfig:       o.TLSConfig,
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	g.client = &http.Client{Transport: g.transport, Timeout: timeout, CheckRedirect: CheckRedirect}
	return g
}

// Client returns the shared client. Every outbound request goes through it.
func (g *Guard) Client() *http.Client { return g.client }

// control runs after DNS resolution, on the address about to be dialled.
func (g *Guard) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, address)
	}
	if !g.Allowed(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, ap.Addr())
	}
	return nil
}

// Allowed reports whether an address may be reached.
func (g *Guard) Allowed(addr netip.Addr) bool {
	addr = addr.Unmap()
	for _, p := range g.allow {
		if p.Contains(addr) {
			return true
		}
	}
	if addr.IsLoopback() && g.allowLoopback {
		return true
	}
	if !addr.IsValid() || addr.IsUnspecified() || addr.IsLoopback() || addr.IsPrivate() ||
		addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() || addr.IsMulticast() || addr.IsInterfaceLocalMulticast() {
		return false
	}
	// IPv6 beyond the IPv4-mapped form (unmapped above) is reachable only
	// in global unicast space, 2000::/3: the rest is reserved, local, or
	// embeds an IPv4 address the dialer would not see.
	if addr.Is6() && !globalUnicast6.Contains(addr) {
		return false
	}
	for _, p := range blocked {
		if p.Contains(addr) {
			return false
		}
	}
	return true
}

var globalUnicast6 = netip.MustParsePrefix("2000::/3")
