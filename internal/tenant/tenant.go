// Package tenant names the project a piece of work is for, with what that
// work depends on: the project's catalog (the built-ins plus its own
// connectors) and the versions that key the in-process caches (its tool
// switches and catalog, and its connections). A request with an API key gets
// its Tenant once, in the API key middleware, from the key lookup; callers
// without a key load it from the database (upstream.Catalogs.Load). Services
// take it as a parameter: nothing reads it from a context, so a caller that
// forgets it gets an error, never the built-in catalog (docs/design-notes.md).
package tenant

import (
	"errors"

	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// Tenant is one project as a request sees it. It is a small value, passed
// by value and never changed once built.
type Tenant struct {
	// ProjectID is the project.
	ProjectID string
	// Catalog is the project's catalog: the built-in connectors and the
	// project's own. Tool switches are not applied to it (see
	// store.DisabledTools, keyed by ToolsVersion).
	Catalog *catalog.Catalog
	// ToolsVersion is the project's tools_version: it moves with every tool
	// switch and every change to the project's own connectors.
	ToolsVersion int64
	// ConnectionsVersion is the project's connections_version: it moves with
	// every connection change account resolution could see.
	ConnectionsVersion int64
	// PoliciesVersion is the project's policies_version: it moves with
	// every change to its policy rules or default decision.
	PoliciesVersion int64
}

// ErrMissing is the error of a service called without a tenant: a
// programming error, never a reason to fall back to the built-in catalog.
var ErrMissing = errors.New("tenant: called without a tenant (no project or no catalog)")

// Check returns ErrMissing unless t names a project and its catalog.
func (t Tenant) Check() error {
	if t.ProjectID == "" || t.Catalog == nil {
		return ErrMissing
	}
	return nil
}
