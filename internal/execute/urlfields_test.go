package execute

import (
	"testing"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// TestURLFields_CustomSecretFillsTheBaseURL: a custom method's field
// without a placement fills its base URL placeholder (Telegram's bot token
// in the API path), escaped as one path segment so that it cannot add
// segments or change the host; a placed field does not, and other methods
// keep to the connection fields.
func TestURLFields_CustomSecretFillsTheBaseURL(t *testing.T) {
	t.Parallel()
	m := &catalog.AuthMethod{ID: "token", Type: catalog.AuthCustom, Fields: []catalog.CustomField{
		{Name: "token", Label: "Token", Secret: true},
		{Name: "key", Label: "Key", Placement: &catalog.Placement{In: "header", Name: "X-Key"}},
	}}
	cred := account.Credential{Type: catalog.AuthCustom, Method: "token",
		Fields: map[string]string{"token": "123:AB/c?d", "key": "k"}, Connection: map[string]string{"region": "eu"}}
	u, err := baseURL("acme", "https://api.{region}.acme.test/bot{token}/{key}", urlFields(m, cred))
	if err == nil {
		t.Fatalf("a placed field filled the base URL: %s", u.Redacted())
	}
	u, err = baseURL("acme", "https://api.{region}.acme.test/bot{token}", urlFields(m, cred))
	if err != nil {
		t.Fatal(err)
	}
	if u.Host != "api.eu.acme.test" || u.EscapedPath() != "/bot123:AB%2Fc%3Fd" || u.RawQuery != "" {
		t.Fatalf("base URL host %q path %q query %q", u.Host, u.EscapedPath(), u.RawQuery)
	}
	if cred.Connection["token"] != "" {
		t.Fatal("the secret was written into the account's connection fields")
	}
	apiKey := &catalog.AuthMethod{ID: "api_key", Type: catalog.AuthAPIKey}
	if _, err := baseURL("acme", "https://api.acme.test/bot{token}", urlFields(apiKey, cred)); err == nil {
		t.Fatal("an api_key account's base URL took a custom field")
	}
}
