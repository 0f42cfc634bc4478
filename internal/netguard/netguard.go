// Package netguard is Switchboard's outbound HTTP: tuned transports whose
// dialer refuses private, loopback, link-local and cloud-metadata
// addresses after DNS resolution. The check sits in the dialer's Control
// hook, so it sees the address actually connected to: every connection,
// every redirect hop, and no DNS-rebinding gap. An operator may open a
// private network to one purpose only (a named connector, every
// connector, MCP servers, webhooks); each purpose is a Scope with its own
// client.
package netguard

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// ErrForbiddenAddress is returned (wrapped) when a request would reach an
// address the guard refuses.
var ErrForbiddenAddress = errors.New("netguard: destination address is not allowed")

// Options configure a Guard.
type Options struct {
	// Allow opens private networks to chosen purposes only, for development
	// or an on-premises provider (SWITCHBOARD_OUTBOUND_ALLOW).
	Allow Allowances
	// AllowLoopback lets tests reach httptest servers on 127.0.0.1 and ::1,
	// for every purpose.
	AllowLoopback bool
	// Timeout bounds a whole request; 0 means 30 seconds.
	Timeout time.Duration
	// TLSConfig overrides the TLS settings (tests trust their own CA).
	TLSConfig *tls.Config
}

// Guard owns the outbound scopes: one shared transport for the public
// internet, and one more for each distinct set of private networks the
// operator opened to a purpose. A connection pooled for one purpose never
// serves another, so purposes with different reach never share one.
type Guard struct {
	public     *Scope
	connectors *Scope
	mcp        *Scope
	webhooks   *Scope
	// connector and mcpServer are the scopes of connectors named in the
	// allowances, for provider calls and for MCP servers.
	connector map[string]*Scope
	mcpServer map[string]*Scope
}

// Scope is the outbound reach of one purpose: the public internet plus the
// private networks opened to that purpose, and the client that keeps to it.
type Scope struct {
	allow    []netip.Prefix
	loopback bool
	client   *http.Client
	// openedOnly scopes reach the opened networks and nothing public.
	openedOnly bool
	// plain is this scope narrowed to its opened networks (PlainHTTP).
	plain *Scope
}

// New returns a Guard with its transports.
func New(o Options) *Guard {
	timeout := o.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	scope := func(allow ...[]netip.Prefix) *Scope {
		s := &Scope{loopback: o.AllowLoopback}
		for _, a := range allow {
			s.allow = append(s.allow, a...)
		}
		s.client = &http.Client{Transport: newTransport(s, o.TLSConfig), Timeout: timeout, CheckRedirect: CheckRedirect}
		s.plain = &Scope{allow: s.allow, loopback: s.loopback, openedOnly: true}
		s.plain.plain = s.plain
		s.plain.client = &http.Client{Transport: newTransport(s.plain, o.TLSConfig), Timeout: timeout, CheckRedirect: CheckRedirect}
		return s
	}
	g := &Guard{public: scope()}
	// A purpose with nothing opened shares the public scope and transport.
	pick := func(allow ...[]netip.Prefix) *Scope {
		for _, a := range allow {
			if len(a) > 0 {
				return scope(allow...)
			}
		}
		return g.public
	}
	a := o.Allow
	g.connectors, g.mcp, g.webhooks = pick(a.Connectors), pick(a.MCP), pick(a.Webhooks)
	g.connector = make(map[string]*Scope, len(a.Connector))
	g.mcpServer = make(map[string]*Scope, len(a.Connector))
	for id, nets := range a.Connector {
		g.connector[id] = pick(a.Connectors, nets)
		g.mcpServer[id] = pick(a.MCP, nets)
	}
	return g
}

func newTransport(s *Scope, tlsConfig *tls.Config) *http.Transport {
	dialer := &net.Dialer{
		Timeout:   10 * time.Second,
		KeepAlive: 30 * time.Second,
		Control:   s.control,
	}
	return &http.Transport{
		Proxy:                 nil, // an environment proxy would bypass the address check
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          512,
		MaxIdleConnsPerHost:   64,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   10 * time.Second,
		ResponseHeaderTimeout: 30 * time.Second,
		ExpectContinueTimeout: time.Second,
		TLSClientConfig:       tlsConfig,
	}
}

// Client returns the client for the public internet only, shared by every
// purpose the operator opened nothing to.
func (g *Guard) Client() *http.Client { return g.public.client }

// Allowed reports whether an address is reachable on the public scope.
func (g *Guard) Allowed(addr netip.Addr) bool { return g.public.Allowed(addr) }

// Connector is the scope of a provider connector's calls (tools, proxy,
// OAuth token requests), built-in or imported.
func (g *Guard) Connector(id string) *Scope {
	if s, ok := g.connector[id]; ok {
		return s
	}
	return g.connectors
}

// MCPServer is the scope of a project's MCP server connector.
func (g *Guard) MCPServer(id string) *Scope {
	if s, ok := g.mcpServer[id]; ok {
		return s
	}
	return g.mcp
}

// Webhooks is the scope of webhook deliveries.
func (g *Guard) Webhooks() *Scope { return g.webhooks }

// Client returns the scope's client.
func (s *Scope) Client() *http.Client { return s.client }

// control runs after DNS resolution, on the address about to be dialled.
func (s *Scope) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, address)
	}
	if !s.Allowed(ap.Addr()) {
		return fmt.Errorf("%w: %s", ErrForbiddenAddress, ap.Addr())
	}
	return nil
}

// Allowed reports whether an address may be reached in this scope.
func (s *Scope) Allowed(addr netip.Addr) bool {
	return s.Opened(addr) || !s.openedOnly && public(addr.Unmap())
}

// PlainHTTP is this scope narrowed to the networks opened to it, for
// requests over plain http: an imported API may be http inside a network
// the operator chose, but a credential must never go unencrypted to the
// public internet, whatever the host resolves to when the call is made.
func (s *Scope) PlainHTTP() *Scope { return s.plain }

// public reports whether an address is on the public internet.
func public(addr netip.Addr) bool {
	if !addr.IsValid() || addr.IsUnspecified() || addr.IsLoopback() || addr.IsPrivate() ||
		addr.IsLinkLocalUnicast() || addr.IsLinkLocalMulticast() || addr.IsMulticast() || addr.IsInterfaceLocalMulticast() {
		return false
	}
	// IPv6 beyond the IPv4-mapped form (unmapped by the caller) is
	// reachable only in global unicast space, 2000::/3: the rest is
	// reserved, local, or embeds an IPv4 address the dialer would not see.
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
