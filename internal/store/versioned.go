package store

import "github.com/switchboard-gw/switchboard/internal/lru"

// versioned is a cache whose answers hold at a version of a project (tool
// switches): an answer stored at another version misses. It is bounded and
// drops the least recently used entry when full.
type versioned[K comparable, V any] struct {
	entries *lru.Cache[K, versionedEntry[V]]
}

type versionedEntry[V any] struct {
	version int64
	value   V
}

func newVersioned[K comparable, V any](size int) versioned[K, V] {
	return versioned[K, V]{entries: lru.New[K, versionedEntry[V]](size)}
}

func (c *versioned[K, V]) get(k K, version int64) (V, bool) {
	e, ok := c.entries.Get(k)
	if !ok || e.version != version {
		var zero V
		return zero, false
	}
	return e.value, true
}

func (c *versioned[K, V]) put(k K, version int64, v V) {
	if e, ok := c.entries.Get(k); ok && e.version > version {
		return // a newer request already stored a newer answer
	}
	c.entries.Put(k, versionedEntry[V]{version: version, value: v})
}
