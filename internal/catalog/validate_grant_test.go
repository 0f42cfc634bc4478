package catalog

import (
	"strings"
	"testing"
)

// grantConnector offers every key-holding method and the per-method keys,
// for the loader tests below.
const grantConnector = `
id: acme
name: Acme
description: A test application used by the loader tests of token grants.
category: productivity
api: {baseUrl: "https://api.acme.test/v1"}
connectionFields:
  - {name: tenant, label: Tenant, pattern: "[a-z0-9-]+", authMethods: [app]}
  - {name: login, label: Login host, pattern: "(login|test)\\.acme\\.test", default: login.acme.test, authMethods: [jwt]}
authMethods:
  - id: app
    type: oauth2_client_credentials
    name: App
    pathPrefixes: {/me: "/users/{tenant}"}
    excludeTools: [acme_send_item]
    oauth2: {tokenUrl: "https://auth.acme.test/{tenant}/token", scopes: [all], tokenParams: {grant_type: account_credentials, account: "{tenant}"}}
  - id: jwt
    type: oauth2_jwt_bearer
    name: JWT
    oauth2: {tokenUrl: "https://{login}/token", audience: "https://{login}", allowedHosts: [login.acme.test, test.acme.test]}
  - id: sa
    type: google_service_account
    name: Service account
    oauth2: {tokenUrl: "https://auth.acme.test/token", scopes: [all]}
  - id: gh
    type: github_app
    name: App installation
    oauth2: {tokenUrl: "https://api.acme.test/app/installations/{installationId}/access_tokens"}
tools:
  - id: acme_get_item
    name: Get item
    description: Returns one item by its id, for testing the loader.
    effect: read
    inputSchema: {type: object, properties: {id: {type: string}}, required: [id], additionalProperties: false}
    request: {method: GET, path: "/items/{id}"}
  - id: acme_send_item
    name: Send item
    description: Sends one item, which the app method cannot do.
    effect: write
    inputSchema: {type: object, properties: {id: {type: string}}, required: [id], additionalProperties: false}
    request: {method: POST, path: "/items/{id}/send"}
`

func TestLoad_GrantMethods(t *testing.T) {
	t.Parallel()
	if err := loadOne(t, grantConnector); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, from, to, want string
	}{
		{"installation id missing", "/app/installations/{installationId}/access_tokens", "/app/installations/access_tokens", "must contain {installationId}"},
		{"github app scopes", `{tokenUrl: "https://api.acme.test/app/installations/{installationId}/access_tokens"}`,
			`{tokenUrl: "https://api.acme.test/app/installations/{installationId}/access_tokens", scopes: [x]}`, "takes no audience or scopes"},
		{"templated without allowed hosts", ", allowedHosts: [login.acme.test, test.acme.test]}", "}", "allowedHosts: is required"},
		{"audience not https", `audience: "https://{login}"`, `audience: "http://{login}"`, "audience"},
		{"grant with authorize URL", `{tokenUrl: "https://auth.acme.test/token", scopes: [all]}`, `{tokenUrl: "https://auth.acme.test/token", authorizeUrl: "https://auth.acme.test/a", scopes: [all]}`, "takes only tokenUrl"},
		{"token param placeholder", `account: "{tenant}"`, `account: "{nope}"`, "placeholder {nope} is not a connection field"},
		{"token param overrides secret", "grant_type: account_credentials,", "client_secret: x,", `"client_secret" cannot be set here`},
		{"token params on a grant", `{tokenUrl: "https://auth.acme.test/token", scopes: [all]}`, `{tokenUrl: "https://auth.acme.test/token", scopes: [all], tokenParams: {a: b}}`, "takes only tokenUrl"},
		{"path prefix placeholder", `/me: "/users/{tenant}"`, `/me: "/users/{nope}"`, "placeholder {nope} is not a connection field"},
		{"path prefix shape", `/me: "/users/{tenant}"`, `me: "/users/{tenant}"`, "must map a path start to a path start"},
		{"excluded tool unknown", "excludeTools: [acme_send_item]", "excludeTools: [acme_fly_item]", `"acme_fly_item" is not a tool of acme`},
		{"every tool excluded", "excludeTools: [acme_send_item]", "excludeTools: [acme_send_item, acme_get_item]", "excludes every tool"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			bad := strings.Replace(grantConnector, c.from, c.to, 1)
			if bad == grantConnector {
				t.Fatalf("replacement %q not found", c.from)
			}
			err := loadOne(t, bad)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v\nwant %q", err, c.want)
			}
		})
	}
}
