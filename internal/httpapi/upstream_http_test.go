package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/upstream"
)

// TestImportedAPI_PlainHTTPInOpenedNetworkRuns: an imported API on plain
// http, accepted because its host is in a network opened to the connector
// (loopback here), is stored, loads into the project's catalog and runs
// its tools over http.
func TestImportedAPI_PlainHTTPInOpenedNetworkRuns(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	plain := httptest.NewServer(http.HandlerFunc(fakeDelta))
	t.Cleanup(plain.Close)
	data, err := os.ReadFile("../upstream/testdata/notes-31.yaml")
	if err != nil {
		t.Fatal(err)
	}
	scope := netguard.New(netguard.Options{AllowLoopback: true}).Connector("notes")
	con, rep, err := upstream.ImportOpenAPI(ctx, data, upstream.ImportOptions{ID: "notes", BaseURL: plain.URL + "/v1",
		PlainHTTPFunc: func(ctx context.Context, host string) error { return scope.OpenedHost(ctx, host, nil) }})
	if err != nil || !rep.PlainHTTP {
		t.Fatalf("import: %v %+v", err, rep)
	}
	def, _ := json.Marshal(con)
	if err := f.store.PutProjectConnector(ctx, store.ProjectConnector{ProjectID: f.project.ID, ConnectorID: "notes",
		Origin: catalog.OriginOpenAPI, Definition: def}); err != nil {
		t.Fatal(err)
	}
	if st, _, raw := f.json("POST", "/v1/connections", `{"connectorId":"notes","userId":"u1","credential":{"type":"api_key","apiKey":"delta-secret-key"}}`); st != 200 {
		t.Fatalf("connect: %s", raw)
	}
	st, m, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"notes_list_notes","userId":"u1","input":{"q":"milk"}}`)
	if st != 200 || dataOf(m)["path"] != "/v1/notes" || !strings.Contains(dataOf(m)["query"].(string), "q=milk") {
		t.Fatalf("execute over http: %d %s", st, raw)
	}
}
