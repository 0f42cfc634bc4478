package httpapi

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// TestConnect_SlackUserTokenSignIn: Slack's user-token method asks for its
// scopes as user_scope (no scope parameter), stores the token Slack answers
// under authed_user with the scopes granted to it, and runs message search
// with it; the bot method refuses the user-only tools before any call, and
// an answer without a user token stores nothing.
func TestConnect_SlackUserTokenSignIn(t *testing.T) {
	t.Parallel()
	fake := newSignInFake(t)
	f := setupWith(t, sqliteDB, signInCatalog(t, fake, "slack"), fake.srv)
	id := store.NewID()
	sealed, err := f.srv.accounts.SealClientSecret(id, "csecret")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.CreateAuthConfig(context.Background(), store.AuthConfig{ID: id, ProjectID: f.project.ID, ConnectorID: "slack",
		Key: "slack_user", AuthMethodID: "oauth2_user", AuthType: "oauth2", ClientID: "cid", ClientSecret: sealed}); err != nil {
		t.Fatal(err)
	}
	signIn := func(user, code string) (int, string) {
		token := f.link(t, `{"userId":"`+user+`","connectors":["slack"]}`)
		authURL, cookie := f.authorize(t, token, `{"authConfigId":"`+id+`","fields":{}}`)
		u, _ := url.Parse(authURL)
		q := u.Query()
		if u.Path != "/slack.com/oauth/v2/authorize" || q.Has("scope") ||
			q.Get("user_scope") != "search:read,chat:write,channels:read,channels:history,groups:read,groups:history,im:read,im:history,"+
				"im:write,mpim:read,users:read,users:read.email,users.profile:read,users.profile:write,users:write,dnd:write,reactions:read,"+
				"reactions:write,files:read,pins:write" {
			t.Fatalf("authorize URL %s", authURL)
		}
		r := f.do(f.h, "GET", "/api/oauth/callback?code="+code+"&state="+url.QueryEscape(q.Get("state")), "", "", "Cookie", cookie)
		return r.status, string(r.body)
	}

	if st, body := signIn("ann", "code-slack-user"); st != 200 || !strings.Contains(body, "is connected") {
		t.Fatalf("callback: %d %s", st, body)
	}
	conns, _ := f.store.ListConnections(context.Background(), f.project.ID, "ann")
	if len(conns) != 1 {
		t.Fatalf("%d accounts stored", len(conns))
	}
	cred, err := f.srv.accounts.Open(conns[0])
	if err != nil {
		t.Fatal(err)
	}
	if cred.AccessToken != "at-slack-user" || !slices.Equal(conns[0].Scopes, []string{"search:read", "users.profile:write", "chat:write"}) {
		t.Fatalf("stored token %q with scopes %v, want the user token and its granted scopes", cred.AccessToken, conns[0].Scopes)
	}
	before := fake.count()
	if st, _, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"slack_search_messages","userId":"ann","input":{"query":"release plan"}}`); st != 200 {
		t.Fatalf("search: %d %s", st, raw)
	}
	calls := fake.since(before)
	if len(calls) != 1 || calls[0].Path != "/slack.com/api/search.messages" || calls[0].Query.Get("query") != "release plan" ||
		calls[0].Header.Get("Authorization") != "Bearer at-slack-user" {
		t.Fatalf("search reached %+v", calls)
	}
	// A scope Slack did not grant this user is refused before any call.
	if st, m, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"slack_set_presence","userId":"ann","input":{"presence":"away"}}`); st == 200 ||
		!strings.Contains(raw, "users:write") || fake.count() != before+1 {
		t.Fatalf("presence without its scope: %d %v %s", st, m, raw)
	}

	// Slack answered a bot token only: nothing is stored.
	if st, body := signIn("bob", "code-slack-nouser"); st == 200 || strings.Contains(body, "at-slack") {
		t.Fatalf("a sign-in without a user token: %d %s", st, body)
	}
	if conns, _ := f.store.ListConnections(context.Background(), f.project.ID, "bob"); len(conns) != 0 {
		t.Fatalf("%d accounts stored for a sign-in without a user token", len(conns))
	}
}
