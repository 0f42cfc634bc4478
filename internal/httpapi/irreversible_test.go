package httpapi

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// An irreversible tool says so in GET /v1/tools view=full, and through
// destructiveHint and openWorldHint in a session's tools, on REST and MCP.
func TestIrreversibleTool_ListedAndAnnotated(t *testing.T) {
	t.Parallel()
	f := setup(t)
	bearer := "Bearer " + f.key
	full := map[string]map[string]any{}
	for _, tool := range decodeList(t, f.do(f.h, "GET", "/v1/tools?connectorId=alpha", bearer, "")).Data {
		full[tool["id"].(string)] = tool
	}
	if full["alpha_send_message"]["irreversible"] != true || full["alpha_list_channels"]["irreversible"] != false {
		t.Fatalf("view full: %v", full)
	}
	for _, tool := range decodeList(t, f.do(f.h, "GET", "/v1/tools?connectorId=alpha&view=index", bearer, "")).Data {
		if _, ok := tool["irreversible"]; ok {
			t.Fatalf("view index has irreversible: %v", tool)
		}
	}

	_, m, _ := f.json("POST", "/v1/sessions", `{"userId":"u1","connectors":["alpha"],"pinned":["alpha_send_message","alpha_list_channels"]}`)
	id := dataOf(m)["id"].(string)
	_, tl, raw := f.json("GET", "/v1/sessions/"+id+"/tools", "")
	hints := map[string]map[string]any{}
	for _, tool := range dataOf(tl)["tools"].([]any) {
		tm := tool.(map[string]any)
		hints[tm["name"].(string)] = tm["annotations"].(map[string]any)
	}
	send, list := hints["alpha_send_message"], hints["alpha_list_channels"]
	if send["readOnlyHint"] != false || send["destructiveHint"] != true || send["openWorldHint"] != true ||
		list["readOnlyHint"] != true || list["destructiveHint"] != false || list["openWorldHint"] != false ||
		hints["switchboard_execute"]["openWorldHint"] != true || hints["switchboard_search_actions"]["openWorldHint"] != false {
		t.Fatalf("session tool annotations: %s", raw)
	}

	srv := httptest.NewServer(f.h)
	defer srv.Close()
	ctx := context.Background()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, &mcp.StreamableClientTransport{
		Endpoint: srv.URL + "/v1/sessions/" + id + "/mcp", HTTPClient: &http.Client{Transport: authTransport{key: f.key, next: http.DefaultTransport}}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := false
	for _, tool := range tools.Tools {
		if tool.Name != "alpha_send_message" {
			continue
		}
		a := tool.Annotations
		seen = a != nil && a.DestructiveHint != nil && *a.DestructiveHint && a.OpenWorldHint != nil && *a.OpenWorldHint
	}
	if !seen {
		t.Fatalf("MCP tools/list does not mark alpha_send_message destructive and open-world: %+v", tools.Tools)
	}
}
