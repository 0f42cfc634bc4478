package store

import (
	"context"
	"database/sql"
	"fmt"
	"sync/atomic"
)

// The in-process caches whose hits and misses the store counts.
const (
	CacheAPIKeys      = "api_keys"
	CacheSessions     = "sessions"
	CacheEndpoints    = "endpoints"
	CacheResolution   = "resolution"
	CacheToolSwitches = "tool_switches"
	CacheMCPTokens    = "mcp_tokens"
)

// cacheNames lists the counted caches in the order of cacheStats.
var cacheNames = [...]string{CacheAPIKeys, CacheSessions, CacheEndpoints, CacheResolution, CacheToolSwitches, CacheMCPTokens}

// cacheStats counts, per cache, the lookups answered from memory (hits)
// and those that read the database (misses, including every lookup while
// the cache is not trusted). Plain atomic adds: a few nanoseconds on the
// hot path, read only when metrics are scraped.
type cacheStats struct {
	hits, misses [len(cacheNames)]atomic.Uint64
}

const (
	statAPIKeys = iota
	statSessions
	statEndpoints
	statResolution
	statToolSwitches
	statMCPTokens
)

func (c *cacheStats) hit(i int)  { c.hits[i].Add(1) }
func (c *cacheStats) miss(i int) { c.misses[i].Add(1) }

// CacheStat is one cache's lookups since the process started.
type CacheStat struct {
	Name         string
	Hits, Misses uint64
}

// CacheStats returns the hits and misses of the in-process caches: API
// keys, sessions, endpoints, account resolution and tool switches.
func (s *Store) CacheStats() []CacheStat {
	out := make([]CacheStat, len(cacheNames))
	for i, name := range cacheNames {
		out[i] = CacheStat{Name: name, Hits: s.stats.hits[i].Load(), Misses: s.stats.misses[i].Load()}
	}
	return out
}

// Pool is one of the store's connection pools.
type Pool struct {
	// Name is "main" and "tally" on PostgreSQL, "write" and "read" on
	// SQLite.
	Name string
	DB   *sql.DB
}

// Pools returns the store's connection pools, each once, for their
// statistics (sql.DBStats).
func (s *Store) Pools() []Pool {
	if s.dialect == Postgres {
		return []Pool{{"main", s.write}, {"tally", s.tally}}
	}
	return []Pool{{"write", s.write}, {"read", s.read}}
}

// PendingDeliveries counts the webhook deliveries waiting to be sent (due
// or scheduled for a retry). It reads the status index only.
func (s *Store) PendingDeliveries(ctx context.Context) (int, error) {
	var n int
	err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM deliveries WHERE status = $1`, DeliveryPending).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("store: count pending deliveries: %w", err)
	}
	return n, nil
}
