package session

import (
	"encoding/json"
	"sync"

	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// Bounds of the caches below; a full cache is emptied and refills with what
// is in use. A scope of the whole catalog holds a few tens of kilobytes.
const (
	maxScopes  = 256
	maxSchemas = 4096
)

// scopeKey names a resolved scope: the catalog it came from (a project's
// catalog is a new value when its own connectors change), the project's
// tool-switch version and the spec.
type scopeKey struct {
	cat     *catalog.Catalog
	project string
	version int64
	spec    string
}

// caches keep what a session call would otherwise recompute on every call:
// scopes (a walk over every tool of the catalog) and the compacted input
// schemas search results show. Both are read-only once stored.
type caches struct {
	mu      sync.Mutex
	scopes  map[scopeKey]*Scope
	schemas map[*catalog.Tool]json.RawMessage
}

func (c *caches) scope(k scopeKey) *Scope {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.scopes[k]
}

func (c *caches) putScope(k scopeKey, sc *Scope) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.scopes == nil || len(c.scopes) >= maxScopes {
		c.scopes = map[scopeKey]*Scope{}
	}
	c.scopes[k] = sc
}

// schema returns a tool's input schema with long descriptions shortened.
func (c *caches) schema(t *catalog.Tool) json.RawMessage {
	c.mu.Lock()
	b, ok := c.schemas[t]
	c.mu.Unlock()
	if ok {
		return b
	}
	b = compactSchema(json.RawMessage(t.InputSchema))
	c.mu.Lock()
	if c.schemas == nil || len(c.schemas) >= maxSchemas {
		c.schemas = map[*catalog.Tool]json.RawMessage{}
	}
	c.schemas[t] = b
	c.mu.Unlock()
	return b
}
