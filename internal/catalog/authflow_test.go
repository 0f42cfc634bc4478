package catalog

import (
	"strings"
	"testing"
)

// signInConnector has a site for API keys and a cloud id an OAuth
// sign-in reads after the token exchange, on a base URL of its own.
const signInConnector = `
id: acme
name: Acme
description: A test application whose OAuth accounts live on another host.
category: productivity
api: {baseUrl: "https://{site}.acme.test/v1"}
connectionFields:
  - {name: site, label: Site, pattern: "[a-z]+"}
  - {name: cloudId, label: Cloud id, authMethods: [oauth2]}
  - {name: realm, label: Realm, authMethods: [oauth2]}
authMethods:
  - {id: api_key, type: api_key, name: API key, apiKey: {in: header, name: X-Key}}
  - id: oauth2
    type: oauth2
    name: Acme sign-in
    baseUrl: "https://api.acme.test/ex/{cloudId}/v1"
    oauth2:
      authorizeUrl: https://auth.acme.test/authorize
      tokenUrl: https://auth.acme.test/token
      redirectParams: [realm]
      afterToken: {url: "https://api.acme.test/resources", select: {cloudId: id}, match: {url: "https://{site}.acme.test"}}
tools:
  - id: acme_get_item
    name: Get item
    description: Returns one item by its id, for testing the loader.
    effect: read
    inputSchema: {type: object, properties: {id: {type: string}}, required: [id], additionalProperties: false}
    request: {method: GET, path: "/items/{id}"}
`

func TestLoad_SignInFields(t *testing.T) {
	t.Parallel()
	if err := loadOne(t, signInConnector); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, from, to, want string }{
		{"field of an unknown method", "authMethods: [oauth2]}\n  - {name: realm", "authMethods: [oauth]}\n  - {name: realm", `"oauth" is not an auth method`},
		{"method base URL needs its field", "ex/{cloudId}/v1", "ex/{realm2}/v1", "placeholder {realm2} is not a connection field"},
		{"base URL field of another method", `pattern: "[a-z]+"}`, `pattern: "[a-z]+", authMethods: [oauth2]}`, "api.baseUrl needs {site}"},
		{"redirect param not a field", "redirectParams: [realm]", "redirectParams: [realmId]", `"realmId" is not a connection field`},
		{"after-token URL with a placeholder", "https://api.acme.test/resources", "https://{site}.acme.test/resources", "without placeholders"},
		{"after-token over http", "https://api.acme.test/resources", "http://api.acme.test/resources", "must be an https URL"},
		{"after-token selects nothing", "select: {cloudId: id}, ", "", "names at least one connection field"},
		{"after-token selects a non-field", "select: {cloudId: id}", "select: {cloud: id}", `"cloud" is not a connection field`},
		{"match placeholder not a field", "https://{site}.acme.test\"}", "https://{host}.acme.test\"}", "placeholder {host}"},
		{"after-token header without the token", "afterToken: {url", "afterToken: {tokenFormat: OAuth, url", `"OAuth" must hold {value} once`},
		{"bad after-token method", "afterToken: {url", "afterToken: {method: PUT, url", `"PUT" must be GET or POST`},
		{"scope parameter name", "redirectParams: [realm]", "redirectParams: [realm]\n      scopeParam: \"user scope\"", `"user scope" is not a query parameter name`},
		{"token path", "redirectParams: [realm]", "redirectParams: [realm]\n      tokenPath: authed_user..x", `"authed_user..x" is not a dotted path`},
		{"header placeholder", `api: {baseUrl: "https://{site}.acme.test/v1"}`, `api: {baseUrl: "https://{site}.acme.test/v1", headers: {X-Tenant: "{tenant}"}}`, "placeholder {tenant} is not a connection field"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			bad := strings.Replace(signInConnector, c.from, c.to, 1)
			if bad == signInConnector {
				t.Fatalf("replacement %q not found", c.from)
			}
			if err := loadOne(t, bad); err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v\nwant %q", err, c.want)
			}
		})
	}
}

func TestConnector_SignInHelpers(t *testing.T) {
	t.Parallel()
	c := &Connector{API: API{BaseURL: "https://{site}.acme.test"}, AuthMethods: []AuthMethod{
		{ID: "basic", Type: AuthBasic},
		{ID: "oauth2", Type: AuthOAuth2, BaseURL: "https://api.acme.test/{cloudId}", OAuth2: &OAuth2{RedirectParams: []string{"realm"},
			AfterToken: &AfterToken{Select: map[string]string{"cloudId": "id"}, Match: map[string]string{"url": "https://{site}.acme.test"}}}},
	}}
	basic, oauth := c.AuthMethod("basic"), c.AuthMethod("oauth2")
	if c.BaseURLFor("basic") != "https://{site}.acme.test" || c.BaseURLFor("oauth2") != "https://api.acme.test/{cloudId}" || c.BaseURLFor("gone") != c.API.BaseURL {
		t.Fatal("BaseURLFor")
	}
	if !oauth.Supplies("realm") || !oauth.Supplies("cloudId") || oauth.Supplies("site") || basic.Supplies("cloudId") {
		t.Fatal("Supplies")
	}
	if !oauth.Chooses("site") || oauth.Chooses("cloudId") || basic.Chooses("site") {
		t.Fatal("Chooses")
	}
	f := ConnectionField{Name: "cloudId", AuthMethods: []string{"oauth2"}}
	if !f.UsedBy("oauth2") || f.UsedBy("basic") || !(&ConnectionField{}).UsedBy("basic") {
		t.Fatal("UsedBy")
	}
	if v, ok := FillTemplate("https://{site}.x/{id}", map[string]string{"site": "a"}); ok || v != "https://a.x/" {
		t.Fatalf("FillTemplate incomplete: %q %v", v, ok)
	}
	if v, ok := FillTemplate("https://{site}.x", map[string]string{"site": "a"}); !ok || v != "https://a.x" {
		t.Fatalf("FillTemplate: %q %v", v, ok)
	}
}
