package session

import (
	"encoding/json"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/lru"
)

// Bounds of the caches below; a full cache drops what was used least
// recently. A scope of the whole catalog holds a few tens of kilobytes.
const (
	maxScopes  = 256
	maxSchemas = 4096
	// maxStrictSchemas bounds converted strict schemas. A project's own
	// connectors change their schemas (a re-import, an MCP refresh), so
	// the set of schemas seen is not fixed.
	maxStrictSchemas = 4096
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
// scopes (a walk over every tool of the catalog), the compacted input
// schemas search results show, and tools' schemas converted for OpenAI's
// strict mode. All are read-only once stored, and a changed catalog or
// schema makes a new key, so nothing needs invalidating.
type caches struct {
	scopes  *lru.Cache[scopeKey, *Scope]
	schemas *lru.Cache[*catalog.Tool, json.RawMessage]
	strict  *lru.Cache[string, json.RawMessage] // schema text -> strict schema
}

func newCaches() caches {
	return caches{
		scopes:  lru.New[scopeKey, *Scope](maxScopes),
		schemas: lru.New[*catalog.Tool, json.RawMessage](maxSchemas),
		strict:  lru.New[string, json.RawMessage](maxStrictSchemas),
	}
}

func (c *caches) scope(k scopeKey) *Scope {
	sc, _ := c.scopes.Get(k)
	return sc
}

func (c *caches) putScope(k scopeKey, sc *Scope) { c.scopes.Put(k, sc) }

// schema returns a tool's input schema with long descriptions shortened.
func (c *caches) schema(t *catalog.Tool) json.RawMessage {
	if b, ok := c.schemas.Get(t); ok {
		return b
	}
	b := compactSchema(json.RawMessage(t.InputSchema))
	c.schemas.Put(t, b)
	return b
}

// strictOf returns a schema converted for strict mode (StrictSchema).
func (c *caches) strictOf(schema json.RawMessage) (json.RawMessage, error) {
	key := string(schema)
	if v, ok := c.strict.Get(key); ok {
		return v, nil
	}
	s, err := StrictSchema(schema)
	if err != nil {
		return nil, err
	}
	c.strict.Put(key, s)
	return s, nil
}
