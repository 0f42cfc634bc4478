package catalog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The fixtures below are small API descriptions written for these tests
// (a made-up "widget" API), not taken from any provider's spec.

const widgetOpenAPI = `{
  "openapi": "3.0.3",
  "paths": {
    "/widgets/{id}": {
      "get": {
        "operationId": "getWidget",
        "responses": {
          "200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Widget"}}}},
          "404": {"content": {"application/json": {"schema": {"type": "object", "properties": {"error": {"type": "string"}}}}}}
        }
      },
      "delete": {"responses": {"204": {"description": "gone"}}}
    },
    "/widgets": {
      "get": {
        "operationId": "listWidgets",
        "responses": {"200": {"content": {"application/json": {"schema": {
          "type": "object",
          "properties": {
            "data": {"type": "array", "items": {"$ref": "#/components/schemas/Widget"}},
            "next": {"type": "string", "nullable": true}
          }
        }}}}}
      }
    },
    "/gadgets/{id}": {
      "get": {
        "operationId": "getGadget",
        "responses": {"200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Gadget"}}}}}
      }
    },
    "/things/{id}": {
      "get": {
        "operationId": "getThing",
        "responses": {"200": {"content": {"application/json": {"schema": {
          "oneOf": [{"$ref": "#/components/schemas/Widget"}, {"$ref": "#/components/schemas/Gadget"}]
        }}}}}
      }
    },
    "/blobs/{id}": {
      "get": {
        "operationId": "getBlob",
        "responses": {"200": {"content": {"application/json": {"schema": {"type": "object", "properties": {
          "meta": {"type": "object", "additionalProperties": true},
          "tags": {"type": "object", "additionalProperties": {"type": "object", "properties": {"count": {"type": "integer"}}}},
          "any": {"oneOf": [{"type": "object"}, {"$ref": "#/components/schemas/Gadget"}]}
        }}}}}}
      }
    },
    "/apps/{id}": {
      "get": {
        "operationId": "getApp",
        "responses": {"200": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/App"}}}}}
      }
    }
  },
  "components": {
    "schemas": {
      "Base": {"type": "object", "properties": {"id": {"type": "string"}, "created": {"type": "integer"}}},
      "Widget": {
        "allOf": [
          {"$ref": "#/components/schemas/Base"},
          {"type": "object", "properties": {
            "name": {"type": "string"},
            "price": {"type": "number"},
            "owner": {"$ref": "#/components/schemas/Owner"},
            "parts": {"type": "array", "items": {"type": "object", "properties": {"sku": {"type": "string"}}}}
          }}
        ]
      },
      "Owner": {"type": "object", "properties": {"login": {"type": "string"}, "manager": {"$ref": "#/components/schemas/Owner"}}},
      "Gadget": {"allOf": [{"$ref": "#/components/schemas/Widget/allOf/0"}, {"type": "object", "properties": {"colour": {"type": "string"}}}]},
      "App": {
        "type": "object",
        "properties": {"id": {"type": "string"}, "kind": {"type": "string"}},
        "discriminator": {"propertyName": "kind", "mapping": {"web": "#/components/schemas/WebApp"}}
      },
      "WebApp": {"allOf": [{"$ref": "#/components/schemas/App"}, {"type": "object", "properties": {"url": {"type": "string"}}}]}
    }
  }
}`

const widgetSwagger = `
swagger: "2.0"
paths:
  /widgets/{id}:
    get:
      operationId: getWidget
      responses:
        200:
          schema: {$ref: "#/definitions/Widget"}
definitions:
  Widget:
    type: object
    properties:
      id: {type: integer}
      on: {type: boolean}
`

const widgetDiscovery = `{
  "discoveryVersion": "v1",
  "resources": {"widgets": {"resources": {"parts": {"methods": {
    "get": {"id": "shop.widgets.parts.get", "httpMethod": "GET", "path": "w/{id}", "response": {"$ref": "Part"}}
  }}}}},
  "schemas": {
    "Part": {"type": "object", "properties": {
      "id": {"type": "string"},
      "sizeBytes": {"type": "string", "format": "int64"},
      "labels": {"type": "array", "items": {"type": "string"}},
      "extra": {"type": "object", "additionalProperties": {"type": "any"}}
    }}
  }
}`

