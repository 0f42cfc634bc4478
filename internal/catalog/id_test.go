package catalog

import "testing"

func TestValidID(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]bool{
		"github": true, "my_api": true, "a1_b2": true, "x": true,
		"": false, "My_api": false, "my-api": false, "_api": false, "api_": false, "my__api": false, "my api": false,
	} {
		if got := ValidID(id); got != want {
			t.Errorf("ValidID(%q) = %v, want %v", id, got, want)
		}
	}
}
