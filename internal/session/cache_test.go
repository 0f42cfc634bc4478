package session

import (
	"encoding/json"
	"fmt"
	"testing"
)

// A full scope cache keeps the scopes in use instead of emptying itself.
func TestCaches_FullScopeCacheKeepsRecentlyUsed(t *testing.T) {
	t.Parallel()
	c := newCaches()
	hot := scopeKey{project: "hot"}
	c.putScope(hot, &Scope{Hash: "hot"})
	for i := range maxScopes * 2 {
		c.putScope(scopeKey{project: fmt.Sprint(i)}, &Scope{})
		if c.scope(hot) == nil {
			t.Fatalf("the scope in use was dropped after %d others", i+1)
		}
	}
}

// The strict-schema cache is bounded: a project's own connectors bring
// new schemas whenever they change.
func TestCaches_StrictSchemasBounded(t *testing.T) {
	t.Parallel()
	c := newCaches()
	for i := range maxStrictSchemas + 100 {
		schema := json.RawMessage(fmt.Sprintf(`{"type":"object","properties":{"f%d":{"type":"string"}}}`, i))
		if _, err := c.strictOf(schema); err != nil {
			t.Fatal(err)
		}
	}
	if n := c.strict.Len(); n > maxStrictSchemas {
		t.Fatalf("%d strict schemas cached, bound %d", n, maxStrictSchemas)
	}
}
