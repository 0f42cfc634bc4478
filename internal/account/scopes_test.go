package account_test

import (
	"slices"
	"strings"
	"testing"

	builtin "github.com/switchboard-gw/switchboard/catalog"
	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
)

func TestGrantedScopes_SeparatorsAndAbsence(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		in   any
		want string
		ok   bool
	}{
		{"spaces (RFC 6749)", "openid email  profile", "openid email profile", true},
		{"commas (GitHub)", "repo,read:user", "repo read:user", true},
		{"commas and spaces", "chat:write, channels:read", "chat:write channels:read", true},
		{"repeated", "read read write", "read write", true},
		{"a JSON array", []any{"read", "write"}, "read write", true},
		{"no field", nil, "", false},
		{"empty", " ", "", false},
		{"not a string", 42.0, "", false},
	} {
		got, ok := account.GrantedScopes(c.in)
		if strings.Join(got, " ") != c.want || ok != c.ok {
			t.Errorf("%s: %q %v, want %q %v", c.name, got, ok, c.want, c.ok)
		}
	}
}

// With every tool on, a built-in method's default request is its own
// scope list: every scope is either needed by a tool or a base scope, and
// no tool needs a scope the method does not list. Switching Gmail's
// permanent deletes (of a message, of a thread) off drops the full-mail
// scope, which only they need.
func TestRequestedScopes_BuiltinDefaultsAndToolSwitches(t *testing.T) {
	t.Parallel()
	cat, err := catalog.Load(builtin.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cat.Connectors() {
		for i := range c.AuthMethods {
			m := &c.AuthMethods[i]
			if m.OAuth2 == nil || m.Type != catalog.AuthOAuth2 {
				continue
			}
			got := account.RequestedScopes(c, m, store.AuthConfig{}, nil)
			if !slices.Equal(got, m.OAuth2.Scopes) && !(len(got) == 0 && len(m.OAuth2.Scopes) == 0) {
				t.Errorf("%s/%s: with every tool on, requests %v, the method lists %v", c.ID, m.ID, got, m.OAuth2.Scopes)
			}
		}
	}
	gmail, _ := cat.Connector("gmail")
	m := gmail.AuthMethod("oauth2")
	got := account.RequestedScopes(gmail, m, store.AuthConfig{}, map[string]bool{"gmail_delete_message": true, "gmail_delete_thread": true})
	if slices.Contains(got, "https://mail.google.com/") || !slices.Contains(got, "https://www.googleapis.com/auth/gmail.send") {
		t.Fatalf("gmail without permanent delete requests %v", got)
	}
	if got := account.RequestedScopes(gmail, m, store.AuthConfig{Scopes: []string{"x"}}, nil); strings.Join(got, " ") != "x" {
		t.Fatalf("explicit scopes: %v", got)
	}
}
