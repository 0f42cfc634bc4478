package catalog

import (
	"strings"
	"testing"
	"testing/fstest"

	builtin "github.com/switchboard-gw/switchboard/catalog"
)

func TestLoad_WholeBuiltInCatalog(t *testing.T) {
	t.Parallel()
	cat, err := Load(builtin.FS)
	if err != nil {
		t.Fatal(err)
	}
	if len(cat.Connectors()) == 0 || len(cat.Tools()) == 0 {
		t.Fatal("empty catalog")
	}
	for _, tool := range cat.Tools() {
		if tool.Connector() == nil || tool.input == nil {
			t.Fatalf("tool %s not linked or compiled", tool.ID)
		}
	}
}

const goodConnector = `
id: acme
name: Acme
description: A test application used by the loader tests.
category: productivity
api: {baseUrl: "https://api.acme.test/v1"}
authMethods:
  - {id: api_key, type: api_key, name: API key, apiKey: {in: header, name: Authorization, format: "Bearer {value}"}}
tools:
  - id: acme_get_item
    name: Get item
    description: Returns one item by its id, for testing the loader.
    effect: read
    inputSchema: {type: object, properties: {id: {type: string}}, required: [id], additionalProperties: false}
    request: {method: GET, path: "/items/{id}"}
`

func loadOne(t *testing.T, yaml string) error {
	t.Helper()
	_, err := Load(fstest.MapFS{
		"connectors/acme.yaml": {Data: []byte(yaml)},
		"logos/acme.svg":       {Data: []byte("<svg/>")},
	})
	return err
}

func TestLoad_GoodDefinition(t *testing.T) {
	t.Parallel()
	if err := loadOne(t, goodConnector); err != nil {
		t.Fatal(err)
	}
}

func TestLoad_RejectsBadDefinitions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, from, to, want string
	}{
		{"unknown key", "category: productivity", "category: productivity\ncolour: red", "field colour not found"},
		{"bad category", "category: productivity", "category: games", `category: "games" is not one of`},
		{"bad effect", "effect: read", "effect: maybe", `effect: "maybe" must be read, write or destructive`},
		{"irreversible read", "effect: read", "effect: read\n    irreversible: true", "irreversible: a read tool changes nothing"},
		{"bad classification", "effect: read", "effect: read\n    dataClassification: secret", `dataClassification: "secret"`},
		{"path param missing", `path: "/items/{id}"`, `path: "/items/{id}/{sub}"`, `"sub" is not a property`},
		{"schema does not compile", "type: object, properties", "type: objekt, properties", "inputSchema"},
		{"additional properties allowed", "additionalProperties: false}", "additionalProperties: true}", "additionalProperties: must be false"},
		{"tool id prefix", "id: acme_get_item", "id: other_get_item", "must be acme_<verb>_<noun>"},
		{"file name", "id: acme\n", "id: acme2\n", "file is named acme.yaml"},
		{"bad auth type", "type: api_key,", "type: magic,", `"magic" is not one of`},
		{"http base", "https://api.acme.test/v1", "http://api.acme.test/v1", "must be an https URL"},
		{"unknown base placeholder", "https://api.acme.test/v1", "https://{shop}.acme.test/v1", "{shop} is not a connection field"},
		{"static header name", `path: "/items/{id}"}`, `path: "/items/{id}", staticHeaders: {"Bad Name": "1"}}`, `staticHeaders: "Bad Name": a header needs`},
		{"static header value", `path: "/items/{id}"}`, `path: "/items/{id}", staticHeaders: {cal-api-version: ""}}`, `staticHeaders: "cal-api-version": a header needs`},
		{"body on GET", `path: "/items/{id}"}`, `path: "/items/{id}", body: [id]}`, `"id" is already sent in the path`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			bad := strings.Replace(goodConnector, c.from, c.to, 1)
			if bad == goodConnector {
				t.Fatalf("replacement %q not found", c.from)
			}
			err := loadOne(t, bad)
			if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "connectors/acme.yaml") {
				t.Fatalf("err %v\nwant it to name the file and say %q", err, c.want)
			}
		})
	}
}

