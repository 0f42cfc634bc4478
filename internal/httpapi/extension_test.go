package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/session"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/upstream"
)

// deltaDescription is a small description of the delta tracker, written
// for this test: one operation with a curated tool's id, one on a curated
// tool's route, and one new.
const deltaDescription = `
openapi: 3.1.0
info: {title: Delta (test), version: "1"}
servers: [{url: "https://tasks.example/v1"}]
paths:
  /tasks/{task_id}:
    get:
      operationId: getTask
      summary: Same route as delta_get_task under another id
      parameters: [{name: task_id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
  /tasks:
    post:
      operationId: create_task
      summary: Same id as a curated tool
      requestBody:
        content: {application/json: {schema: {type: object, properties: {title: {type: string}}}}}
      responses: {"201": {description: ok}}
  /tasks/{id}/archive:
    post:
      operationId: archiveTask
      summary: Move a task to the archive
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      requestBody:
        content: {application/json: {schema: {type: object, properties: {reason: {type: string}}}}}
      responses: {"200": {description: ok}}
`

// TestExtension_ExtendedToolRunsWithTheBuiltinAccount: a project extends
// the built-in delta connector from a description; the new tool is in its
// GET /v1/tools (not in another project's), runs with the user's existing
// delta account (the connector's API key auth and host applied) against
// the fake provider, and goes away when the extension is removed.
func TestExtension_ExtendedToolRunsWithTheBuiltinAccount(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	builtins, err := catalog.Load(testCatalogFS)
	if err != nil {
		t.Fatal(err)
	}
	delta, _ := builtins.Connector("delta")
	ext, rep, err := upstream.ExtendOpenAPI(ctx, []byte(deltaDescription), delta, upstream.ExtendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Tools != 1 || len(rep.Skipped) != 2 {
		t.Fatalf("report %+v", rep)
	}
	def, _ := json.Marshal(ext)
	if err := f.store.PutProjectConnector(ctx, store.ProjectConnector{ProjectID: f.project.ID, ConnectorID: "delta",
		Origin: catalog.OriginExtension, Definition: def}); err != nil {
		t.Fatal(err)
	}
	// The account is connected as for any built-in delta tool.
	if st, _, raw := f.json("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","userId":"u1","credential":{"type":"api_key","apiKey":"delta-secret-key","host":%q}}`,
		f.providerHost)); st != 200 {
		t.Fatalf("connect: %s", raw)
	}
	st, m, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"delta_archive_task","userId":"u1","input":{"id":"t9","reason":"done"}}`)
	if st != 200 || dataOf(m)["path"] != "/v1/tasks/t9/archive" || dataOf(m)["method"] != "POST" || !strings.Contains(dataOf(m)["body"].(string), `"reason":"done"`) {
		t.Fatalf("execute the extended tool: %d %s", st, raw)
	}
	if st, _, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","input":{"id":"t9"}}`); st != 200 ||
		!strings.Contains(raw, "/v1/tasks/t9") {
		t.Fatalf("the curated tool: %d %s", st, raw)
	}
	// An MCP endpoint of the connector lists and runs it like a curated tool.
	f.endpoint(t, session.EndpointRequest{Slug: "delta-ext", Connectors: []string{"delta"}, Mode: session.ModeTools})
	if names := strings.Join(toolNames(t, f.rpc(f.h, "/v1/mcp/delta-ext/u1", listReq)), ","); !strings.Contains(names, "delta_archive_task") ||
		!strings.Contains(names, "delta_get_task") {
		t.Fatalf("MCP tools/list: %s", names)
	}
	if r := f.rpc(f.h, "/v1/mcp/delta-ext/u1", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delta_archive_task","arguments":{"id":"t7"}}}`); r.status != 200 ||
		!strings.Contains(string(r.body), "/v1/tasks/t7/archive") || strings.Contains(string(r.body), `"isError":true`) {
		t.Fatalf("MCP tools/call: %d %s", r.status, r.body)
	}
	listed := func(key string) bool {
		r := f.do(f.h, "GET", "/v1/tools?connectorId=delta", "Bearer "+key, "")
		if r.status != 200 {
			t.Fatalf("list: %d %s", r.status, r.body)
		}
		return strings.Contains(string(r.body), `"delta_archive_task"`)
	}
	if !listed(f.key) {
		t.Fatal("the extended tool is not in its project's GET /v1/tools")
	}
	p2, err := f.store.CreateProject(ctx, "other")
	if err != nil {
		t.Fatal(err)
	}
	key2, hash, hint, _ := apikey.Generate()
	if _, err := f.store.CreateAPIKey(ctx, store.NewAPIKey{ProjectID: p2.ID, Name: "t", Hash: hash, Hint: hint}); err != nil {
		t.Fatal(err)
	}
	if listed(key2) {
		t.Fatal("another project lists the extended tool")
	}
	if r := f.do(f.h, "POST", "/v1/tools/execute", "Bearer "+key2, `{"toolId":"delta_archive_task","userId":"u1","input":{"id":"t9"}}`); r.status != 404 {
		t.Fatalf("another project runs the extended tool: %d %s", r.status, r.body)
	}
	if err := f.store.DeleteProjectConnector(ctx, f.project.ID, "delta"); err != nil {
		t.Fatal(err)
	}
	if listed(f.key) {
		t.Fatal("the removed extension's tool is still listed")
	}
	if st, _, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"delta_archive_task","userId":"u1","input":{"id":"t9"}}`); st != 404 {
		t.Fatalf("the removed extension's tool still runs: %d %s", st, raw)
	}
}
