package execute

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/account"
)

// TestPayPal_SandboxAppTalksToTheSandbox: an account of PayPal's sandbox
// method trades its client id and secret (in a basic header) for a token at
// api-m.sandbox.paypal.com/v1/oauth2/token with grant client_credentials and
// no scope, and its tools call the sandbox host, never the live one.
func TestPayPal_SandboxAppTalksToTheSandbox(t *testing.T) {
	t.Parallel()
	e, g := newGrantEnv(t, "/v1/oauth2/token", func(w http.ResponseWriter, r grantReq) {
		_, _ = io.WriteString(w, `{"scope":"https://uri.paypal.com/services/invoicing","access_token":"pp-sb","token_type":"Bearer","app_id":"APP-80W284485P519543T","expires_in":32400}`)
	})
	ctx := context.Background()
	if _, err := e.store.EnsureImplicitAuthConfig(ctx, e.project.ID, "paypal", "paypal_sandbox", "sandbox", "oauth2_client_credentials"); err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(map[string]any{"type": "oauth2_client_credentials", "clientId": "pp-id", "clientSecret": "pp-secret"})
	if _, err := e.accounts.Create(ctx, e.tenant(), account.CreateRequest{ConnectorID: "paypal", UserID: "u1",
		Credential: raw, AuthConfigKey: "paypal_sandbox"}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run("paypal_get_order", `{"id":"5O190127TN364715T"}`); err != nil {
		t.Fatal(err)
	}
	tr := g.lastToken()
	user, pass, ok := basicAuth(tr.Header.Get("Authorization"))
	if tr.Host != "api-m.sandbox.paypal.com" || tr.Method != "POST" || !ok || user != "pp-id" || pass != "pp-secret" ||
		tr.Form.Get("grant_type") != "client_credentials" || tr.Form.Has("client_secret") || tr.Form.Has("scope") {
		t.Fatalf("token request: %+v", tr)
	}
	c := g.lastCall()
	if c.Host != "api-m.sandbox.paypal.com" || c.Path != "/v2/checkout/orders/5O190127TN364715T" ||
		c.Header.Get("Authorization") != "Bearer pp-sb" || c.Header.Get("Prefer") != "return=representation" {
		t.Fatalf("tool call: %+v", c)
	}
}
