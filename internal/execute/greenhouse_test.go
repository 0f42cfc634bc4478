package execute

import (
	"io"
	"net/http"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/apierr"
)

// TestGreenhouse_ClientCredentialsAsAUser: a Harvest v3 credential trades
// its client id and secret (in a basic header) for a token at
// auth.greenhouse.io/token with grant client_credentials and sub naming the
// Greenhouse user the calls act as; no scope is asked for (scopes are ticked
// on the credential); the tools then call harvest.greenhouse.io/v3 with it.
// An account without the user id is refused when stored.
func TestGreenhouse_ClientCredentialsAsAUser(t *testing.T) {
	t.Parallel()
	e, g := newGrantEnv(t, "/token", func(w http.ResponseWriter, r grantReq) {
		_, _ = io.WriteString(w, `{"access_token":"gh-v3","token_type":"Bearer","expires_in":3600}`)
	})
	if _, err := e.connectAs("greenhouse", map[string]any{"type": "oauth2_client_credentials", "clientId": "gh-id",
		"clientSecret": "gh-secret", "userId": "12345"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run("greenhouse_list_applications", `{"job_ids":"77","status":"in_process","per_page":50}`); err != nil {
		t.Fatal(err)
	}
	tr := g.lastToken()
	user, pass, ok := basicAuth(tr.Header.Get("Authorization"))
	if tr.Host != "auth.greenhouse.io" || tr.Method != "POST" || !ok || user != "gh-id" || pass != "gh-secret" ||
		tr.Form.Get("grant_type") != "client_credentials" || tr.Form.Get("sub") != "12345" ||
		tr.Form.Has("client_secret") || tr.Form.Has("scope") {
		t.Fatalf("token request: %+v", tr)
	}
	c := g.lastCall()
	if c.Host != "harvest.greenhouse.io" || c.Path != "/v3/applications" || c.Header.Get("Authorization") != "Bearer gh-v3" {
		t.Fatalf("tool call: %+v", c)
	}
	// A second call reuses the token.
	if _, err := e.run("greenhouse_list_jobs", `{"status":"open"}`); err != nil {
		t.Fatal(err)
	}
	if tokens, calls := g.counts(); tokens != 1 || calls != 2 {
		t.Fatalf("token requests %d, calls %d", tokens, calls)
	}
	_, err := e.connectAs("greenhouse", map[string]any{"type": "oauth2_client_credentials", "clientId": "gh-id",
		"clientSecret": "gh-secret", "userId": "ann"})
	wantCode(t, err, apierr.ValidationError, 400)
}
