package execute

import (
	"io"
	"net/http"
	"testing"
)

// TestHelpScout_ClientCredentials: an internal Help Scout app trades its
// app id and secret, sent in the form body, for a token at
// api.helpscout.net/v2/oauth2/token (grant client_credentials, no scope),
// and the tools call the Mailbox API 2.0 with it.
func TestHelpScout_ClientCredentials(t *testing.T) {
	t.Parallel()
	e, g := newGrantEnv(t, "/v2/oauth2/token", func(w http.ResponseWriter, r grantReq) {
		_, _ = io.WriteString(w, `{"token_type":"bearer","access_token":"hs-cc","expires_in":172800}`)
	})
	if _, err := e.connectAs("help_scout", map[string]any{"type": "oauth2_client_credentials", "clientId": "hs-app",
		"clientSecret": "hs-secret"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run("help_scout_get_conversation", `{"conversationId":10001}`); err != nil {
		t.Fatal(err)
	}
	tr := g.lastToken()
	_, _, basic := basicAuth(tr.Header.Get("Authorization"))
	if tr.Host != "api.helpscout.net" || tr.Method != "POST" || basic || tr.Form.Get("grant_type") != "client_credentials" ||
		tr.Form.Get("client_id") != "hs-app" || tr.Form.Get("client_secret") != "hs-secret" || tr.Form.Has("scope") {
		t.Fatalf("token request: %+v", tr)
	}
	if c := g.lastCall(); c.Host != "api.helpscout.net" || c.Path != "/v2/conversations/10001" || c.Header.Get("Authorization") != "Bearer hs-cc" {
		t.Fatalf("tool call: %+v", c)
	}
}
