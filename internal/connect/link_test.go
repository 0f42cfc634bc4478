package connect_test

import (
	"context"
	"strings"
	"testing"
	"time"

	builtin "github.com/switchboard-gw/switchboard/catalog"
	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/connect"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
	"github.com/switchboard-gw/switchboard/internal/tenant"
	"github.com/switchboard-gw/switchboard/internal/upstream"
)

type fixture struct {
	st       *store.Store
	links    *connect.Service
	page     *connect.Page
	clock    *storetest.Clock
	catalogs *upstream.Catalogs
	project  string
}

// tenant returns the project's tenant as a request with a key would see it now.
func (f *fixture) tenant(t *testing.T) tenant.Tenant {
	t.Helper()
	tn, err := f.catalogs.Load(context.Background(), f.project)
	if err != nil {
		t.Fatal(err)
	}
	return tn
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	cat, err := catalog.Load(builtin.FS)
	if err != nil {
		t.Fatal(err)
	}
	ring, err := secret.NewKeyring(secret.Key{ID: "k", Material: make([]byte, secret.KeySize)})
	if err != nil {
		t.Fatal(err)
	}
	clock := storetest.NewClock()
	st := storetest.OpenSQLite(t, clock.Now)
	ctx := context.Background()
	p, err := st.CreateProject(ctx, "Acme")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.EnsureImplicitAuthConfig(ctx, p.ID, "github", "github_api_key", "api_key", "api_key"); err != nil {
		t.Fatal(err)
	}
	if err := st.SetRedirectURLs(ctx, p.ID, []string{"https://app.example.com/done"}); err != nil {
		t.Fatal(err)
	}
	links := connect.NewService(st, "https://sb.example.com", clock.Now)
	catalogs := upstream.NewCatalogs(cat, st)
	page := connect.NewPage(connect.PageOptions{Links: links, Store: st, Projects: catalogs, Accounts: account.NewService(st, ring),
		Keyring: ring, BaseURL: "https://sb.example.com", Now: clock.Now})
	return &fixture{st: st, links: links, page: page, clock: clock, catalogs: catalogs, project: p.ID}
}

func minutes(n int) *int { return &n }

func wantCode(t *testing.T, err error, code apierr.Code, status int) {
	t.Helper()
	e, ok := apierr.As(err)
	if !ok || e.Code != code || e.HTTPStatus() != status {
		t.Fatalf("err %v, want %d %s", err, status, code)
	}
}

// TestCreateLink_Rules table-tests link requests.
func TestCreateLink_Rules(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cases := []struct {
		name string
		req  connect.Request
		path string // "" means accepted
	}{
		{"all connectors", connect.Request{UserID: "ann"}, ""},
		{"some connectors, a config, a redirect", connect.Request{UserID: "ann", Connectors: []string{"github", "slack"},
			AuthConfigs: []string{"github_api_key"}, RedirectURL: "https://app.example.com/done", ExpiresInMinutes: minutes(connect.MaxExpiry)}, ""},
		{"shortest expiry", connect.Request{UserID: "ann", ExpiresInMinutes: minutes(connect.MinExpiry)}, ""},
		{"user id of the longest length in characters", connect.Request{UserID: strings.Repeat("é", account.MaxUserIDLen)}, ""},
		{"no user", connect.Request{}, "userId"},
		{"user id too long", connect.Request{UserID: strings.Repeat("u", account.MaxUserIDLen+1)}, "userId"},
		{"unknown connector", connect.Request{UserID: "ann", Connectors: []string{"github", "nope"}}, "connectors[1]"},
		{"empty connector list", connect.Request{UserID: "ann", Connectors: []string{}}, "connectors"},
		{"unknown auth config", connect.Request{UserID: "ann", AuthConfigs: []string{"nope"}}, "authConfigs[0]"},
		{"expiry too short", connect.Request{UserID: "ann", ExpiresInMinutes: minutes(connect.MinExpiry - 1)}, "expiresInMinutes"},
		{"expiry too long", connect.Request{UserID: "ann", ExpiresInMinutes: minutes(connect.MaxExpiry + 1)}, "expiresInMinutes"},
		{"redirect not allowed", connect.Request{UserID: "ann", RedirectURL: "https://evil.example.com/done"}, "redirectUrl"},
		{"redirect not absolute", connect.Request{UserID: "ann", RedirectURL: "/done"}, "redirectUrl"},
		{"redirect of another scheme", connect.Request{UserID: "ann", RedirectURL: "javascript:alert(1)"}, "redirectUrl"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			l, err := f.links.Create(context.Background(), f.tenant(t), c.req)
			if c.path == "" {
				if err != nil {
					t.Fatalf("refused: %v", err)
				}
				if !strings.HasPrefix(l.URL, "https://sb.example.com/connect/") || l.UserID != c.req.UserID {
					t.Fatalf("link: %+v", l)
				}
				return
			}
			wantCode(t, err, apierr.ValidationError, 400)
			e, _ := apierr.As(err)
			for _, is := range e.Issues {
				if apierr.PathString(is.Path) == c.path {
					return
				}
			}
			t.Fatalf("issues %+v lack path %s", e.Issues, c.path)
		})
	}
}

