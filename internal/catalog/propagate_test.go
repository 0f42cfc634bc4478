package catalog

import (
	"strings"
	"testing"
	"testing/fstest"

	builtin "github.com/switchboard-gw/switchboard/catalog"
)

// No built-in connector sends traceparent: only a provider that documents
// the header may get it (catalog/README.md, api.propagateTrace). A
// connector added with the flag must come with that check and a change to
// this test.
func TestBuiltIns_DoNotPropagateTrace(t *testing.T) {
	t.Parallel()
	cat, err := Load(builtin.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cat.Connectors() {
		if c.API.PropagateTrace {
			t.Errorf("built-in connector %s sets api.propagateTrace", c.ID)
		}
	}
}

func TestLoad_PropagateTrace(t *testing.T) {
	t.Parallel()
	yaml := strings.Replace(goodConnector, `api: {baseUrl: "https://api.acme.test/v1"}`,
		`api: {baseUrl: "https://api.acme.test/v1", propagateTrace: true}`, 1)
	cat, err := Load(fstest.MapFS{
		"connectors/acme.yaml": {Data: []byte(yaml)},
		"logos/acme.svg":       {Data: []byte("<svg/>")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if c, ok := cat.Connector("acme"); !ok || !c.API.PropagateTrace {
		t.Fatal("api.propagateTrace was not read")
	}
}
