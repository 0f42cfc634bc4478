// Package upstream makes a project's own connectors: its MCP servers (tools
// discovered with the official go-sdk client) and imported REST APIs
// (OpenAPI 3.0 and 3.1 documents read with kin-openapi). They are stored as
// connector definitions and joined to the built-in catalog per project.
package upstream

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// Catalogs returns each project's catalog: the built-ins plus the project's
// own connectors, cached by the project's catalog version.
type Catalogs struct {
	base  *catalog.Catalog
	store *store.Store
	mu    sync.Mutex
	cache map[string]cachedCatalog
}

type cachedCatalog struct {
	version int64
	cat     *catalog.Catalog
}

// NewCatalogs returns a Catalogs over the built-in catalog.
func NewCatalogs(base *catalog.Catalog, st *store.Store) *Catalogs {
	return &Catalogs{base: base, store: st, cache: map[string]cachedCatalog{}}
}

// For returns a project's catalog. The version comes from ctx (read with
// the API key) or, without one, from the database.
func (c *Catalogs) For(ctx context.Context, projectID string) (*catalog.Catalog, error) {
	v, ok := store.ProjectVersion(ctx, projectID)
	if !ok {
		var err error
		if v, err = c.store.CatalogVersion(ctx, projectID); err != nil {
			return nil, err
		}
	}
	c.mu.Lock()
	e, hit := c.cache[projectID]
	c.mu.Unlock()
	if hit && e.version == v {
		return e.cat, nil
	}
	own, err := c.store.ListProjectConnectors(ctx, projectID)
	if err != nil {
		return nil, err
	}
	cat := c.base
	if len(own) > 0 {
		extra := make([]*catalog.Connector, 0, len(own))
		for _, pc := range own {
			var con catalog.Connector
			if err := json.Unmarshal(pc.Definition, &con); err != nil {
				return nil, fmt.Errorf("upstream: connector %s of project %s: %w", pc.ConnectorID, projectID, err)
			}
			con.Origin = pc.Origin
			extra = append(extra, &con)
		}
		if cat, err = c.base.With(extra); err != nil {
			return nil, err
		}
	}
	c.mu.Lock()
	if old, ok := c.cache[projectID]; !ok || old.version <= v {
		c.cache[projectID] = cachedCatalog{version: v, cat: cat}
	}
	c.mu.Unlock()
	return cat, nil
}
