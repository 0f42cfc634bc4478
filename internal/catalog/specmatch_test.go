package catalog

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	builtin "github.com/switchboard-gw/switchboard/catalog"
)

// sharedDir finds ../shared beside the project root (or SWITCHBOARD_SHARED_DIR).
func sharedDir(t *testing.T) string {
	t.Helper()
	if d := os.Getenv("SWITCHBOARD_SHARED_DIR"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(dir, "..", "shared")
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test directory")
		}
		dir = parent
	}
}

// TestBuiltInTools_MatchProviderSpecs checks every built-in tool of a
// provider whose official API description is in ../shared/provider-specs
// against it, with the checker in ../shared/tools. No tool may mismatch
// unless catalog/spec-exceptions.yaml records why.
func TestBuiltInTools_MatchProviderSpecs(t *testing.T) {
	shared := sharedDir(t)
	checker := filepath.Join(shared, "tools", "spec_match.py")
	if _, err := os.Stat(checker); err != nil {
		t.Skipf("THE PROVIDER-SPEC CHECK DID NOT RUN: %s is not present beside the project (set SWITCHBOARD_SHARED_DIR)", checker)
	}
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("THE PROVIDER-SPEC CHECK DID NOT RUN: python3 is not installed")
	}
	cat, err := Load(builtin.FS)
	if err != nil {
		t.Fatal(err)
	}
	var all map[string]string
	raw, err := builtin.FS.ReadFile("spec-exceptions.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(raw, &all); err != nil {
		t.Fatalf("spec-exceptions.yaml: %v", err)
	}
	exceptions, outputExceptions := SplitSpecExceptions(all)

	result, err := CheckSpecs(shared, t.TempDir(), "", cat.SpecMatchTools())
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("provider-spec check: %s", result.Summary)
	perProvider := map[string]int{}
	for _, v := range result.Verdicts {
		reason, excepted := exceptions[v.Tool]
		switch {
		case v.Status == "mismatched" && !excepted:
			t.Errorf("%s does not match the %s spec: %s", v.Tool, v.Provider, strings.Join(v.Errors, "; "))
		case v.Status == "mismatched":
			t.Logf("%s: mismatch accepted: %s", v.Tool, reason)
		case excepted:
			t.Errorf("spec-exceptions.yaml lists %s, but it is %s: remove the exception", v.Tool, v.Status)
		}
		if v.Status == "matched" {
			perProvider[v.Provider]++
		}
	}
	for id := range exceptions {
		if _, ok := cat.Tool(id); !ok {
			t.Errorf("spec-exceptions.yaml lists %s, which is not a tool", id)
		}
	}
	for key := range outputExceptions {
		id, field, _ := strings.Cut(key, ":")
		if _, ok := cat.Tool(id); !ok || field == "" {
			t.Errorf("spec-exceptions.yaml lists the output field %q, but %s is not a tool or no field is named", key, id)
		}
	}
	t.Logf("tools verified per provider: %v", perProvider)

	// Every outputSchema field is one the provider's response schema has,
	// of a type it allows, unless spec-exceptions.yaml says why not.
	checks, err := CheckOutputs(filepath.Join(shared, "provider-specs"), result.Verdicts, cat)
	if err != nil {
		t.Fatal(err)
	}
	used := map[string]bool{}
	checked := 0
	for _, c := range checks {
		if c.Skipped != "" {
			continue
		}
		checked++
		for _, f := range c.Findings() {
			key := f.ExceptionKey(c.Tool)
			if _, ok := outputExceptions[key]; ok {
				used[key] = true
				continue
			}
			t.Errorf("%s: outputSchema field %s %s", c.Tool, f.Field, f.Problem)
		}
	}
	for key := range outputExceptions {
		if !used[key] {
			t.Errorf("spec-exceptions.yaml excepts the output field %q, which the response check no longer reports", key)
		}
	}
	t.Logf("outputSchemas checked against the providers' response schemas: %d", checked)
}
