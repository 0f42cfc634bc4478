package execute

import (
	"net/url"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/catalog"
)

func TestRewritePath_MeBecomesTheAccountsUser(t *testing.T) {
	t.Parallel()
	con := &catalog.Connector{ID: "graph", API: catalog.API{BaseURL: "https://graph.example/v1.0"}}
	m := &catalog.AuthMethod{ID: "app_only", PathPrefixes: map[string]string{"/me": "/users/{userId}"}}
	cred := account.Credential{Connection: map[string]string{"userId": "ann@contoso.com"}}
	for _, c := range []struct{ in, want string }{
		{"https://graph.example/v1.0/me", "https://graph.example/v1.0/users/ann@contoso.com"},
		{"https://graph.example/v1.0/me/messages?%24top=5", "https://graph.example/v1.0/users/ann@contoso.com/messages?%24top=5"},
		{"https://graph.example/v1.0/me/messages/AAM%2Fx%3D", "https://graph.example/v1.0/users/ann@contoso.com/messages/AAM%2Fx%3D"},
		{"https://graph.example/v1.0/mentions", "https://graph.example/v1.0/mentions"},
		{"https://graph.example/v1.0/teams/me", "https://graph.example/v1.0/teams/me"},
	} {
		u, _ := url.Parse(c.in)
		if err := rewritePath(u, con, m, cred); err != nil {
			t.Fatal(err)
		}
		if u.String() != c.want {
			t.Errorf("%s: got %s, want %s", c.in, u, c.want)
		}
	}
	// A user id that needs escaping stays one segment.
	cred.Connection["userId"] = "a b/c"
	u, _ := url.Parse("https://graph.example/v1.0/me/events")
	if err := rewritePath(u, con, m, cred); err != nil || u.String() != "https://graph.example/v1.0/users/a%20b%2Fc/events" {
		t.Fatalf("escaped: %s %v", u, err)
	}
	// Without the field the call cannot be made.
	delete(cred.Connection, "userId")
	u, _ = url.Parse("https://graph.example/v1.0/me/events")
	if err := rewritePath(u, con, m, cred); err == nil {
		t.Fatal("a missing userId was not refused")
	}
}
