package connect

import (
	"testing"

	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// TestMethodName: an imported API's scheme names give way to a name for
// the method's type; catalog names that read as words stay, and the key
// field takes the same name, so the page shows it once and readably.
func TestMethodName(t *testing.T) {
	for _, tc := range []struct{ name, typ, want string }{
		{"apiKeyAuth", catalog.AuthAPIKey, "API key"},
		{"api_key", catalog.AuthAPIKey, "API key"},
		{"basicAuth", catalog.AuthBasic, "Username and password"},
		{"bearerAuth", catalog.AuthCustom, "Credentials"},
		{"", catalog.AuthAPIKey, "API key"},
		{"Personal access token", catalog.AuthAPIKey, "Personal access token"},
		{"Token", catalog.AuthAPIKey, "Token"},
		{"PAT", catalog.AuthAPIKey, "PAT"},
	} {
		m := &catalog.AuthMethod{Name: tc.name, Type: tc.typ}
		if got := methodName(m); got != tc.want {
			t.Errorf("methodName(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	c := &catalog.Connector{ID: "imp", Name: "Imported"}
	m := &catalog.AuthMethod{ID: "apiKeyAuth", Name: "apiKeyAuth", Type: catalog.AuthAPIKey}
	if f := fieldsOf(c, m); len(f) != 1 || f[0].Label != "API key" {
		t.Fatalf("fields of an imported key method: %+v", f)
	}
}

// TestDisplayName: the bootstrap project's name is not shown to end users.
func TestDisplayName(t *testing.T) {
	if displayName("default") != "" || displayName("Acme") != "Acme" {
		t.Fatal("displayName")
	}
}
