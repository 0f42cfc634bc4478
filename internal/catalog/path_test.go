package catalog

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestSelectPath(t *testing.T) {
	t.Parallel()
	var doc any
	if err := json.Unmarshal([]byte(`{"data":{"items":[{"id":"a1"},{"id":"b2","n":3}]},"user":{"login":"ann"},"":{"x":1},"0":"zero","e":null}`), &doc); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want any
	}{
		{"user.login", "ann"},
		{"data.items.0.id", "a1"},
		{"data.items.1.n", float64(3)},
		{"data.items", []any{map[string]any{"id": "a1"}, map[string]any{"id": "b2", "n": float64(3)}}},
		{"0", "zero"}, // an object key that looks like an index
		{".x", float64(1)},
		{"data.items.2.id", nil},  // out of range
		{"data.items.-1.id", nil}, // negative
		{"data.items. 1.id", nil}, // not a clean index
		{"data.items.0x1.id", nil},
		{"data.items.first", nil},
		{"user.login.more", nil}, // a string has no fields
		{"missing.path", nil},
		{"e", nil},
		{"e.x", nil},
	} {
		if got := SelectPath(doc, c.path); !reflect.DeepEqual(got, c.want) {
			t.Errorf("SelectPath(%q) = %#v, want %#v", c.path, got, c.want)
		}
	}
	if got := SelectPath([]any{"a", "b"}, "1"); got != "b" {
		t.Errorf("top-level array: %v", got)
	}
}

func BenchmarkSelectPath(b *testing.B) {
	var doc any
	_ = json.Unmarshal([]byte(`{"data":{"items":[{"id":"a1"}]}}`), &doc)
	b.ReportAllocs()
	for b.Loop() {
		_ = SelectPath(doc, "data.items.0.id")
	}
}

func TestDeletePath(t *testing.T) {
	t.Parallel()
	v := map[string]any{
		"auth_token": "s", "sid": "AC1",
		"data":  []any{map[string]any{"client_secret": "x", "id": "pi_1"}, map[string]any{"id": "pi_2"}, "text"},
		"inner": map[string]any{"deep": map[string]any{"key": "k", "keep": 1}},
	}
	for _, p := range []string{"auth_token", "data.client_secret", "inner.deep.key", "missing.path", "sid.more"} {
		DeletePath(v, p)
	}
	want := map[string]any{
		"sid":   "AC1",
		"data":  []any{map[string]any{"id": "pi_1"}, map[string]any{"id": "pi_2"}, "text"},
		"inner": map[string]any{"deep": map[string]any{"keep": 1}},
	}
	if !reflect.DeepEqual(v, want) {
		t.Fatalf("got %v", v)
	}
}
