// Package upstream makes a project's own connectors: its MCP servers (tools
// discovered with the official go-sdk client) and imported REST APIs
// (OpenAPI 3.0 and 3.1 documents read with kin-openapi). They are stored as
// connector definitions and joined to the built-in catalog per project.
package upstream

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/lru"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// maxCachedCatalogs bounds the cache of projects' catalogs. A project
// without connectors of its own shares the built-in catalog, so an entry
// costs little unless the project has some.
const maxCachedCatalogs = 1024

// Catalogs returns each project's catalog: the built-ins plus the project's
// own connectors, cached by the project's catalog version.
type Catalogs struct {
	base  *catalog.Catalog
	store *store.Store
	cache *lru.Cache[string, cachedCatalog]
}

type cachedCatalog struct {
	version int64
	cat     *catalog.Catalog
}

// NewCatalogs returns a Catalogs over the built-in catalog.
func NewCatalogs(base *catalog.Catalog, st *store.Store) *Catalogs {
	return &Catalogs{base: base, store: st, cache: lru.New[string, cachedCatalog](maxCachedCatalogs)}
}

// Load returns the tenant of a project for a caller without an API key
// (the Connect page, trigger ingress, admin commands, the MCP host): the
// versions come from the database, one indexed read. It is the one way to
// build a tenant without a key; with one, use Tenant.
func (c *Catalogs) Load(ctx context.Context, projectID string) (tenant.Tenant, error) {
	kp, err := c.store.ProjectVersions(ctx, projectID)
	if err != nil {
		return tenant.Tenant{}, err
	}
	return c.Tenant(ctx, kp)
}

// Tenant returns the tenant of a project whose versions were just read (by
// the API key lookup, or by Load): the project's catalog comes from the
// cache when its version has not moved, with no round trip.
func (c *Catalogs) Tenant(ctx context.Context, kp store.KeyProject) (tenant.Tenant, error) {
	cat, err := c.catalog(ctx, kp.ID, kp.ToolsVersion)
	if err != nil {
		return tenant.Tenant{}, err
	}
	return tenant.Tenant{ProjectID: kp.ID, Catalog: cat, ToolsVersion: kp.ToolsVersion, ConnectionsVersion: kp.ConnectionsVersion, PoliciesVersion: kp.PoliciesVersion}, nil
}

// catalog returns a project's catalog at version v.
func (c *Catalogs) catalog(ctx context.Context, projectID string, v int64) (*catalog.Catalog, error) {
	e, hit := c.cache.Get(projectID)
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
	if old, ok := c.cache.Get(projectID); !ok || old.version <= v {
		c.cache.Put(projectID, cachedCatalog{version: v, cat: cat})
	}
	return cat, nil
}
