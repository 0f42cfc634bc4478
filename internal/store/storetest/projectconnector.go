package storetest

import (
	"context"
	"errors"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

func projectConnectorTests() map[string]func(*testing.T, Opener) {
	return map[string]func(*testing.T, Opener){
		"ProjectConnectors_PutListDeleteBumpCatalog": testProjectConnectors,
	}
}

// testProjectConnectors checks a project's own connectors and that every
// change to them moves the catalog version the caches are keyed by.
func testProjectConnectors(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	other, _ := s.CreateProject(ctx, "other")
	version := func(projectID string) int64 {
		t.Helper()
		kp, err := s.ProjectVersions(ctx, projectID)
		if err != nil {
			t.Fatal(err)
		}
		return kp.ToolsVersion
	}
	if _, err := s.ProjectVersions(ctx, store.NewID()); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("version of an unknown project: %v", err)
	}
	v0, otherV := version(p.ID), version(other.ID)
	put := func(c store.ProjectConnector) {
		t.Helper()
		before := version(c.ProjectID)
		if err := s.PutProjectConnector(ctx, c); err != nil {
			t.Fatal(err)
		}
		if version(c.ProjectID) == before {
			t.Fatalf("putting %s did not change the catalog version", c.ConnectorID)
		}
	}
	put(store.ProjectConnector{ProjectID: p.ID, ConnectorID: "zeta_api", Origin: "openapi", Source: "https://api.example.com/openapi.json", Definition: []byte(`{"id":"zeta_api"}`)})
	put(store.ProjectConnector{ProjectID: p.ID, ConnectorID: "acme_mcp", Origin: "mcp", Source: "https://mcp.example.com/mcp", Definition: []byte(`{"id":"acme_mcp"}`), Headers: []byte("sealed")})
	put(store.ProjectConnector{ProjectID: other.ID, ConnectorID: "beta_mcp", Origin: "mcp", Source: "https://b.example.com/mcp", Definition: []byte(`{}`)})
	if version(p.ID) == v0 || version(other.ID) == otherV {
		t.Fatal("versions did not move")
	}

	list, err := s.ListProjectConnectors(ctx, p.ID)
	if err != nil || len(list) != 2 || list[0].ConnectorID != "acme_mcp" || list[1].ConnectorID != "zeta_api" ||
		string(list[0].Headers) != "sealed" || list[0].Source != "https://mcp.example.com/mcp" || list[0].UpdatedAt.IsZero() {
		t.Fatalf("list: %+v %v", list, err)
	}
	// Put replaces.
	put(store.ProjectConnector{ProjectID: p.ID, ConnectorID: "zeta_api", Origin: "openapi", Source: "https://api.example.com/v2.json", Definition: []byte(`{"id":"zeta_api","v":2}`)})
	got, err := s.GetProjectConnector(ctx, p.ID, "zeta_api")
	if err != nil || got.Source != "https://api.example.com/v2.json" || string(got.Definition) != `{"id":"zeta_api","v":2}` {
		t.Fatalf("get after replace: %+v %v", got, err)
	}
	if _, err := s.GetProjectConnector(ctx, other.ID, "zeta_api"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another project's connector: %v", err)
	}
	mcp, err := s.ListAllMCPConnectors(ctx)
	if err != nil || len(mcp) != 2 {
		t.Fatalf("all MCP connectors: %+v %v", mcp, err)
	}
	for _, c := range mcp {
		if c.Origin != "mcp" {
			t.Fatalf("an %s connector among the MCP servers", c.Origin)
		}
	}

	before := version(p.ID)
	if err := s.DeleteProjectConnector(ctx, p.ID, "acme_mcp"); err != nil {
		t.Fatal(err)
	}
	if version(p.ID) == before {
		t.Fatal("a delete did not change the catalog version")
	}
	before = version(p.ID)
	if err := s.DeleteProjectConnector(ctx, p.ID, "acme_mcp"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("delete twice: %v", err)
	}
	if version(p.ID) != before {
		t.Fatal("a delete of nothing changed the catalog version")
	}
	if list, _ := s.ListProjectConnectors(ctx, p.ID); len(list) != 1 || list[0].ConnectorID != "zeta_api" {
		t.Fatalf("after delete: %+v", list)
	}
}
