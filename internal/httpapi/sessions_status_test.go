package httpapi

import (
	"context"
	"fmt"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// TestSession_StatusFollowsTheAccountExecuteUses: with a broken default
// and a working second account, the session says reauth_required (execute
// would refuse the default), unless the session names the working account;
// reconnecting the default makes it connected.
func TestSession_StatusFollowsTheAccountExecuteUses(t *testing.T) {
	t.Parallel()
	f := setup(t)
	var ids []string
	for i := range 2 {
		st, m, raw := f.json("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","userId":"u1","credential":{"type":"api_key","apiKey":"delta-secret-key","host":%q}}`, f.providerHost))
		if st != 200 {
			t.Fatalf("account %d: %s", i, raw)
		}
		ids = append(ids, dataOf(m)["id"].(string))
	}
	if err := f.store.SetConnectionStatus(context.Background(), ids[0], 1, store.StatusReauthRequired); err != nil {
		t.Fatal(err)
	}
	status := func(body string) string {
		t.Helper()
		_, m, _ := f.json("POST", "/v1/sessions", body)
		id, _ := dataOf(m)["id"].(string)
		_, m, raw := f.json("GET", "/v1/sessions/"+id, "")
		cs, _ := dataOf(m)["connectors"].([]any)
		if len(cs) != 1 {
			t.Fatalf("session: %s", raw)
		}
		return cs[0].(map[string]any)["connection"].(map[string]any)["status"].(string)
	}
	if s := status(`{"userId":"u1","connectors":["delta"]}`); s != "reauth_required" {
		t.Fatalf("broken default: status %q, want reauth_required", s)
	}
	if st, m, _ := f.json("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","input":{"id":"1"}}`); st != 400 || errCode(m) != "REAUTH_REQUIRED" {
		t.Fatalf("execute with the broken default: %d %v", st, m)
	}
	if s := status(`{"userId":"u1","connectors":["delta"],"accounts":{"delta":"default-2"}}`); s != "connected" {
		t.Fatalf("session naming the working account: status %q", s)
	}
	rot := fmt.Sprintf(`{"credential":{"type":"api_key","apiKey":"delta-secret-key","host":%q}}`, f.providerHost)
	if st, _, raw := f.json("PATCH", "/v1/connections/"+ids[0], rot); st != 200 {
		t.Fatalf("rotate: %s", raw)
	}
	if s := status(`{"userId":"u1","connectors":["delta"]}`); s != "connected" {
		t.Fatalf("reconnected default: status %q", s)
	}
}