func token(l connect.Link) string {
	return strings.TrimPrefix(l.URL, "https://sb.example.com/connect/")
}

// TestLink_ExpiryAndTokens: the default expiry, a link's states as the page
// reads them, and a token stored only as its hash.
func TestLink_ExpiryAndTokens(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	l, err := f.links.Create(ctx, f.tenant(t), connect.Request{UserID: "ann"})
	if err != nil {
		t.Fatal(err)
	}
	if want := f.clock.Now().Add(connect.DefaultExpiry * time.Minute); !l.ExpiresAt.Equal(want) {
		t.Fatalf("expires at %v, want %v", l.ExpiresAt, want)
	}
	if _, err := f.st.ConnectLinkByToken(ctx, token(l)); err == nil {
		t.Fatal("the token itself is stored")
	}
	other, _ := f.links.Create(ctx, f.tenant(t), connect.Request{UserID: "ann"})
	if token(other) == token(l) {
		t.Fatal("two links share a token")
	}
	v, err := f.page.Get(ctx, token(l))
	if err != nil || v.Status != connect.StateActive || v.Branding.Name != "Acme" || len(v.Connectors) == 0 {
		t.Fatalf("active link: %+v %v", v.Status, err)
	}
	_, err = f.page.Get(ctx, "not-a-token")
	wantCode(t, err, apierr.NotFound, 404)

	f.clock.Advance(connect.DefaultExpiry*time.Minute - time.Millisecond)
	if v, _ := f.page.Get(ctx, token(l)); v.Status != connect.StateActive {
		t.Fatalf("a millisecond before expiry: %s", v.Status)
	}
	f.clock.Advance(time.Millisecond)
	v, err = f.page.Get(ctx, token(l))
	if err != nil || v.Status != connect.StateExpired || len(v.Connectors) != 0 {
		t.Fatalf("at expiry: %+v %v", v, err)
	}
	_, _, err = f.page.SaveAccount(ctx, token(l), connect.AccountRequest{AuthConfigID: "x", Fields: map[string]any{"apiKey": "k"}})
	wantCode(t, err, apierr.LinkExpired, 410)
}

// TestLink_ScopeAndSingleUse: a link offers only its connectors and auth
// configs, and stores one account.
func TestLink_ScopeAndSingleUse(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	l, err := f.links.Create(ctx, f.tenant(t), connect.Request{UserID: "ann", Connectors: []string{"github"}, AuthConfigs: []string{"github_api_key"}})
	if err != nil {
		t.Fatal(err)
	}
	v, err := f.page.Get(ctx, token(l))
	if err != nil || len(v.Connectors) != 1 || v.Connectors[0].ID != "github" || len(v.Connectors[0].AuthConfigs) != 1 ||
		v.Connectors[0].AuthConfigs[0].Key != "github_api_key" {
		t.Fatalf("offered: %+v %v", v.Connectors, err)
	}
	configID := v.Connectors[0].AuthConfigs[0].ID
	slack, err := f.st.EnsureImplicitAuthConfig(ctx, f.project, "slack", "slack_api_key", "api_key", "api_key")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = f.page.SaveAccount(ctx, token(l), connect.AccountRequest{AuthConfigID: slack.ID, Fields: map[string]any{"apiKey": "xoxb"}})
	wantCode(t, err, apierr.Forbidden, 403)

	acc, _, err := f.page.SaveAccount(ctx, token(l), connect.AccountRequest{AuthConfigID: configID, Fields: map[string]any{"apiKey": "ghp_secret"}})
	if err != nil || acc.ConnectorID != "github" {
		t.Fatalf("save: %+v %v", acc, err)
	}
	list, _ := f.st.ListConnections(ctx, f.project, "ann")
	if len(list) != 1 || list[0].UserID != "ann" {
		t.Fatalf("stored %+v", list)
	}
	_, _, err = f.page.SaveAccount(ctx, token(l), connect.AccountRequest{AuthConfigID: configID, Fields: map[string]any{"apiKey": "ghp_2"}})
	wantCode(t, err, apierr.LinkUsed, 410)
	if v, _ := f.page.Get(ctx, token(l)); v.Status != connect.StateUsed {
		t.Fatalf("after use: %s", v.Status)
	}
}
