package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/switchboard-gw/switchboard/internal/session"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

func (f *fixture) endpoint(t *testing.T, r session.EndpointRequest) {
	t.Helper()
	if r.ProjectID == "" {
		r.ProjectID = f.project.ID
	}
	rec, err := f.srv.sessions.EndpointRecord(context.Background(), f.tenant(t, r.ProjectID), r)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.CreateEndpoint(context.Background(), rec); err != nil {
		t.Fatal(err)
	}
}

// tenant loads a project's tenant, as a caller without an API key does.
func (f *fixture) tenant(t *testing.T, projectID string) tenant.Tenant {
	t.Helper()
	tn, err := f.srv.catalogs.Load(context.Background(), projectID)
	if err != nil {
		t.Fatal(err)
	}
	return tn
}

func (f *fixture) rpc(h http.Handler, path, body string, hdr ...string) response {
	f.t.Helper()
	return f.do(h, "POST", path, "Bearer "+f.key, body, append([]string{"Content-Type", "application/json",
		"Accept", "application/json, text/event-stream"}, hdr...)...)
}

func toolNames(t *testing.T, r response) []string {
	t.Helper()
	var body struct {
		Result struct {
			Tools []struct{ Name string } `json:"tools"`
		} `json:"result"`
	}
	if r.status != 200 || json.Unmarshal(r.body, &body) != nil {
		t.Fatalf("tools/list: %d %s", r.status, r.body)
	}
	var names []string
	for _, tl := range body.Result.Tools {
		names = append(names, tl.Name)
	}
	return names
}

const listReq = `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`

func TestEndpoints_ThreeRouteFormsAnswerAlike(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.endpoint(t, session.EndpointRequest{Slug: "delta-tools", Connectors: []string{"delta"}, Mode: session.ModeTools})
	f.endpoint(t, session.EndpointRequest{Slug: "delta-meta", Connectors: []string{"delta"}, Mode: session.ModeMeta})
	mcpHost := f.srv.MCPHandler()

	forms := []struct {
		h    http.Handler
		path string
	}{{mcpHost, "/delta-tools/u%2F1"}, {f.h, "/v1/mcp/delta-tools/u%2F1"}, {f.h, "/v1/mcp/delta-tools?user=u%2F1"}}
	var want string
	for _, form := range forms {
		got := strings.Join(toolNames(t, f.rpc(form.h, form.path, listReq)), ",")
		if want == "" {
			want = got
		}
		if got != want || got != "delta_create_task,delta_get_task" {
			t.Fatalf("%s: tools %s, want %s", form.path, got, want)
		}
	}
	if got := strings.Join(toolNames(t, f.rpc(f.h, "/v1/mcp/delta-meta/u1", listReq)), ","); !strings.Contains(got, "switchboard_execute") || strings.Contains(got, "delta_get_task") {
		t.Fatalf("meta mode: %s", got)
	}

	call := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"delta_get_task","arguments":{"id":"8"}}}`
	// Not connected: the result is an error carrying a connect link for that user.
	for _, form := range forms {
		r := f.rpc(form.h, form.path, call)
		if r.status != 200 || !strings.Contains(string(r.body), `"isError":true`) || !strings.Contains(string(r.body), "connection_required") ||
			!strings.Contains(string(r.body), "http://web.sb.test/connect/") {
			t.Fatalf("%s unconnected: %d %s", form.path, r.status, r.body)
		}
	}
	if st, _, raw := f.json("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","userId":"u/1","credential":{"type":"api_key","apiKey":"delta-secret-key","host":%q}}`, f.providerHost)); st != 200 {
		t.Fatal(raw)
	}
	for _, form := range forms {
		r := f.rpc(form.h, form.path, call)
		if r.status != 200 || strings.Contains(string(r.body), `"isError":true`) || !strings.Contains(string(r.body), `/v1/tasks/8`) {
			t.Fatalf("%s connected: %d %s", form.path, r.status, r.body)
		}
	}
	// Another user of the same endpoint has no account.
	if r := f.rpc(f.h, "/v1/mcp/delta-tools/u2", call); !strings.Contains(string(r.body), "connection_required") {
		t.Fatalf("other user: %s", r.body)
	}
}

