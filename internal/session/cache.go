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
// schemas search results show, tools' schemas converted for OpenAI's
// strict mode, and tools' input schemas decoded for normalizeArgs. All are read-only once stored, and a changed catalog or
// schema makes a new key, so nothing needs invalidating.
type caches struct {
	scopes  *lru.Cache[scopeKey, *Scope]
	schemas *lru.Cache[*catalog.Tool, json.RawMessage]
	strict  *lru.Cache[string, json.RawMessage] // schema text -> strict schema
	parsed  *lru.Cache[*catalog.Tool, parsedSchema]
}

// parsedSchema is a tool's input schema decoded, with its $defs, for
// normalizeArgs (which only reads it).
type parsedSchema struct {
	schema, defs map[string]any
}

func newCaches() caches {
	return caches{
		scopes:  lru.New[scopeKey, *Scope](maxScopes),
		schemas: lru.New[*catalog.Tool, json.RawMessage](maxSchemas),
		strict:  lru.New[string, json.RawMessage](maxStrictSchemas),
		parsed:  lru.New[*catalog.Tool, parsedSchema](maxSchemas),
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

// parsedSchema returns a tool's input schema decoded, instead of decoding
// it on every call of the tool.
func (c *caches) parsedSchema(t *catalog.Tool) parsedSchema {
	if p, ok := c.parsed.Get(t); ok {
		return p
	}
	var p parsedSchema
	_ = json.Unmarshal(t.InputSchema, &p.schema)
	p.defs, _ = p.schema["$defs"].(map[string]any)
	c.parsed.Put(t, p)
	return p
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
