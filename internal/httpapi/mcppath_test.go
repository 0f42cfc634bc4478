package httpapi

import "testing"

// TestMCPPath: the MCP host's paths are /<slug> and /<slug>/<userId>, with
// the slug rule of endpoint records (session.ValidSlug).
func TestMCPPath(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{
		"/crm-tools": true, "/crm-tools/u1": true, "/crm-tools/u%2F1": true,
		"/": false, "": false, "crm-tools": false, "/ab": false, "/crm-tools/": false,
		"/crm-tools/u1/x": false, "/Crm/u1": false, "/crm_tools/u1": false, "/v1/connectors": false,
	} {
		if got := mcpPath(p); got != want {
			t.Errorf("mcpPath(%q) = %v, want %v", p, got, want)
		}
	}
}