func TestEndpoints_HTTPRules(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.endpoint(t, session.EndpointRequest{Slug: "strict-user", Connectors: []string{"delta"}, RequireUser: true})
	f.endpoint(t, session.EndpointRequest{Slug: "open-one", Connectors: []string{"delta"}})
	mcpHost := f.srv.MCPHandler()
	other, _ := f.store.CreateProject(context.Background(), "other")
	otherKey := newProjectKey(t, f, other.ID)

	for _, form := range []struct {
		h      http.Handler
		prefix string
	}{{mcpHost, ""}, {f.h, "/v1/mcp"}} {
		h, prefix := form.h, form.prefix
		for _, method := range []string{"GET", "DELETE"} {
			r := f.do(h, method, prefix+"/open-one/u1", "Bearer "+f.key, "")
			if r.status != 405 || r.header.Get("Allow") != "POST" || len(r.body) != 0 {
				t.Errorf("%s %s: %d %v", method, prefix, r.status, r.header)
			}
		}
		r := f.rpc(h, prefix+"/no-such-slug/u1", listReq)
		if r.status != 404 || !strings.Contains(string(r.body), `"jsonrpc":"2.0"`) {
			t.Errorf("unknown slug %s: %d %s", prefix, r.status, r.body)
		}
		if r := f.do(h, "POST", prefix+"/open-one/u1", "Bearer "+otherKey, listReq); r.status != 404 || strings.Contains(string(r.body), "another project") {
			t.Errorf("other project's key %s: %d %s", prefix, r.status, r.body)
		}
		if r := f.do(h, "POST", prefix+"/open-one/u1", "", listReq); r.status != 401 {
			t.Errorf("no key %s: %d", prefix, r.status)
		}
		if r := f.rpc(h, prefix+"/open-one/u1", listReq, "Origin", "https://evil.example"); r.status != 403 {
			t.Errorf("foreign origin %s: %d", prefix, r.status)
		}
		if r := f.rpc(h, prefix+"/strict-user", listReq); r.status != 400 || !strings.Contains(string(r.body), "requires a user") {
			t.Errorf("require user %s: %d %s", prefix, r.status, r.body)
		}
		if r := f.rpc(h, prefix+"/open-one", listReq); r.status != 200 {
			t.Errorf("default user %s: %d %s", prefix, r.status, r.body)
		}
	}
	for _, p := range []string{"/", "/a/b/c", "/v1/connectors"} {
		if r := f.do(mcpHost, "GET", p, "Bearer "+f.key, ""); r.status != 404 {
			t.Errorf("MCP host %s: %d", p, r.status)
		}
	}
}

func TestEndpointRecord_Rules(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, r := range []session.EndpointRequest{
		{Slug: "ab"}, {Slug: "Upper-Case"}, {Slug: strings.Repeat("a", 65)}, {Slug: "has_underscore"},
		{Slug: "fine-slug", Mode: "both"}, {Slug: "fine-slug", Connectors: []string{"nope"}}, {Slug: "fine-slug", MaxDataClass: "secret"},
	} {
		r.ProjectID = f.project.ID
		if _, err := f.srv.sessions.EndpointRecord(context.Background(), f.tenant(t, f.project.ID), r); err == nil {
			t.Errorf("%+v accepted", r)
		}
	}
	f.endpoint(t, session.EndpointRequest{Slug: "taken"})
	rec, _ := f.srv.sessions.EndpointRecord(context.Background(), f.tenant(t, f.project.ID), session.EndpointRequest{ProjectID: f.project.ID, Slug: "taken"})
	if _, err := f.store.CreateEndpoint(context.Background(), rec); err == nil {
		t.Fatal("a taken slug was stored twice")
	}
}

// bigCatalogFS is a catalog of one connector with n tools.
func bigCatalogFS(n int) fstest.MapFS {
	var b strings.Builder
	b.WriteString("id: bulk\nname: Bulk\ndescription: A connector with very many tools for the listing test.\ncategory: productivity\n")
	b.WriteString("api: {baseUrl: \"https://bulk.example\"}\nauthMethods:\n  - {id: none, type: none, name: None}\ntools:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - id: bulk_get_item_%04d\n    name: Get item %d\n    description: Returns item number %d of the bulk test catalog.\n"+
			"    effect: read\n    inputSchema: {type: object, properties: {id: {type: string}}, required: [id], additionalProperties: false}\n"+
			"    request: {method: GET, path: \"/items/{id}\"}\n", i, i, i)
	}
	return fstest.MapFS{"connectors/bulk.yaml": {Data: []byte(b.String())}, "logos/bulk.svg": {Data: []byte("<svg/>")}}
}

func TestEndpoint_ToolsListWithThousandTools(t *testing.T) {
	t.Parallel()
	f := setupWith(t, sqliteDB, bigCatalogFS(1000), nil)
	f.endpoint(t, session.EndpointRequest{Slug: "bulk-all"})
	for range 2 { // the second answer comes from the cached server
		names := toolNames(t, f.rpc(f.srv.MCPHandler(), "/bulk-all/u1", listReq))
		if len(names) != 1000 || names[0] != "bulk_get_item_0000" {
			t.Fatalf("%d tools listed", len(names))
		}
	}
}

// TestToolsList_CachedAnswerMatchesTheSDK compares the cached tools/list
// answer with the one the SDK builds (a request with params goes to the SDK).
func TestToolsList_CachedAnswerMatchesTheSDK(t *testing.T) {
	t.Parallel()
	f := setup(t)
	f.endpoint(t, session.EndpointRequest{Slug: "cmp-tools", Connectors: []string{"delta", "alpha"}})
	decode := func(r response) map[string]any {
		var body struct {
			Result struct {
				Tools []map[string]any `json:"tools"`
			} `json:"result"`
		}
		if r.status != 200 || json.Unmarshal(r.body, &body) != nil {
			t.Fatalf("%d %s", r.status, r.body)
		}
		out := map[string]any{}
		for _, tool := range body.Result.Tools {
			out[tool["name"].(string)] = tool
		}
		return out
	}
	fast := decode(f.rpc(f.h, "/v1/mcp/cmp-tools/u1", listReq))
	sdk := decode(f.rpc(f.h, "/v1/mcp/cmp-tools/u1", `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"cursor":null}}`))
	if len(fast) != 4 || !reflect.DeepEqual(fast, sdk) {
		t.Fatalf("cached answer differs from the SDK's:\n%v\n%v", fast, sdk)
	}
}
