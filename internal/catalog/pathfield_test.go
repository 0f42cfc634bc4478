package catalog

import (
	"slices"
	"strings"
	"testing"
	"testing/fstest"
)

// pathFieldConnector's tool path names the account's connection field
// (as Twilio's /Accounts/{accountSid}/… does) beside an input property.
const pathFieldConnector = `
id: acme
name: Acme
description: A test application used by the loader tests of path fields.
category: productivity
api: {baseUrl: "https://api.acme.test/v1"}
connectionFields:
  - {name: accountSid, label: Account SID, pattern: "AC[0-9]+"}
authMethods:
  - {id: key, type: api_key, name: Key, apiKey: {in: header, name: X-Key}}
tools:
  - id: acme_get_item
    name: Get item
    description: Returns one item of the account by its id, for testing the loader.
    effect: read
    inputSchema: {type: object, properties: {id: {type: string}}, required: [id], additionalProperties: false}
    request: {method: GET, path: "/accounts/{accountSid}/items/{id}"}
`

func TestLoad_PathPlaceholderFromAConnectionField(t *testing.T) {
	t.Parallel()
	c, err := Load(fstest.MapFS{
		"connectors/acme.yaml": {Data: []byte(pathFieldConnector)},
		"logos/acme.svg":       {Data: []byte("<svg/>")},
	})
	if err != nil {
		t.Fatal(err)
	}
	tool, _ := c.Tool("acme_get_item")
	if got := tool.PathFields(); !slices.Equal(got, []string{"accountSid"}) {
		t.Fatalf("path fields %v, want [accountSid]", got)
	}
	// A placeholder that is neither an input property nor a field.
	bad := strings.Replace(pathFieldConnector, "{accountSid}/items", "{tenant}/items", 1)
	if err := loadOne(t, bad); err == nil || !strings.Contains(err.Error(), `"tenant" is not a property of the input schema`) {
		t.Fatalf("err %v", err)
	}
}
