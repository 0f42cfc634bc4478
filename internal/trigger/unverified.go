package trigger

import (
	"net/netip"
	"sync"
	"time"
)

// MaxUnverifiedPerMinute is how many deliveries that fail verification
// (bad or missing signature, unknown token, stale or replayed) one client
// address may send in a minute before its failures answer 429.
const MaxUnverifiedPerMinute = 120

// maxTrackedAddrs bounds the limiter's memory within one minute; addresses
// beyond it are not tracked (they still fail verification as usual).
const maxTrackedAddrs = 100_000

// unverifiedLimiter counts failed deliveries per client address and minute,
// in process: replicas each count their own share, which only makes the
// limit looser. It never refuses a delivery that verifies, so a provider
// that shares an address with an abuser (a load balancer, a cloud egress)
// is not blocked.
type unverifiedLimiter struct {
	mu     sync.Mutex
	minute int64
	counts map[netip.Addr]int
}

// fail counts one failed delivery from addr at now and reports whether the
// address is now over the limit.
func (l *unverifiedLimiter) fail(addr netip.Addr, now time.Time) bool {
	if !addr.IsValid() {
		return false
	}
	addr = limitKey(addr)
	minute := now.Unix() / 60
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.minute != minute || l.counts == nil {
		// A fresh map each minute: the old one goes to the collector at once.
		l.minute, l.counts = minute, make(map[netip.Addr]int)
	}
	n, ok := l.counts[addr]
	if !ok && len(l.counts) >= maxTrackedAddrs {
		return false
	}
	n++
	l.counts[addr] = n
	return n > MaxUnverifiedPerMinute
}

// limitKey is the unit an address is counted under: an IPv4 address, or an
// IPv6 /64 (one host usually holds a whole /64, so counting single IPv6
// addresses would be no limit at all).
func limitKey(addr netip.Addr) netip.Addr {
	addr = addr.Unmap()
	if addr.Is4() {
		return addr
	}
	p, _ := addr.Prefix(64)
	return p.Addr()
}
