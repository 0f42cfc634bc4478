package cli

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// acmeConnector is a made-up connector whose one tool's outputSchema names
// a field (colour) that acmeSpec's response schema does not have.
const acmeConnector = `
id: acme
name: Acme
description: A test application for the catalog check.
category: productivity
api: {baseUrl: "https://api.acme.test/v1"}
authMethods:
  - {id: api_key, type: api_key, name: API key, apiKey: {in: header, name: Authorization, format: "Bearer {value}"}}
tools:
  - id: acme_get_item
    name: Get item
    description: Returns one item by its id, for testing the catalog check.
    effect: read
    inputSchema: {type: object, properties: {id: {type: string}}, required: [id], additionalProperties: false}
    outputSchema:
      type: object
      properties:
        id: {type: string}
        name: {type: string}
        colour: {type: string}
    request: {method: GET, path: "/items/{id}"}
`

// acmeSpec is a small OpenAPI document written for this test.
const acmeSpec = `{
  "openapi": "3.0.3",
  "servers": [{"url": "https://api.acme.test/v1"}],
  "paths": {"/items/{id}": {"get": {
    "operationId": "getItem",
    "parameters": [{"name": "id", "in": "path", "required": true, "schema": {"type": "string"}}],
    "responses": {"200": {"content": {"application/json": {"schema": {
      "type": "object", "properties": {"id": {"type": "string"}, "name": {"type": "string"}}
    }}}}}
  }}}
}`

// sharedTools finds the provider spec checker in ../shared/tools beside the
// project root (or under SWITCHBOARD_SHARED_DIR).
func sharedTools(t *testing.T) string {
	t.Helper()
	shared := os.Getenv("SWITCHBOARD_SHARED_DIR")
	if shared == "" {
		wd, err := os.Getwd()
		if err != nil {
			t.Fatal(err)
		}
		shared = filepath.Join(wd, "..", "..", "..", "shared")
	}
	tools := filepath.Join(shared, "tools")
	if _, err := os.Stat(filepath.Join(tools, "spec_match.py")); err != nil {
		t.Skipf("THE CATALOG CHECK TEST DID NOT RUN: %s/spec_match.py is not present (set SWITCHBOARD_SHARED_DIR)", tools)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("THE CATALOG CHECK TEST DID NOT RUN: python3 is not installed")
	}
	abs, err := filepath.Abs(tools)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}

// runCatalogCheck runs `catalog check` over the acme connector and spec,
// with the given spec-exceptions.yaml (none when empty).
func runCatalogCheck(t *testing.T, exceptions string) (int, string) {
	t.Helper()
	tools := sharedTools(t)
	root := t.TempDir()
	files := map[string]string{
		"catalog/connectors/acme.yaml":         acmeConnector,
		"catalog/logos/acme.svg":               "<svg/>",
		"shared/provider-specs/acme/api.json":  acmeSpec,
		"shared/provider-specs/acme/SOURCE.md": "written for a test\n",
	}
	if exceptions != "" {
		files["catalog/spec-exceptions.yaml"] = exceptions
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(tools, filepath.Join(root, "shared", "tools")); err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	p := &Program{Stdout: &out, Stderr: &errOut}
	code := p.Run(context.Background(), []string{"catalog", "check",
		"--dir", filepath.Join(root, "catalog"), "--shared", filepath.Join(root, "shared")})
	return code, out.String() + errOut.String()
}

func TestCatalogCheck_OutputFieldNotInSpec_Fails(t *testing.T) {
	t.Parallel()
	code, out := runCatalogCheck(t, "")
	if code != exitError {
		t.Errorf("exit code %d, want %d", code, exitError)
	}
	for _, want := range []string{
		"provider-spec check: 1 matched",
		"OUTPUT    acme_get_item (getItem): colour not in the spec's response schema",
		"outputs: 1 checked, 1 with unknown fields, 0 with type conflicts, 0 unchecked",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestCatalogCheck_OutputExceptionWithReason_Passes(t *testing.T) {
	t.Parallel()
	code, out := runCatalogCheck(t, `"acme_get_item:colour": "Acme sends colour since 2026; its spec is older."`+"\n")
	if code != exitOK {
		t.Errorf("exit code %d, want %d:\n%s", code, exitOK, out)
	}
	if !strings.Contains(out, "EXCEPTED  acme_get_item:colour: Acme sends colour") || strings.Contains(out, "OUTPUT ") {
		t.Errorf("the exception is not reported as applied:\n%s", out)
	}
}

func TestCatalogCheck_OutputExceptionNoLongerNeeded_Fails(t *testing.T) {
	t.Parallel()
	code, out := runCatalogCheck(t, `"acme_get_item:colour": "Acme sends colour."`+"\n"+`"acme_get_item:name": "Not needed."`+"\n")
	if code != exitError {
		t.Errorf("exit code %d, want %d", code, exitError)
	}
	if !strings.Contains(out, "STALE     acme_get_item:name:") {
		t.Errorf("the stale exception is not reported:\n%s", out)
	}
}
