package httpapi

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// TestConnectLink_ForOneAccountReconnectsIt: a link made with connectionId
// offers that account's connector and, through the key form or an OAuth
// sign-in, replaces that account's credential (same id and name, a new
// revision, active again) instead of adding default-2; it cannot be used
// for another account, and only the user's own account can be named.
func TestConnectLink_ForOneAccountReconnectsIt(t *testing.T) {
	t.Parallel()
	f, fake := setupConnect(t)
	ctx := context.Background()
	create := func(body string) string {
		t.Helper()
		st, m, raw := f.json("POST", "/v1/connections", body)
		if st != 200 {
			t.Fatalf("create: %s", raw)
		}
		return dataOf(m)["id"].(string)
	}
	desk := create(`{"connectorId":"zeta","userId":"ann","credential":{"type":"api_key","apiKey":"zeta-old"}}`)
	other := create(`{"connectorId":"zeta","userId":"ann","credential":{"type":"api_key","apiKey":"zeta-other"}}`)
	notes := create(`{"connectorId":"epsilon","userId":"ann","credential":{"type":"oauth2","accessToken":"eps-old"}}`)
	bobs := create(`{"connectorId":"zeta","userId":"bob","credential":{"type":"api_key","apiKey":"zeta-bob"}}`)
	for _, id := range []string{desk, notes} {
		if err := f.store.SetConnectionStatus(ctx, id, 1, store.StatusReauthRequired); err != nil {
			t.Fatal(err)
		}
	}
	// Only the user's own account, of a connector the link offers.
	for _, body := range []string{
		`{"userId":"ann","connectionId":"` + bobs + `"}`,
		`{"userId":"ann","connectionId":"` + desk + `","connectors":["delta"]}`,
		`{"userId":"ann","connectionId":"` + store.NewID() + `"}`,
	} {
		if st, m, raw := f.json("POST", "/v1/connect-links", body); st != 400 || errCode(m) != "VALIDATION_ERROR" || !strings.Contains(raw, "connectionId") {
			t.Fatalf("%s: %d %s", body, st, raw)
		}
	}
	st, m, raw := f.json("POST", "/v1/connect-links", `{"userId":"ann","connectionId":"`+desk+`"}`)
	if st != 201 || dataOf(m)["connectionId"] != desk {
		t.Fatalf("link: %d %s", st, raw)
	}
	u := dataOf(m)["url"].(string)
	token := u[strings.LastIndex(u, "/")+1:]
	_, v, raw := f.page("GET", "/api/connect/"+token, "")
	if cs := dataOf(v)["connectors"].([]any); len(cs) != 1 || cs[0].(map[string]any)["id"] != "zeta" || dataOf(v)["connectionId"] != desk {
		t.Fatalf("view: %s", raw)
	}
	cfg := f.offeredConfig(t, token, "zeta", "api_key")
	if st, m, raw := f.page("POST", "/api/connect/"+token+"/accounts", `{"authConfigId":"`+cfg+`","fields":{"apiKey":"zeta-new"},"connectionId":"`+other+`"}`); st != 403 || errCode(m) != "FORBIDDEN" {
		t.Fatalf("another account through the link: %d %s", st, raw)
	}
	if st, _, raw := f.page("POST", "/api/connect/"+token+"/accounts", `{"authConfigId":"`+cfg+`","fields":{"apiKey":"zeta-new"}}`); st != 200 || !strings.Contains(raw, desk) {
		t.Fatalf("reconnect: %d %s", st, raw)
	}
	zetas, _ := f.store.ConnectorConnections(ctx, f.project.ID, "ann", "zeta")
	if len(zetas) != 2 || zetas[0].ID != desk || zetas[0].Name != "default" || zetas[0].Status != store.StatusActive || zetas[0].Revision != 2 {
		t.Fatalf("after the reconnect: %+v", zetas)
	}

	// The same through an OAuth sign-in.
	token = f.link(t, `{"userId":"ann","connectionId":"`+notes+`"}`)
	authURL, cookie := f.authorize(t, token, `{"authConfigId":"`+f.offeredConfig(t, token, "epsilon", "oauth2")+`"}`)
	if r := f.do(f.h, "GET", fake.approve(t, authURL, "code-re"), "", "", "Cookie", cookie); r.status != 200 || !strings.Contains(string(r.body), "Epsilon Notes is connected") {
		t.Fatalf("callback: %d %s", r.status, r.body)
	}
	eps, _ := f.store.ConnectorConnections(ctx, f.project.ID, "ann", "epsilon")
	if len(eps) != 1 || eps[0].ID != notes || eps[0].Status != store.StatusActive || eps[0].Revision != 2 {
		t.Fatalf("after the OAuth reconnect: %+v", eps)
	}
}