// TestLoad_PathParameterAlsoInTheBody: a JSON:API update names the
// resource's id in the path and in the body, so a PATCH, PUT or POST may
// list a path parameter in body; a GET or DELETE may not (it has no body).
func TestLoad_PathParameterAlsoInTheBody(t *testing.T) {
	t.Parallel()
	for _, method := range []string{"PATCH", "PUT", "POST"} {
		def := strings.Replace(goodConnector, `{method: GET, path: "/items/{id}"}`, `{method: `+method+`, path: "/items/{id}", body: [id]}`, 1)
		if def == goodConnector {
			t.Fatal("replacement not found")
		}
		if err := loadOne(t, strings.Replace(def, "effect: read", "effect: write", 1)); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
	}
	def := strings.Replace(goodConnector, `{method: GET, path: "/items/{id}"}`, `{method: DELETE, path: "/items/{id}", body: [id]}`, 1)
	if err := loadOne(t, strings.Replace(def, "effect: read", "effect: destructive", 1)); err == nil || !strings.Contains(err.Error(), `"id" is already sent in the path`) {
		t.Fatalf("DELETE: err %v", err)
	}
}

func TestLoad_DuplicateToolIDs(t *testing.T) {
	t.Parallel()
	two := goodConnector + `  - id: acme_get_item
    name: Again
    description: The same tool id a second time, which must fail.
    effect: read
    inputSchema: {type: object, properties: {id: {type: string}}, required: [id], additionalProperties: false}
    request: {method: GET, path: "/items/{id}"}
`
	if err := loadOne(t, two); err == nil || !strings.Contains(err.Error(), `tool id "acme_get_item" appears twice`) {
		t.Fatalf("err %v", err)
	}
}

func TestLoad_MissingLogo(t *testing.T) {
	t.Parallel()
	_, err := Load(fstest.MapFS{"connectors/acme.yaml": {Data: []byte(goodConnector)}})
	if err == nil || !strings.Contains(err.Error(), "logos/acme.svg is missing") {
		t.Fatalf("err %v", err)
	}
}

func TestTool_ValidateInput(t *testing.T) {
	t.Parallel()
	cat, err := Load(fstest.MapFS{
		"connectors/acme.yaml": {Data: []byte(goodConnector)},
		"logos/acme.svg":       {Data: []byte("<svg/>")},
	})
	if err != nil {
		t.Fatal(err)
	}
	tool, _ := cat.Tool("acme_get_item")
	if err := tool.ValidateInput(map[string]any{"id": "x"}); err != nil {
		t.Fatal(err)
	}
	if err := tool.ValidateInput(map[string]any{"other": 1}); err == nil {
		t.Fatal("bad input accepted")
	}
	if tool.Classification() != ClassPII {
		t.Fatalf("default classification %q", tool.Classification())
	}
}

// A DELETE may name body fields (GitHub reads a file deletion's commit
// message and blob SHA from the body); a GET may not.
func TestLoad_BodyOnDeleteButNotOnGet(t *testing.T) {
	t.Parallel()
	del := strings.Replace(goodConnector, `request: {method: GET, path: "/items/{id}"}`,
		`request: {method: DELETE, path: "/items/{id}", body: [note]}`, 1)
	del = strings.Replace(del, "effect: read", "effect: destructive", 1)
	del = strings.Replace(del, "properties: {id: {type: string}}", "properties: {id: {type: string}, note: {type: string}}", 1)
	if err := loadOne(t, del); err != nil {
		t.Fatalf("DELETE with a body: %v", err)
	}
	get := strings.Replace(del, "method: DELETE", "method: GET", 1)
	get = strings.Replace(get, "effect: destructive", "effect: read", 1)
	if err := loadOne(t, get); err == nil || !strings.Contains(err.Error(), "a GET request sends no body") {
		t.Fatalf("GET with a body: %v", err)
	}
}
