package session

import (
	"strings"
	"testing"
)

func TestValidSlug(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"abc": true, "crm-tools": true, "a1-b2-c3": true, strings.Repeat("x", 64): true,
		"ab": false, strings.Repeat("x", 65): false, "Crm": false, "crm_tools": false,
		"crm tools": false, "crm/tools": false, "": false, "crm.tools": false, "cr%2Fm": false,
	} {
		if got := ValidSlug(s); got != want {
			t.Errorf("ValidSlug(%q) = %v, want %v", s, got, want)
		}
	}
}
