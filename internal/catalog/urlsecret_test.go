package catalog

import (
	"strings"
	"testing"
)

// urlSecretConnector keeps its credential in the API path, as Telegram's
// Bot API does: a custom field without a placement fills {token}.
const urlSecretConnector = `
id: acme
name: Acme
description: A test application whose API takes its key in the path.
category: communication
api: {baseUrl: "https://api.acme.test/bot{token}", proxy: false}
authMethods:
  - id: token
    type: custom
    name: Token
    fields: [{name: token, label: Token, secret: true}]
tools:
  - id: acme_get_item
    name: Get item
    description: Returns one item by its id, for testing the loader.
    effect: read
    inputSchema: {type: object, properties: {id: {type: string}}, required: [id], additionalProperties: false}
    request: {method: GET, path: "/items/{id}"}
`

// TestLoad_CustomFieldFillsTheBaseURL: a custom field without a placement
// may fill a base URL placeholder only when every auth method has it, and
// such a connector keeps the proxy off (its errors name the base URL).
func TestLoad_CustomFieldFillsTheBaseURL(t *testing.T) {
	t.Parallel()
	if err := loadOne(t, urlSecretConnector); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, from, to, want string }{
		{"proxy on", "proxy: false", "proxy: true", "api.proxy: must be false"},
		{"placeholder of no field", "bot{token}", "bot{key}", "{key} is not a connection field"},
		{"field in no placeholder", "bot{token}", "bot", "placement: is required unless the field fills a base URL placeholder"},
		{"another method lacks it", "    fields: [{name: token, label: Token, secret: true}]\n",
			"    fields: [{name: token, label: Token, secret: true}]\n  - {id: api_key, type: api_key, name: API key, apiKey: {in: header, name: X-Key}}\n",
			"{token} is not a connection field"},
	} {
		bad := strings.Replace(urlSecretConnector, c.from, c.to, 1)
		if bad == urlSecretConnector {
			t.Fatalf("%s: replacement %q not found", c.name, c.from)
		}
		if err := loadOne(t, bad); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
	}
}
