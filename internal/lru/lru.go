// Package lru is the one bounded cache of the process: a map with a
// size limit that, when full, drops the entry used least recently. Every
// in-process cache (resolution, tool switches, catalogs, scopes, schemas,
// built MCP servers, tokens) uses it, so each has a known memory bound and
// a full cache keeps what is in use instead of emptying itself.
package lru

import "sync"

// Cache is a bounded map safe for concurrent use. Get and Put on a key
// already present allocate nothing; an insert into a full cache reuses
// the evicted entry.
type Cache[K comparable, V any] struct {
	mu    sync.Mutex
	max   int
	items map[K]*entry[K, V]
	// root is the sentinel of a circular list: root.next is the most
	// recently used entry, root.prev the least.
	root entry[K, V]
}

type entry[K comparable, V any] struct {
	key        K
	value      V
	prev, next *entry[K, V]
}

// New returns a cache that holds at most size entries (at least one).
func New[K comparable, V any](size int) *Cache[K, V] {
	c := &Cache[K, V]{max: max(1, size), items: make(map[K]*entry[K, V], min(size, 1024))}
	c.root.next, c.root.prev = &c.root, &c.root
	return c
}

// Get returns the value stored for k and marks it used.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	e, ok := c.items[k]
	if !ok {
		c.mu.Unlock()
		var zero V
		return zero, false
	}
	c.moveToFront(e)
	v := e.value
	c.mu.Unlock()
	return v, true
}

// Put stores v for k as the most recently used entry, dropping the least
// recently used one when the cache is full.
func (c *Cache[K, V]) Put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		e.value = v
		c.moveToFront(e)
		return
	}
	c.insert(k, v)
}

// insert adds k, which is not present, evicting when full.
func (c *Cache[K, V]) insert(k K, v V) {
	var e *entry[K, V]
	if len(c.items) >= c.max {
		e = c.root.prev
		c.unlink(e)
		delete(c.items, e.key)
		var zero V
		e.value = zero // let the evicted value be collected before e is reused
	} else {
		e = new(entry[K, V])
	}
	e.key, e.value = k, v
	c.items[k] = e
	c.pushFront(e)
}

// GetOrPut returns the value stored for k, marking it used, or, when there
// is none, stores v and returns it; loaded reports which. Two callers that
// computed a value for k at once agree on the first one stored.
func (c *Cache[K, V]) GetOrPut(k K, v V) (actual V, loaded bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.moveToFront(e)
		return e.value, true
	}
	c.insert(k, v)
	return v, false
}

// Remove drops k, if present.
func (c *Cache[K, V]) Remove(k K) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.items[k]; ok {
		c.unlink(e)
		delete(c.items, k)
	}
}

// Len returns the number of entries.
func (c *Cache[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.items)
}

// Clear drops every entry.
func (c *Cache[K, V]) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	clear(c.items)
	c.root.next, c.root.prev = &c.root, &c.root
}

func (c *Cache[K, V]) moveToFront(e *entry[K, V]) {
	if c.root.next == e {
		return
	}
	c.unlink(e)
	c.pushFront(e)
}

func (c *Cache[K, V]) unlink(e *entry[K, V]) {
	e.prev.next = e.next
	e.next.prev = e.prev
	e.prev, e.next = nil, nil
}

func (c *Cache[K, V]) pushFront(e *entry[K, V]) {
	e.prev = &c.root
	e.next = c.root.next
	c.root.next.prev = e
	c.root.next = e
}
