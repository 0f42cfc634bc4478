package netguard

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
)

// LookupFunc resolves a host name to its addresses, as
// (*net.Resolver).LookupNetIP does with network "ip".
type LookupFunc func(ctx context.Context, network, host string) ([]netip.Addr, error)

// ErrNotOpened is returned (wrapped) by OpenedHost for a host that
// resolves to an address the operator did not open to the scope.
var ErrNotOpened = errors.New("netguard: host is not in a network opened to this purpose")

// Opened reports whether an address is one the operator opened to this
// scope (SWITCHBOARD_OUTBOUND_ALLOW, or loopback in tests), as opposed to
// one merely reachable because it is public.
func (s *Scope) Opened(addr netip.Addr) bool {
	addr = addr.Unmap()
	for _, p := range s.allow {
		if p.Contains(addr) {
			return true
		}
	}
	return addr.IsLoopback() && s.loopback
}

// OpenedHost checks that every address a host resolves to (or the address
// it is) was opened to this scope. Plain http is acceptable only to such a
// host: an internal API inside a network the operator chose, never the
// public internet. lookup nil means the system resolver.
func (s *Scope) OpenedHost(ctx context.Context, host string, lookup LookupFunc) error {
	if a, err := netip.ParseAddr(host); err == nil {
		if !s.Opened(a) {
			return fmt.Errorf("%w: %s", ErrNotOpened, a)
		}
		return nil
	}
	if lookup == nil {
		lookup = net.DefaultResolver.LookupNetIP
	}
	addrs, err := lookup(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("netguard: resolve %s: %w", host, err)
	}
	if len(addrs) == 0 {
		return fmt.Errorf("netguard: %s has no address", host)
	}
	for _, a := range addrs {
		if !s.Opened(a) {
			return fmt.Errorf("%w: %s resolves to %s", ErrNotOpened, host, a.Unmap())
		}
	}
	return nil
}
