package httpapi

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/fstest"
)

// TestConnections_KeyCheckedWhenStored: a key the provider refuses (401)
// on the connector's identity call is not stored, through the API or the
// Connect page, and the answer says so under the credential; a provider
// that is down does not block storing; a working key is stored with the
// identity's label from the same check.
func TestConnections_KeyCheckedWhenStored(t *testing.T) {
	t.Parallel()
	f, _ := setupConnect(t)
	ctx := context.Background()
	refused := func(st int, m map[string]any, raw, path string) {
		t.Helper()
		if st != 400 || errCode(m) != "VALIDATION_ERROR" || !strings.Contains(raw, "Zeta Desk refused this credential") ||
			!strings.Contains(raw, `"path":["`+path+`"]`) || strings.Contains(raw, "zeta-wrong") {
			t.Fatalf("a refused key: %d %s", st, raw)
		}
	}
	st, m, raw := f.json("POST", "/v1/connections", `{"connectorId":"zeta","userId":"ann","credential":{"type":"api_key","apiKey":"zeta-wrong"}}`)
	refused(st, m, raw, "credential")
	token := f.link(t, `{"userId":"ann","connectors":["zeta"]}`)
	cfg := f.offeredConfig(t, token, "zeta", "api_key")
	st, m, raw = f.page("POST", "/api/connect/"+token+"/accounts", `{"authConfigId":"`+cfg+`","fields":{"apiKey":"zeta-wrong"}}`)
	refused(st, m, raw, "fields")
	if conns, _ := f.store.ListConnections(ctx, f.project.ID, "ann"); len(conns) != 0 {
		t.Fatalf("a refused key was stored: %+v", conns)
	}
	// The link is not spent by a refused key: the user corrects it.
	if st, _, raw := f.page("POST", "/api/connect/"+token+"/accounts", `{"authConfigId":"`+cfg+`","fields":{"apiKey":"zeta-good"}}`); st != 201 ||
		!strings.Contains(raw, `"label":"zed"`) {
		t.Fatalf("a working key through the page: %d %s", st, raw)
	}
	// Provider down: stored, not checked.
	if st, _, raw := f.json("POST", "/v1/connections", `{"connectorId":"zeta","userId":"bob","credential":{"type":"api_key","apiKey":"zeta-down"}}`); st != 200 ||
		!strings.Contains(raw, `"status":"active"`) {
		t.Fatalf("provider down: %d %s", st, raw)
	}
	// A rotation to a refused key keeps the old credential.
	conns, _ := f.store.ListConnections(ctx, f.project.ID, "ann")
	st, m, raw = f.json("PATCH", "/v1/connections/"+conns[0].ID, `{"credential":{"type":"api_key","apiKey":"zeta-wrong"}}`)
	refused(st, m, raw, "credential")
	if c, _ := f.store.GetConnection(ctx, f.project.ID, conns[0].ID); c.Revision != conns[0].Revision {
		t.Fatalf("a refused rotation changed the account: revision %d -> %d", conns[0].Revision, c.Revision)
	}
}

// TestConnections_MethodIdentity: an auth method with an identity call of
// its own checks and labels its accounts with it, not the connector's.
func TestConnections_MethodIdentity(t *testing.T) {
	t.Parallel()
	provider := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/kappa/agents/current":
			if u, pw, ok := r.BasicAuth(); !ok || u != "ann" || pw != "agent-pass" {
				w.WriteHeader(401)
				return
			}
			_, _ = io.WriteString(w, `{"agent":{"name":"Ann the agent"}}`)
		case "/kappa/me":
			_, _ = io.WriteString(w, `{"login":"the connector's identity"}`)
		default:
			w.WriteHeader(404)
		}
	}))
	t.Cleanup(provider.Close)
	mfs := fstest.MapFS{"logos/kappa.svg": {Data: []byte("<svg/>")}, "connectors/kappa.yaml": {Data: []byte(fmt.Sprintf(`
id: kappa
name: Kappa Desk
description: A test help desk whose agents sign in with a password and have an identity call of their own.
category: productivity
api: {baseUrl: "%s/kappa"}
authMethods:
  - {id: api_key, type: api_key, name: API key, apiKey: {in: header, name: X-Kappa-Key}}
  - id: basic
    type: basic
    name: Agent sign-in
    identity: {method: GET, path: /agents/current, label: agent.name}
identity: {method: GET, path: /me, label: login}
tools:
  - id: kappa_get_me
    name: Get me
    description: Returns the Kappa user of the credential, for the identity tests.
    effect: read
    inputSchema: {type: object, properties: {}, additionalProperties: false}
    request: {method: GET, path: /me}
`, provider.URL))}}
	f := setupWith(t, sqliteDB, mfs, provider)
	st, m, raw := f.json("POST", "/v1/connections", `{"connectorId":"kappa","userId":"ann","credential":{"type":"basic","username":"ann","password":"wrong-pass"}}`)
	if st != 400 || errCode(m) != "VALIDATION_ERROR" || !strings.Contains(raw, "Kappa Desk refused this credential") {
		t.Fatalf("a refused agent password: %d %s", st, raw)
	}
	if st, _, raw := f.json("POST", "/v1/connections", `{"connectorId":"kappa","userId":"ann","credential":{"type":"basic","username":"ann","password":"agent-pass"}}`); st != 200 ||
		!strings.Contains(raw, `"label":"Ann the agent"`) {
		t.Fatalf("an agent account: %d %s", st, raw)
	}
	if st, _, raw := f.json("POST", "/v1/connections", `{"connectorId":"kappa","userId":"bob","credential":{"type":"api_key","apiKey":"k-1"}}`); st != 200 ||
		!strings.Contains(raw, `"label":"the connector's identity"`) {
		t.Fatalf("an API key account: %d %s", st, raw)
	}
}