const widgetSDL = `
"""The root."""
schema { query: Query mutation: Mutation }
directive @deprecated(reason: String = "No longer supported") on FIELD_DEFINITION | ENUM_VALUE
scalar DateTime
scalar JSONObject
type Query {
  "One widget."
  widget(id: String!): Widget!
  widgets(first: Int = 50, filter: WidgetFilter): WidgetConnection!
}
type Mutation { widgetCreate(input: WidgetInput!): WidgetPayload! }
interface Node { id: ID! }
type Widget implements Node & Entity @key(fields: "id") {
  id: ID!
  name: String
  size: Int
  createdAt: DateTime!
  meta: JSONObject
  state: WidgetState!
  owner: Owner @deprecated(reason: "Use team")
}
type Owner { name: String! }
type WidgetConnection { nodes: [Widget!]! pageInfo: PageInfo! }
type PageInfo { hasNextPage: Boolean! endCursor: String }
type WidgetPayload { success: Boolean! widget: Widget }
enum WidgetState { OPEN CLOSED }
input WidgetFilter { name: String = "x" and: [WidgetFilter!] }
input WidgetInput { name: String! }
`

// checkFixture writes a spec document into a provider folder and holds
// outputSchema out to operation opID's response, at responsePath.
func checkFixture(t *testing.T, file, spec, opID, out, responsePath string) OutputCheck {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, file), []byte(spec), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "SOURCE.md"), []byte("# not a spec\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := loadSpecDoc(dir)
	if err != nil {
		t.Fatal(err)
	}
	schema, res, ok := d.responseSchema(opID)
	if !ok {
		t.Fatalf("operation %s not found", opID)
	}
	var ours map[string]any
	if err := json.Unmarshal([]byte(out), &ours); err != nil {
		t.Fatal(err)
	}
	return compareOutput(res, schema, ours, responsePath)
}

