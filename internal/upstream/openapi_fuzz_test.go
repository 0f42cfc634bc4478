package upstream

import (
	"context"
	"encoding/json"
	"os"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// FuzzOpenAPIImport imports any document bytes. The import must not
// panic, and whatever it accepts must be a connector that passes catalog
// validation both as made and as stored (the JSON the admin command keeps
// and every replica loads).
func FuzzOpenAPIImport(f *testing.F) {
	// Seeds stay small: the fuzzer minimises every new input it finds, and
	// an import takes milliseconds, so a large seed would spend the run
	// minimising instead of exploring. testdata/shop-30.yaml's features
	// are here in short form.
	notes, err := os.ReadFile("testdata/notes-31.yaml")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(notes)
	for _, seed := range []string{
		`{}`, `openapi: 3.0.3`, `{"swagger":"2.0"}`,
		`{"openapi":"3.0.3","info":{"title":"x","version":"1"},"servers":[{"url":"https://a.example"}],"paths":{"/a":{"get":{"responses":{"200":{"description":"ok"}}}}}}`,
		`{"openapi":"3.1.0","info":{"title":"x","version":"1"},"servers":[{"url":"https://{h}.example/{v}","variables":{"h":{"default":"a"},"v":{"default":"v1"}}}],` +
			`"paths":{"/a/{id}":{"parameters":[{"name":"id","in":"path","required":true,"schema":{"type":"string"}}],` +
			`"post":{"operationId":"makeThing","requestBody":{"content":{"application/json":{"schema":{"$ref":"#/components/schemas/T"}}}},"responses":{"200":{"description":"ok"}}}}},` +
			`"components":{"schemas":{"T":{"type":"object","properties":{"self":{"$ref":"#/components/schemas/T"}}}},` +
			`"securitySchemes":{"k":{"type":"apiKey","in":"header","name":"X-Key"}}}}`,
		"openapi: 3.0.3\ninfo: {title: S, version: '1'}\nservers: [{url: 'https://s.example'}]\n" +
			"components:\n  securitySchemes:\n    q: {type: apiKey, in: query, name: key}\n    b: {type: http, scheme: basic}\n" +
			"    o: {type: oauth2, flows: {authorizationCode: {authorizationUrl: 'https://s.example/a', tokenUrl: 'https://s.example/t', scopes: {r: read}}}}\n" +
			"    m: {type: oauth2, flows: {clientCredentials: {tokenUrl: 'https://s.example/t', scopes: {}}}}\n" +
			"paths:\n  /o/{id}:\n    parameters: [{name: id, in: path, required: true, schema: {type: string}}]\n" +
			"    get:\n      parameters:\n        - {name: 'x[]', in: query, schema: {type: array, items: {type: string}}}\n        - {name: X-H, in: header, schema: {type: string}}\n" +
			"      responses: {'200': {description: ok}}\n    delete: {operationId: cancelOrder, responses: {'204': {description: gone}}}\n" +
			"  /f:\n    post:\n      requestBody: {content: {application/x-www-form-urlencoded: {schema: {type: object, properties: {e: {type: string}}}}}}\n" +
			"      responses: {'200': {description: ok}}\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		con, rep, err := ImportOpenAPI(context.Background(), data, ImportOptions{ID: "fuzzed"})
		if err != nil {
			return
		}
		if err := catalog.CheckOwn(con); err != nil {
			t.Fatalf("imported a connector that fails validation: %v", err)
		}
		if rep.Tools != len(con.Tools) || rep.Tools == 0 {
			t.Fatalf("report says %d tools, connector has %d", rep.Tools, len(con.Tools))
		}
		def, err := json.Marshal(con)
		if err != nil {
			t.Fatalf("imported connector does not encode: %v", err)
		}
		var stored catalog.Connector
		if err := json.Unmarshal(def, &stored); err != nil {
			t.Fatalf("stored definition does not decode: %v", err)
		}
		stored.Origin = catalog.OriginOpenAPI
		if err := catalog.CheckOwn(&stored); err != nil {
			t.Fatalf("stored definition fails validation: %v\n%s", err, def)
		}
	})
}
