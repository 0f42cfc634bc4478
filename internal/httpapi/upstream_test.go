package httpapi

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/session"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/upstream"
)

// TestImportedAPI_RunsLikeABuiltIn imports an OpenAPI document into a
// project and uses its tools through the catalog routes, execute, a session
// and an MCP endpoint; other projects and the public catalog never see it.
func TestImportedAPI_RunsLikeABuiltIn(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	data, err := os.ReadFile("../upstream/testdata/notes-31.yaml")
	if err != nil {
		t.Fatal(err)
	}
	con, _, err := upstream.ImportOpenAPI(ctx, data, upstream.ImportOptions{ID: "notes", BaseURL: "https://" + f.providerHost + "/v1"})
	if err != nil {
		t.Fatal(err)
	}
	def, _ := json.Marshal(con)
	if err := f.store.PutProjectConnector(ctx, store.ProjectConnector{ProjectID: f.project.ID, ConnectorID: "notes",
		Origin: catalog.OriginOpenAPI, Definition: def}); err != nil {
		t.Fatal(err)
	}

	if _, m, raw := f.json("GET", "/v1/connectors?query=notes", ""); !strings.Contains(raw, `"id":"notes"`) || !strings.Contains(raw, `"mcp":false`) {
		t.Fatalf("connector list: %s %v", raw, m)
	}
	if st, m, _ := f.json("GET", "/v1/connectors/notes", ""); st != 200 || len(dataOf(m)["toolIds"].([]any)) != 2 {
		t.Fatalf("connector detail: %d %v", st, m)
	}
	if _, m, _ := f.json("GET", "/v1/tools?connectorId=notes", ""); len(m["data"].([]any)) != 2 {
		t.Fatalf("tools: %v", m)
	}
	if r := f.do(f.h, "GET", "/api/catalog/notes", "", ""); r.status != 404 {
		t.Fatalf("public catalog shows a project's API: %d", r.status)
	}
	other, _ := f.store.CreateProject(ctx, "other")
	otherKey := newProjectKey(t, f, other.ID)
	if r := f.do(f.h, "GET", "/v1/connectors/notes", "Bearer "+otherKey, ""); r.status != 404 {
		t.Fatalf("another project sees it: %d", r.status)
	}

	if st, _, raw := f.json("POST", "/v1/connections", `{"connectorId":"notes","userId":"u1","credential":{"type":"api_key","apiKey":"delta-secret-key"}}`); st != 200 {
		t.Fatalf("connect: %s", raw)
	}
	st, m, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"notes_list_notes","userId":"u1","input":{"q":"groceries","limit":5}}`)
	if st != 200 || dataOf(m)["path"] != "/v1/notes" || !strings.Contains(dataOf(m)["query"].(string), "q=groceries") {
		t.Fatalf("execute: %d %s", st, raw)
	}
	if st, _, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"notes_list_notes","userId":"u1","input":{"limit":500}}`); st != 400 || !strings.Contains(raw, "VALIDATION_ERROR") {
		t.Fatalf("schema not enforced: %d %s", st, raw)
	}

	_, m, _ = f.json("POST", "/v1/sessions", `{"userId":"u1","connectors":["notes"]}`)
	id := dataOf(m)["id"].(string)
	if dataOf(m)["actionCount"] != float64(2) {
		t.Fatalf("session scope: %v", dataOf(m))
	}
	_, m, raw = f.json("POST", "/v1/sessions/"+id+"/tools/switchboard_execute", `{"arguments":{"action":"notes_create_note","input":{"title":"milk","score":1}}}`)
	if m["ok"] != true || !strings.Contains(raw, `"method":"POST"`) {
		t.Fatalf("session call: %s", raw)
	}
	f.endpoint(t, session.EndpointRequest{Slug: "notes-tools", Connectors: []string{"notes"}})
	if names := toolNames(t, f.rpc(f.h, "/v1/mcp/notes-tools/u1", listReq)); strings.Join(names, ",") != "notes_create_note,notes_list_notes" {
		t.Fatalf("endpoint tools: %v", names)
	}

	// Removing it takes it out of the next request.
	if err := f.store.DeleteProjectConnector(ctx, f.project.ID, "notes"); err != nil {
		t.Fatal(err)
	}
	if st, m, _ := f.json("GET", "/v1/connectors/notes", ""); st != 404 || errCode(m) != "CONNECTOR_NOT_FOUND" {
		t.Fatalf("after removal: %d", st)
	}
}