func TestOutputCheck_Fixtures(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, file, spec, op, out, path string
		unknown, conflicts, unchecked   []string
		known                           int
		skipped                         bool
	}{
		{
			name: "every field known through $ref and allOf", file: "api.json", spec: widgetOpenAPI, op: "getWidget",
			out:   `{"type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}, "created": {"type": "integer"}}}`,
			known: 3,
		},
		{
			name: "a field the spec does not have", file: "api.json", spec: widgetOpenAPI, op: "getWidget",
			out:     `{"type": "object", "properties": {"id": {"type": "string"}, "colour": {"type": "string"}}}`,
			unknown: []string{"colour"}, known: 1,
		},
		{
			name: "nested objects and array items", file: "api.json", spec: widgetOpenAPI, op: "getWidget",
			out: `{"type": "object", "properties": {
				"owner": {"type": "object", "properties": {"login": {"type": "string"}, "email": {"type": "string"}, "manager": {"type": ["object", "null"], "properties": {"login": {"type": "string"}}}}},
				"parts": {"type": "array", "items": {"type": "object", "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}}}}}}`,
			unknown: []string{"owner.email", "parts[].qty"}, known: 6,
		},
		{
			name: "a type conflict, while integer against number is fine", file: "api.json", spec: widgetOpenAPI, op: "getWidget",
			out:       `{"type": "object", "properties": {"id": {"type": "integer"}, "price": {"type": "integer"}, "name": {"type": ["string", "null"]}}}`,
			conflicts: []string{"id: spec string, ours integer"}, known: 3,
		},
		{
			name: "response path selects the part returned", file: "api.json", spec: widgetOpenAPI, op: "listWidgets", path: "data",
			out:     `{"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}, "size": {"type": "integer"}}}}`,
			unknown: []string{"[].size"}, known: 1,
		},
		{
			name: "response path the spec does not have", file: "api.json", spec: widgetOpenAPI, op: "listWidgets", path: "items",
			out:     `{"type": "array", "items": {"type": "object"}}`,
			unknown: []string{"(response path) items"},
		},
		{
			name: "the whole body without a response path", file: "api.json", spec: widgetOpenAPI, op: "listWidgets",
			out:       `{"type": "object", "properties": {"data": {"type": "object"}, "next": {"type": ["string", "null"]}}}`,
			conflicts: []string{"data: spec array, ours object"}, known: 2,
		},
		{
			name: "a ref that points into an allOf list", file: "api.json", spec: widgetOpenAPI, op: "getGadget",
			out:     `{"type": "object", "properties": {"id": {"type": "string"}, "colour": {"type": "string"}, "name": {"type": "string"}}}`,
			unknown: []string{"name"}, known: 2,
		},
		{
			name: "a union allows what any variant has", file: "api.json", spec: widgetOpenAPI, op: "getThing",
			out:     `{"type": "object", "properties": {"name": {"type": "string"}, "colour": {"type": "string"}, "weight": {"type": "number"}}}`,
			unknown: []string{"weight"}, known: 2,
		},
		{
			name: "open objects and unions with an open variant cannot refute; maps check their values", file: "api.json", spec: widgetOpenAPI, op: "getBlob",
			out: `{"type": "object", "properties": {
				"meta": {"type": "object", "properties": {"anything": {"type": "string"}}},
				"any": {"type": "object", "properties": {"whatever": {"type": "string"}}},
				"tags": {"type": "object", "properties": {"red": {"type": "object", "properties": {"count": {"type": "string"}, "hue": {"type": "string"}}}}}}}`,
			unchecked: []string{"any.whatever", "meta.anything"},
			conflicts: []string{"tags.red.count: spec integer, ours string"},
			unknown:   []string{"tags.red.hue"}, known: 4,
		},
		{
			name: "a discriminator's subtypes add their fields", file: "api.json", spec: widgetOpenAPI, op: "getApp",
			out:     `{"type": "object", "properties": {"id": {"type": "string"}, "url": {"type": "string"}, "port": {"type": "integer"}}}`,
			unknown: []string{"port"}, known: 2,
		},
		{
			name: "no body in the spec", file: "api.json", spec: widgetOpenAPI, op: "DELETE /widgets/{id}",
			out: `{"type": "object", "properties": {"id": {"type": "string"}}}`, skipped: true,
		},
		{
			name: "no body in the spec and none in ours", file: "api.json", spec: widgetOpenAPI, op: "DELETE /widgets/{id}",
			out: `{"type": "null"}`,
		},
		{
			name: "Swagger 2 in YAML: numeric response codes, a property named on", file: "api.yaml", spec: widgetSwagger, op: "getWidget",
			out:       `{"type": "object", "properties": {"id": {"type": "string"}, "on": {"type": "boolean"}, "off": {"type": "boolean"}}}`,
			conflicts: []string{"id: spec integer, ours string"}, unknown: []string{"off"}, known: 2,
		},
		{
			name: "Google discovery: response $ref, int64 as string, any values", file: "api.json", spec: widgetDiscovery, op: "shop.widgets.parts.get",
			out: `{"type": "object", "properties": {"id": {"type": "string"}, "sizeBytes": {"type": "integer"}, "labels": {"type": "array", "items": {"type": "string"}},
				"extra": {"type": "object", "properties": {"k": {"type": "object", "properties": {"deep": {"type": "string"}}}}}, "etag": {"type": "string"}}}`,
			conflicts: []string{"sizeBytes: spec string, ours integer"}, unknown: []string{"etag"},
			unchecked: []string{"extra.k.deep"}, known: 4,
		},
		{
			name: "GraphQL: data.<field>, lists, enums and custom scalars", file: "schema.graphql", spec: widgetSDL, op: "Query.widgets", path: "data.widgets",
			out: `{"type": "object", "properties": {
				"nodes": {"type": "array", "items": {"type": "object", "properties": {"id": {"type": "string"}, "state": {"type": "string"}, "createdAt": {"type": "string"},
					"size": {"type": "string"}, "meta": {"type": "object", "properties": {"x": {"type": "string"}}}, "colour": {"type": "string"}}}},
				"pageInfo": {"type": "object", "properties": {"hasNextPage": {"type": "boolean"}}}}}`,
			conflicts: []string{"nodes[].size: spec integer, ours string"}, unknown: []string{"nodes[].colour"},
			unchecked: []string{"nodes[].meta.x"}, known: 8,
		},
		{
			name: "GraphQL mutation payload", file: "schema.graphql", spec: widgetSDL, op: "Mutation.widgetCreate", path: "data.widgetCreate",
			out:     `{"type": "object", "properties": {"success": {"type": "boolean"}, "widget": {"type": "object", "properties": {"owner": {"type": "object", "properties": {"name": {"type": "string"}, "team": {"type": "string"}}}}}}}`,
			unknown: []string{"widget.owner.team"}, known: 4,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := checkFixture(t, tc.file, tc.spec, tc.op, tc.out, tc.path)
			if !slices.Equal(got.Unknown, tc.unknown) {
				t.Errorf("unknown = %q, want %q", got.Unknown, tc.unknown)
			}
			if !slices.Equal(got.Conflicts, tc.conflicts) {
				t.Errorf("conflicts = %q, want %q", got.Conflicts, tc.conflicts)
			}
			if !slices.Equal(got.Unchecked, tc.unchecked) {
				t.Errorf("unchecked = %q, want %q", got.Unchecked, tc.unchecked)
			}
			if got.Known != tc.known {
				t.Errorf("known = %d, want %d", got.Known, tc.known)
			}
			if (got.Skipped != "") != tc.skipped {
				t.Errorf("skipped = %q, want skipped %v", got.Skipped, tc.skipped)
			}
		})
	}
}
