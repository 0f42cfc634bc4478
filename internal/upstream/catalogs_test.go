package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	builtin "github.com/switchboard-gw/switchboard/catalog"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
)

// TestLoad_BuildsTheTenantFromTheDatabase: a caller without an API key gets
// the project's tenant at the stored versions, with the project's own
// connectors in its catalog; an unknown project is store.ErrNotFound, not
// the built-in catalog.
func TestLoad_BuildsTheTenantFromTheDatabase(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	base, err := catalog.Load(builtin.FS)
	if err != nil {
		t.Fatal(err)
	}
	st := storetest.OpenSQLite(t, nil)
	cats := NewCatalogs(base, st)
	if _, err := cats.Load(ctx, store.NewID()); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown project: %v", err)
	}
	p, _ := st.CreateProject(ctx, "p")
	con, _ := importFile(t, "testdata/notes-31.yaml", "notes")
	def, _ := json.Marshal(con)
	if err := st.PutProjectConnector(ctx, store.ProjectConnector{ProjectID: p.ID, ConnectorID: "notes",
		Origin: catalog.OriginOpenAPI, Definition: def}); err != nil {
		t.Fatal(err)
	}
	tn, err := cats.Load(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := st.ProjectVersions(ctx, p.ID)
	if tn.ProjectID != p.ID || tn.ToolsVersion != want.ToolsVersion || tn.ConnectionsVersion != want.ConnectionsVersion {
		t.Fatalf("tenant %+v, stored versions %+v", tn, want)
	}
	if _, ok := tn.Catalog.Connector("notes"); !ok {
		t.Fatal("the project's own connector is missing from its catalog")
	}
	if _, ok := tn.Catalog.Connector("github"); !ok {
		t.Fatal("the built-ins are missing from the project's catalog")
	}
	again, err := cats.Tenant(ctx, want)
	if err != nil || again.Catalog != tn.Catalog {
		t.Fatalf("at an unchanged version the catalog is not the cached one: %v", err)
	}
}
