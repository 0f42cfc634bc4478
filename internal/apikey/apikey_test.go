package apikey

import (
	"strings"
	"testing"
)

func TestGenerate_ShapeHashAndHint(t *testing.T) {
	t.Parallel()
	key, hash, hint, err := Generate()
	if err != nil {
		t.Fatal(err)
	}
	if !WellFormed(key) {
		t.Fatalf("generated key %q is not well formed", key)
	}
	if hash != Hash(key) || len(hash) != 64 || strings.Contains(hash, key[3:]) {
		t.Fatalf("hash %q", hash)
	}
	if hint != "sb_…"+key[len(key)-4:] {
		t.Fatalf("hint %q", hint)
	}
	other, _, _, _ := Generate()
	if other == key {
		t.Fatal("two keys are equal")
	}
}

func TestWellFormed(t *testing.T) {
	t.Parallel()
	good := "sb_" + strings.Repeat("0123456789abcdef", 4)
	cases := map[string]bool{
		good:                            true,
		"":                              false,
		"sb_":                           false,
		strings.ToUpper(good):           false,
		"sk_" + good[3:]:                false,
		good + "0":                      false,
		good[:len(good)-1]:              false,
		good[:len(good)-1] + "g":        false,
		"sb_" + strings.Repeat("A", 64): false,
		"Bearer " + good:                false,
	}
	for s, want := range cases {
		if got := WellFormed(s); got != want {
			t.Errorf("WellFormed(%q) = %v, want %v", s, got, want)
		}
	}
}
