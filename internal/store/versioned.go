package store

import "sync"

// versioned is a cache whose answers hold at a version of a project
// (tool switches, connections): an answer stored at another version misses.
// Entries are bounded by max (0: unbounded); a full cache is emptied and
// refills with what is in use.
type versioned[K comparable, V any] struct {
	mu      sync.Mutex
	max     int
	entries map[K]versionedEntry[V]
}

type versionedEntry[V any] struct {
	version int64
	value   V
}

func (c *versioned[K, V]) get(k K, version int64) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[k]
	if !ok || e.version != version {
		var zero V
		return zero, false
	}
	return e.value, true
}

func (c *versioned[K, V]) put(k K, version int64, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || (c.max > 0 && len(c.entries) >= c.max) {
		c.entries = map[K]versionedEntry[V]{}
	}
	if e, ok := c.entries[k]; ok && e.version > version {
		return // a newer request already stored a newer answer
	}
	c.entries[k] = versionedEntry[V]{version: version, value: v}
}
