package httpapi

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// TestAccountName_SameRuleEverywhere: an account name is 1 to 64
// characters (not bytes) on create, on rename and on the Connect page's
// rename alike.
func TestAccountName_SameRuleEverywhere(t *testing.T) {
	t.Parallel()
	f, _ := setupConnect(t)
	ctx := context.Background()
	if err := f.store.SetConnectSettings(ctx, f.project.ID, store.ConnectSettings{SelfManage: true}); err != nil {
		t.Fatal(err)
	}
	ok, long := strings.Repeat("é", 64), strings.Repeat("é", 65) // 128 and 130 bytes
	create := func(name string) (int, map[string]any, string) {
		return f.json("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","userId":"ann","name":%q,"credential":{"type":"api_key","apiKey":"k","host":%q}}`, name, f.providerHost))
	}
	if st, m, raw := create(long); st != 400 || errCode(m) != "VALIDATION_ERROR" {
		t.Fatalf("create with 65 characters: %d %s", st, raw)
	}
	st, m, raw := create(ok)
	id, _ := dataOf(m)["id"].(string)
	if st != 200 || id == "" {
		t.Fatalf("create with 64 characters: %d %s", st, raw)
	}
	token := f.link(t, `{"userId":"ann"}`)
	for _, c := range []struct {
		name   string
		status int
	}{{long, 400}, {"", 400}, {strings.Repeat("ü", 64), 200}} {
		if st, m, raw := f.json("PATCH", "/v1/connections/"+id, fmt.Sprintf(`{"name":%q}`, c.name)); st != c.status || (st == 400 && errCode(m) != "VALIDATION_ERROR") {
			t.Errorf("rename %d characters: %d %s", len([]rune(c.name)), st, raw)
		}
		if st, m, raw := f.page("PATCH", "/api/connect/"+token+"/connections/"+id, fmt.Sprintf(`{"name":%q}`, c.name)); st != c.status || (st == 400 && errCode(m) != "VALIDATION_ERROR") {
			t.Errorf("Connect page rename %d characters: %d %s", len([]rune(c.name)), st, raw)
		}
	}
}

// TestSessionAccounts_LabelInAnyCase: a session's accounts entry may name
// an account by its label in any case at create, as account resolution
// matches it when a call runs.
func TestSessionAccounts_LabelInAnyCase(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	_, m, raw := f.json("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","userId":"u1","credential":{"type":"api_key","apiKey":"delta-secret-key","host":%q}}`, f.providerHost))
	id, _ := dataOf(m)["id"].(string)
	if id == "" {
		t.Fatal(raw)
	}
	if _, m, raw = f.json("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","userId":"u1","credential":{"type":"api_key","apiKey":"other","host":%q}}`, f.providerHost)); dataOf(m)["id"] == nil {
		t.Fatal(raw)
	}
	if err := f.store.SetConnectionLabel(ctx, id, "Work Delta"); err != nil {
		t.Fatal(err)
	}
	for _, ref := range []string{"Work Delta", "work delta", "WORK DELTA"} {
		st, m, raw := f.json("POST", "/v1/sessions", fmt.Sprintf(`{"userId":"u1","connectors":["delta"],"accounts":{"delta":%q}}`, ref))
		if st != 201 {
			t.Fatalf("accounts %q: %d %s", ref, st, raw)
		}
		sid := dataOf(m)["id"].(string)
		_, m, raw = f.json("POST", "/v1/sessions/"+sid+"/tools/switchboard_execute", `{"arguments":{"action":"delta_get_task","input":{"id":"1"}}}`)
		if m["ok"] != true {
			t.Fatalf("accounts %q: call: %s", ref, raw)
		}
	}
	if st, m, raw := f.json("POST", "/v1/sessions", `{"userId":"u1","connectors":["delta"],"accounts":{"delta":"work"}}`); st != 400 || errCode(m) != "VALIDATION_ERROR" {
		t.Fatalf("no such account: %d %s", st, raw)
	}
}
