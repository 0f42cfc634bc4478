package catalog

import (
	"slices"
	"strings"
	"testing"

	builtin "github.com/switchboard-gw/switchboard/catalog"
)

// TestBuiltInTools_ScopesAreRequested holds every built-in tool of a
// connector that offers user OAuth to the scopes that OAuth method asks for:
// a tool whose requiredScopes the default grant lacks is offered to a model
// but fails at the provider (Slack message search without search:read, Gmail
// delete without the full-mail scope, Sentry issue delete without
// event:admin).
func TestBuiltInTools_ScopesAreRequested(t *testing.T) {
	t.Parallel()
	cat, err := Load(builtin.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range cat.Tools() {
		con := tool.Connector()
		for _, m := range con.AuthMethods {
			// A tool the method excludes never runs with its accounts (Zoom
			// admin tools, only for Server-to-Server OAuth).
			// A service account asks for its scopes itself, so it too must
			// ask for every scope a tool it can run needs.
			if (m.Type != AuthOAuth2 && m.Type != AuthServiceAccount) || m.OAuth2 == nil || m.Excludes(tool.ID) {
				continue
			}
			for _, s := range tool.RequiredScopes {
				if !slices.Contains(m.OAuth2.Scopes, s) {
					t.Errorf("%s needs scope %q, which the %s auth method %q does not request", tool.ID, s, con.ID, m.ID)
				}
			}
		}
	}
}

// TestBuiltInConnectors_OAuthScopes pins what some providers now demand of
// the scopes an OAuth app asks for: Calendly apps made since 2026 must ask
// for scopes; Zoom apps made since 2024 can only use granular scopes
// (service:action:data, never the classic meeting:read).
func TestBuiltInConnectors_OAuthScopes(t *testing.T) {
	t.Parallel()
	cat, err := Load(builtin.FS)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		connector string
		want      []string
		granular  bool
	}{
		{connector: "calendly", want: []string{"users:read", "event_types:read", "scheduled_events:read", "scheduled_events:write", "scheduling_links:write", "webhooks:write"}},
		{connector: "zoom", want: []string{"meeting:read:meeting", "meeting:write:meeting", "user:read:user"}, granular: true},
		{connector: "sentry", want: []string{"event:admin"}},
		{connector: "gmail", want: []string{"https://mail.google.com/"}},
	}
	for _, tc := range cases {
		con, ok := cat.Connector(tc.connector)
		if !ok {
			t.Errorf("no connector %s", tc.connector)
			continue
		}
		i := slices.IndexFunc(con.AuthMethods, func(m AuthMethod) bool { return m.Type == AuthOAuth2 })
		if i < 0 {
			t.Errorf("%s: no oauth2 auth method", tc.connector)
			continue
		}
		scopes := con.AuthMethods[i].OAuth2.Scopes
		for _, s := range tc.want {
			if !slices.Contains(scopes, s) {
				t.Errorf("%s: scopes %v lack %s", tc.connector, scopes, s)
			}
		}
		if tc.granular {
			for _, s := range scopes {
				if strings.Count(s, ":") < 2 {
					t.Errorf("%s: %s is a classic scope, not a granular one", tc.connector, s)
				}
			}
		}
	}
}
