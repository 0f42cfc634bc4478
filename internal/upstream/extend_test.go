package upstream

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	builtin "github.com/switchboard-gw/switchboard/catalog"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
)

func builtins(t *testing.T) *catalog.Catalog {
	t.Helper()
	cat, err := catalog.Load(builtin.FS)
	if err != nil {
		t.Fatal(err)
	}
	return cat
}

func extendFile(t *testing.T, cat *catalog.Catalog, file, id string, o ExtendOptions) (*catalog.Connector, Report, error) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	base, ok := cat.Connector(id)
	if !ok {
		t.Fatalf("no built-in %s", id)
	}
	return ExtendOpenAPI(context.Background(), data, base, o)
}

// TestExtendOpenAPI_CuratedToolsWinAndNewOperationsBecomeTools: of the
// description's four operations, the one with a curated tool's id and the
// one on a curated tool's method and path are skipped with the reason;
// the others become github tools with the effect of their method, pii
// unless the description says otherwise, no scopes, and the inputs the
// plain import builds.
func TestExtendOpenAPI_CuratedToolsWinAndNewOperationsBecomeTools(t *testing.T) {
	t.Parallel()
	cat := builtins(t)
	ext, rep, err := extendFile(t, cat, "testdata/github-extension.yaml", "github", ExtendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if ext.ID != "github" || ext.Origin != catalog.OriginExtension || len(ext.AuthMethods) != 0 {
		t.Fatalf("extension %s %s with %d auth methods", ext.ID, ext.Origin, len(ext.AuthMethods))
	}
	var ids []string
	for _, tl := range ext.Tools {
		ids = append(ids, tl.ID)
	}
	want := []string{"github_actions_delete_actions_cache_by_id", "github_actions_approve_workflow_run"}
	if !slices.Equal(ids, want) || rep.Tools != 2 {
		t.Fatalf("tools %v (report %d), want %v", ids, rep.Tools, want)
	}
	skipped := strings.Join(rep.Skipped, "\n")
	if !strings.Contains(skipped, "github_get_authenticated_user") || !strings.Contains(skipped, "has this id") ||
		!strings.Contains(skipped, "github_list_repository_issues calls GET /repos/{}/{}/issues") || len(rep.Skipped) != 2 {
		t.Fatalf("skipped:\n%s", skipped)
	}
	rerun := tool(t, ext, "github_actions_approve_workflow_run")
	if rerun.Effect != catalog.EffectWrite || rerun.Classification() != catalog.ClassPII || len(rerun.RequiredScopes) != 0 ||
		rerun.Request.Method != "POST" || rerun.Request.Path != "/repos/{owner}/{repo}/actions/runs/{run_id}/approval" {
		t.Fatalf("rerun: %+v %+v", rerun, rerun.Request)
	}
	var in struct {
		Properties map[string]any `json:"properties"`
		Required   []string       `json:"required"`
	}
	if err := json.Unmarshal(rerun.InputSchema, &in); err != nil {
		t.Fatal(err)
	}
	if len(in.Properties) != 4 || in.Properties["enable_debug_logging"] == nil || !slices.Equal(in.Required, []string{"owner", "repo", "run_id"}) {
		t.Fatalf("rerun input: %s", rerun.InputSchema)
	}
	del := tool(t, ext, "github_actions_delete_actions_cache_by_id")
	if del.Effect != catalog.EffectDestructive || del.Classification() != catalog.ClassStandard {
		t.Fatalf("delete: effect %s class %s", del.Effect, del.Classification())
	}
}

// TestExtendOpenAPI_ServerMustBeTheConnectorsHost: a description whose
// server is another host is refused unless the check is turned off; then
// its paths are relative to the connector's base URL.
func TestExtendOpenAPI_ServerMustBeTheConnectorsHost(t *testing.T) {
	t.Parallel()
	cat := builtins(t)
	data, err := os.ReadFile("testdata/github-extension.yaml")
	if err != nil {
		t.Fatal(err)
	}
	other := strings.Replace(string(data), "https://api.github.com", "https://api.example.com/v3", 1)
	base, _ := cat.Connector("github")
	if _, _, err := ExtendOpenAPI(context.Background(), []byte(other), base, ExtendOptions{}); err == nil || !strings.Contains(err.Error(), "not on the connector's API host") {
		t.Fatalf("another host: %v", err)
	}
	ext, _, err := ExtendOpenAPI(context.Background(), []byte(other), base, ExtendOptions{SkipHostCheck: true})
	if err != nil {
		t.Fatal(err)
	}
	if p := tool(t, ext, "github_actions_approve_workflow_run").Request.Path; p != "/repos/{owner}/{repo}/actions/runs/{run_id}/approval" {
		t.Fatalf("path without the check: %s", p)
	}
	sub := strings.Replace(string(data), "https://api.github.com", "https://API.github.com/sub/", 1)
	ext, _, err = ExtendOpenAPI(context.Background(), []byte(sub), base, ExtendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p := tool(t, ext, "github_actions_delete_actions_cache_by_id").Request.Path; p != "/sub/repos/{owner}/{repo}/actions/caches/{cache_id}" {
		t.Fatalf("a server path under the base URL is kept: %s", p)
	}
}

// TestCatalogs_ExtensionJoinsTheBuiltinOnlyInItsProject: a stored
// extension adds its tools to the project's github connector (same auth
// methods and base URL), another project sees none of them, and removing
// it takes them away.
func TestCatalogs_ExtensionJoinsTheBuiltinOnlyInItsProject(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	base := builtins(t)
	ext, _, err := extendFile(t, base, "testdata/github-extension.yaml", "github", ExtendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	def, _ := json.Marshal(ext)
	st := storetest.OpenSQLite(t, nil)
	cats := NewCatalogs(base, st)
	p, _ := st.CreateProject(ctx, "p")
	q, _ := st.CreateProject(ctx, "q")
	if err := st.PutProjectConnector(ctx, store.ProjectConnector{ProjectID: p.ID, ConnectorID: "github",
		Origin: catalog.OriginExtension, Definition: def}); err != nil {
		t.Fatal(err)
	}
	const id = "github_actions_approve_workflow_run"
	tn, err := cats.Load(ctx, p.ID)
	if err != nil {
		t.Fatal(err)
	}
	tl, ok := tn.Catalog.Tool(id)
	if !ok || !tl.Extended {
		t.Fatalf("the extended tool is missing from its project's catalog (%v)", ok)
	}
	gh, _ := tn.Catalog.Connector("github")
	orig, _ := base.Connector("github")
	if tl.Connector() != gh || !gh.Builtin() || gh.API.BaseURL != orig.API.BaseURL || len(gh.AuthMethods) != len(orig.AuthMethods) ||
		len(gh.Tools) != len(orig.Tools)+2 || len(orig.Tools) == len(gh.Tools) {
		t.Fatalf("merged connector: builtin %v, %d tools (built-in %d)", gh.Builtin(), len(gh.Tools), len(orig.Tools))
	}
	if cur, _ := tn.Catalog.Tool("github_get_authenticated_user"); cur.Extended || cur.Request.Path != "/user" {
		t.Fatal("the curated tool lost its id to the extension")
	}
	if _, ok := base.Tool(id); ok {
		t.Fatal("the extension leaked into the built-in catalog")
	}
	other, err := cats.Load(ctx, q.ID)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := other.Catalog.Tool(id); ok {
		t.Fatal("another project sees the extension")
	}
	if err := st.DeleteProjectConnector(ctx, p.ID, "github"); err != nil {
		t.Fatal(err)
	}
	if tn, err = cats.Load(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if _, ok := tn.Catalog.Tool(id); ok {
		t.Fatal("the removed extension's tool is still listed")
	}
}

// TestExtendOpenAPI_PlaceholderNamesAndDeleteBodies: paths that differ
// only in placeholder names (as large published descriptions have) are
// accepted, and a DELETE with a JSON body becomes a tool that sends it
// (the catalog runs a DELETE body its tool names).
func TestExtendOpenAPI_PlaceholderNamesAndDeleteBodies(t *testing.T) {
	t.Parallel()
	const doc = `
openapi: 3.0.3
info: {title: t, version: "1"}
servers: [{url: "https://api.github.com"}]
paths:
  /widgets/{widget_id}:
    get:
      operationId: widgets/get
      parameters: [{name: widget_id, in: path, required: true, schema: {type: string}}]
      responses: {"200": {description: ok}}
  /widgets/{digest}:
    delete:
      operationId: widgets/delete-by-digest
      parameters: [{name: digest, in: path, required: true, schema: {type: string}}]
      requestBody:
        content: {application/json: {schema: {type: object, properties: {reason: {type: string}}}}}
      responses: {"204": {description: ok}}
`
	cat := builtins(t)
	base, _ := cat.Connector("github")
	ext, rep, err := ExtendOpenAPI(context.Background(), []byte(doc), base, ExtendOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(ext.Tools) != 2 || rep.Tools != 2 || len(rep.Skipped) != 0 {
		t.Fatalf("tools %+v, report %+v", ext.Tools, rep)
	}
	del := tool(t, ext, "github_widgets_delete_by_digest")
	if del.Request.Method != "DELETE" || !slices.Contains(del.Request.Body, "reason") {
		t.Fatalf("the DELETE's request: %+v", del.Request)
	}
	// A plain import stays strict about conflicting paths.
	if _, _, err := ImportOpenAPI(context.Background(), []byte(doc), ImportOptions{ID: "widgets"}); err == nil || !strings.Contains(err.Error(), "conflicting paths") {
		t.Fatalf("plain import: %v", err)
	}
}
