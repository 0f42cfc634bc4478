package execute

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// oauthWithScopes stores an OAuth account of u1 whose granted scopes are known.
func (e *env) oauthWithScopes(t *testing.T, name string, scopes ...string) store.Connection {
	t.Helper()
	raw, _ := json.Marshal(map[string]any{"type": "oauth2", "accessToken": "access-" + name, "scopes": scopes, "host": e.fake.host()})
	req := createReq("u1", raw, "acme-oauth")
	req.Name = name
	c, err := e.accounts.Create(context.Background(), e.tenant(), req)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestExecute_ConnectionWithoutRequiredScope_ActionDisabledBeforeAnyProviderCall(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	e.oauthConfig()
	narrow := e.oauthWithScopes(t, "narrow", "items:read")
	wide := e.oauthWithScopes(t, "wide", "items:admin")
	exact := e.oauthWithScopes(t, "exact", "items:read", "items:write")

	before := len(e.fake.requests)
	_, err := e.run("acme_create_item", `{"name":"x"}`, func(c *Call) { c.ConnectionID = narrow.ID })
	ae, ok := apierr.As(err)
	if !ok || ae.Code != apierr.ActionDisabled || ae.HTTPStatus() != 403 ||
		!strings.Contains(ae.Message, "items:write") || !strings.Contains(ae.Message, "reconnect") {
		t.Fatalf("err %v", err)
	}
	var ms *MissingScopesError
	if !errors.As(err, &ms) || strings.Join(ms.Missing, ",") != "items:write" || ms.ConnectorID != "acme" {
		t.Fatalf("missing scopes %+v", ms)
	}
	if strings.Contains(ae.Message, "access-narrow") {
		t.Fatal("the message shows the token")
	}
	if len(e.fake.requests) != before {
		t.Fatal("the provider was called")
	}
	// A tool that needs no scope runs; so does the tool on accounts whose
	// scopes include the needed one, by name or by a wider scope.
	if _, err := e.run("acme_get_item", `{"id":"1"}`, func(c *Call) { c.ConnectionID = narrow.ID }); err != nil {
		t.Fatal(err)
	}
	for _, c := range []store.Connection{wide, exact} {
		if _, err := e.run("acme_create_item", `{"name":"x"}`, func(call *Call) { call.ConnectionID = c.ID }); err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
	}
}

func TestCheckScopes_OnlyWhenGrantedScopesAreKnown(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	tool, _ := e.cat.Tool("acme_create_item")
	conn := store.Connection{ID: "c1", Name: "default", ConnectorID: "acme", Scopes: []string{"items:read"}}
	for _, c := range []struct {
		typ    string
		scopes []string
		refuse bool
	}{
		{"oauth2", []string{"items:read"}, true},
		{"oauth2_client_credentials", []string{"items:read"}, true},
		{"google_service_account", []string{"items:read"}, true},
		{"oauth2_jwt_bearer", []string{"items:read"}, true},
		{"github_app", []string{"items:read"}, false}, // the installation's permissions apply
		{"oauth2_client_credentials", []string{"https://graph.microsoft.com/.default"}, false},
		{"oauth2", nil, false},                     // scopes unknown
		{"api_key", []string{"items:read"}, false}, // a key has no scopes
		{"basic", []string{"items:read"}, false},
	} {
		conn.Scopes = c.scopes
		err := checkScopes(tool, conn, account.Credential{Type: c.typ})
		if (err != nil) != c.refuse {
			t.Errorf("%s %v: %v", c.typ, c.scopes, err)
		}
	}
}

func TestScopeCovers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		granted, required string
		want              bool
	}{
		{"repo", "repo", true},
		{"https://www.googleapis.com/auth/drive", "https://www.googleapis.com/auth/drive.readonly", true},
		{"https://www.googleapis.com/auth/gmail.modify", "https://www.googleapis.com/auth/gmail.readonly", true},
		{"https://www.googleapis.com/auth/gmail.modify", "https://www.googleapis.com/auth/gmail.send", true},
		{"https://mail.google.com/", "https://www.googleapis.com/auth/gmail.modify", true},
		{"https://www.googleapis.com/auth/gmail.readonly", "https://mail.google.com/", false},
		{"https://www.googleapis.com/auth/drive.readonly", "https://www.googleapis.com/auth/drive", false},
		{"deals:full", "deals:read", true},
		{"Mail.ReadWrite", "Mail.Read", true},
		{"Mail.Read", "Mail.Send", false},
		{"event:admin", "event:write", true},
		{"event:admin", "event:read", true},
		{"event:write", "event:admin", false},
		{"api", "read_api", true},
		{"read_api", "api", false},
		{"write_customers", "read_customers", true},
		{"root_readwrite", "root_readonly", true},
		{"okta.users.manage", "okta.users.read", true},
		{"crm.objects.contacts.read", "crm.objects.deals.read", false},
		{"chat:write", "search:read", false},
		{"https://graph.microsoft.com/.default", "Mail.Send", true},
	} {
		if got := ScopeCovers(c.granted, c.required); got != c.want {
			t.Errorf("ScopeCovers(%q, %q) = %v", c.granted, c.required, got)
		}
	}
}
