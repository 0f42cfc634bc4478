package httpapi

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// TestConnect_SelfManageKeepsToTheLinkScope: a link scoped to one
// connector lists, renames and removes only that connector's accounts; the
// user's accounts of other connectors are 404 through it, by connector
// list or by auth config list.
func TestConnect_SelfManageKeepsToTheLinkScope(t *testing.T) {
	t.Parallel()
	f, _ := setupConnect(t)
	ctx := context.Background()
	if err := f.store.SetConnectSettings(ctx, f.project.ID, store.ConnectSettings{SelfManage: true}); err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{
		fmt.Sprintf(`{"connectorId":"delta","userId":"ann","name":"tasks","credential":{"type":"api_key","apiKey":"k","host":%q}}`, f.providerHost),
		`{"connectorId":"zeta","userId":"ann","name":"desk","credential":{"type":"api_key","apiKey":"z"}}`,
	} {
		if st, _, raw := f.json("POST", "/v1/connections", body); st != 200 {
			t.Fatalf("create: %d %s", st, raw)
		}
	}
	conns, _ := f.store.ListConnections(ctx, f.project.ID, "ann")
	ids := map[string]string{}
	for _, c := range conns {
		ids[c.ConnectorID] = c.ID
	}

	for _, scope := range []string{`"connectors":["delta"]`, `"authConfigs":["delta_api_key"]`} {
		token := f.link(t, `{"userId":"ann",`+scope+`}`)
		if st, _, raw := f.page("GET", "/api/connect/"+token+"/connections", ""); st != 200 || !strings.Contains(raw, ids["delta"]) || strings.Contains(raw, ids["zeta"]) {
			t.Fatalf("%s: list: %d %s", scope, st, raw)
		}
		if st, m, raw := f.page("PATCH", "/api/connect/"+token+"/connections/"+ids["zeta"], `{"name":"hijacked"}`); st != 404 || errCode(m) != "NOT_FOUND" {
			t.Fatalf("%s: rename out of scope: %d %s", scope, st, raw)
		}
		if st, m, raw := f.page("DELETE", "/api/connect/"+token+"/connections/"+ids["zeta"], ""); st != 404 || errCode(m) != "NOT_FOUND" {
			t.Fatalf("%s: remove out of scope: %d %s", scope, st, raw)
		}
		if c, err := f.store.GetConnection(ctx, f.project.ID, ids["zeta"]); err != nil || c.Name != "desk" {
			t.Fatalf("%s: the out-of-scope account changed: %+v %v", scope, c, err)
		}
		if st, _, raw := f.page("PATCH", "/api/connect/"+token+"/connections/"+ids["delta"], `{"name":"renamed"}`); st != 200 {
			t.Fatalf("%s: rename in scope: %d %s", scope, st, raw)
		}
	}
	// The in-scope account can be removed.
	token := f.link(t, `{"userId":"ann","connectors":["delta"]}`)
	if st, _, raw := f.page("DELETE", "/api/connect/"+token+"/connections/"+ids["delta"], ""); st != 200 {
		t.Fatalf("remove in scope: %d %s", st, raw)
	}
}
