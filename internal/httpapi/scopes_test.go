package httpapi

import (
	"strings"
	"testing"
)

// A connection whose granted scopes lack one a tool needs is refused before
// the provider is called: REST answers 403 ACTION_DISABLED naming the
// scope, a session answers a refusal with a connect link.
func TestExecute_MissingScope_RESTForbiddenAndSessionRefusalWithLink(t *testing.T) {
	t.Parallel()
	f := setup(t)
	st, _, raw := f.json("POST", "/v1/connections", `{"connectorId":"alpha","userId":"u1","credential":{"type":"oauth2","accessToken":"alpha-token-1","scopes":["channels:read"]}}`)
	if st != 201 && st != 200 {
		t.Fatalf("connect: %d %s", st, raw)
	}
	st, m, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"alpha_send_message","userId":"u1","input":{"channel":"c1","text":"hi"}}`)
	if st != 403 || errCode(m) != "ACTION_DISABLED" || !strings.Contains(raw, "chat:write") || strings.Contains(raw, "alpha-token-1") {
		t.Fatalf("execute: %d %s", st, raw)
	}

	_, m, _ = f.json("POST", "/v1/sessions", `{"userId":"u1","connectors":["alpha"],"pinned":["alpha_send_message"]}`)
	id := dataOf(m)["id"].(string)
	st, m, raw = f.json("POST", "/v1/sessions/"+id+"/tools/alpha_send_message", `{"arguments":{"channel":"c1","text":"hi"}}`)
	e, _ := m["error"].(map[string]any)
	if st != 200 || m["ok"] != false || e["code"] != "missing_scopes" || e["connector"] != "alpha" ||
		!strings.Contains(e["message"].(string), "chat:write") || !strings.Contains(e["connectUrl"].(string), "/connect/") {
		t.Fatalf("session call: %d %s", st, raw)
	}
}
