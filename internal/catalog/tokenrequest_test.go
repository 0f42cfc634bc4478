package catalog

import (
	"strings"
	"testing"
)

// tokenRequestConnector's OAuth method uses every token request option.
const tokenRequestConnector = `
id: acme
name: Acme
description: A test application used by the loader tests of token request options.
category: productivity
api: {baseUrl: "https://api.acme.test/v1"}
authMethods:
  - id: oauth2
    type: oauth2
    name: OAuth
    oauth2: {authorizeUrl: "https://auth.acme.test/authorize", tokenUrl: "https://auth.acme.test/token", scopes: [all],
      tokenBodyType: json, tokenScope: true, refresh: true, refreshUrl: "https://auth.acme.test/refresh"}
  - id: app
    type: oauth2_client_credentials
    name: App
    oauth2: {tokenUrl: "https://auth.acme.test/token", scopes: [all], tokenBodyType: form}
tools:
  - id: acme_get_item
    name: Get item
    description: Returns one item by its id, for testing the loader.
    effect: read
    requiredScopes: [all]
    inputSchema: {type: object, properties: {id: {type: string}}, required: [id], additionalProperties: false}
    request: {method: GET, path: "/items/{id}"}
`

func TestLoad_TokenRequestOptions(t *testing.T) {
	t.Parallel()
	if err := loadOne(t, tokenRequestConnector); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, from, to, want string
	}{
		{"unknown body type", "tokenBodyType: json", "tokenBodyType: xml", `"xml" must be form or json`},
		{"refresh URL without refresh", "refresh: true,", "refresh: false,", "refreshUrl: is set but refresh is false"},
		{"refresh URL not https", `refreshUrl: "https://auth.acme.test/refresh"`, `refreshUrl: "http://auth.acme.test/refresh"`, "refreshUrl"},
		{"refresh URL placeholder", `refreshUrl: "https://auth.acme.test/refresh"`, `refreshUrl: "https://{nope}/refresh"`, "placeholder {nope} is not a connection field"},
		{"token scope without a sign-in", "tokenBodyType: form}", "tokenScope: true}", "only for type oauth2"},
		{"refresh URL without a sign-in", "tokenBodyType: form}", `refreshUrl: "https://auth.acme.test/refresh"}`, "only for type oauth2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			bad := strings.Replace(tokenRequestConnector, c.from, c.to, 1)
			if bad == tokenRequestConnector {
				t.Fatalf("replacement %q not found", c.from)
			}
			err := loadOne(t, bad)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v\nwant %q", err, c.want)
			}
		})
	}
}
