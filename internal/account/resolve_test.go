package account_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	builtin "github.com/switchboard-gw/switchboard/catalog"
	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

type fixture struct {
	svc     *account.Service
	st      *store.Store
	cat     *catalog.Catalog
	project string
}

// tenant returns the project's tenant with its versions as stored now, as
// a new request would see it.
func (f *fixture) tenant(t *testing.T) tenant.Tenant {
	t.Helper()
	kp, err := f.st.ProjectVersions(context.Background(), f.project)
	if err != nil {
		t.Fatal(err)
	}
	return tenant.Tenant{ProjectID: kp.ID, Catalog: f.cat, ToolsVersion: kp.ToolsVersion, ConnectionsVersion: kp.ConnectionsVersion}
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
	st := storetest.OpenSQLite(t, nil)
	p, err := st.CreateProject(context.Background(), "p")
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{svc: account.NewService(st, ring), st: st, cat: cat, project: p.ID}
}

func (f *fixture) create(t *testing.T, req account.CreateRequest) store.Connection {
	t.Helper()
	if req.Credential == nil {
		req.Credential = json.RawMessage(`{"type":"api_key","apiKey":"sk_test"}`)
	}
	c, err := f.svc.Create(context.Background(), f.tenant(t), req)
	if err != nil {
		t.Fatalf("create %+v: %v", req, err)
	}
	return c
}

func wantCode(t *testing.T, err error, code apierr.Code, status int) {
	t.Helper()
	e, ok := apierr.As(err)
	if !ok || e.Code != code || e.HTTPStatus() != status {
		t.Fatalf("err %v, want %d %s", err, status, code)
	}
	if strings.Contains(e.Message, "sk_test") {
		t.Fatalf("the message shows a credential: %s", e.Message)
	}
}

// TestResolve walks the resolution order: explicit connectionId, the
// session's preference (id, name or label), the user's default, the single
// global account when allowed; and its refusals.
func TestResolve(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	label := "ann@work.example"
	def := f.create(t, account.CreateRequest{ConnectorID: "github", UserID: "ann"})
	work := f.create(t, account.CreateRequest{ConnectorID: "github", UserID: "ann", Name: "work", Label: &label})
	other := f.create(t, account.CreateRequest{ConnectorID: "github", UserID: "bob"})
	shared := f.create(t, account.CreateRequest{ConnectorID: "github", Global: true, Name: "shared"})
	if err := f.st.SetGlobalPermission(ctx, shared.ID, store.GlobalPermission{Tools: []string{"github_list_*"}}); err != nil {
		t.Fatal(err)
	}
	f.create(t, account.CreateRequest{ConnectorID: "slack", Global: true, Name: "a"})
	f.create(t, account.CreateRequest{ConnectorID: "slack", Global: true, Name: "b"})
	stale := f.create(t, account.CreateRequest{ConnectorID: "stripe", UserID: "ann"})
	if err := f.st.SetConnectionStatus(ctx, stale.ID, stale.Revision, store.StatusReauthRequired); err != nil {
		t.Fatal(err)
	}

	use := func(u account.Use) account.Use {
		if u.ConnectorID == "" {
			u.ConnectorID = "github"
		}
		return u
	}
	ok := []struct {
		name string
		use  account.Use
		want string
	}{
		{"the user's default", account.Use{UserID: "ann"}, def.ID},
		{"explicit id", account.Use{UserID: "ann", ConnectionID: work.ID}, work.ID},
		{"preference by name", account.Use{UserID: "ann", Preferred: "work"}, work.ID},
		{"preference by id", account.Use{UserID: "ann", Preferred: work.ID}, work.ID},
		{"preference by label", account.Use{UserID: "ann", Preferred: label}, work.ID},
		{"the default over a global", account.Use{UserID: "ann", AllowGlobal: true, ToolID: "github_list_repos"}, def.ID},
		{"the single global when allowed", account.Use{UserID: "carol", AllowGlobal: true, ToolID: "github_list_repos"}, shared.ID},
		{"a global named explicitly", account.Use{UserID: "carol", ConnectionID: shared.ID, ToolID: "github_list_repos"}, shared.ID},
		{"a global preferred when allowed", account.Use{UserID: "carol", Preferred: "shared", AllowGlobal: true, ToolID: "github_list_repos"}, shared.ID},
	}
	for _, c := range ok {
		got, err := f.svc.Resolve(ctx, f.tenant(t), use(c.use))
		if err != nil || got.ID != c.want {
			t.Errorf("%s: got %s, %v; want %s", c.name, got.ID, err, c.want)
		}
	}

	refused := []struct {
		name   string
		use    account.Use
		code   apierr.Code
		status int
	}{
		{"another user's account", account.Use{UserID: "ann", ConnectionID: other.ID}, apierr.ConnectionNotFound, 400},
		{"an unknown id", account.Use{UserID: "ann", ConnectionID: store.NewID()}, apierr.ConnectionNotFound, 400},
		{"an account of another connector", account.Use{UserID: "ann", ConnectorID: "slack", ConnectionID: work.ID}, apierr.ConnectionNotFound, 400},
		{"an unknown preference", account.Use{UserID: "ann", Preferred: "home"}, apierr.ConnectionNotFound, 400},
		{"a global preferred when not allowed", account.Use{UserID: "carol", Preferred: "shared"}, apierr.ConnectionNotFound, 400},
		{"no account", account.Use{UserID: "carol"}, apierr.MissingConnection, 400},
		{"a global tool not allowed", account.Use{UserID: "carol", AllowGlobal: true, ToolID: "github_create_issue"}, apierr.ActionDisabled, 403},
		{"a global proxy not allowed", account.Use{UserID: "carol", AllowGlobal: true}, apierr.ActionDisabled, 403},
		{"two globals", account.Use{UserID: "carol", ConnectorID: "slack", AllowGlobal: true, ToolID: "slack_send_message"}, apierr.AmbiguousConnection, 409},
		{"reconnect needed", account.Use{UserID: "ann", ConnectorID: "stripe"}, apierr.ReauthRequired, 400},
	}
	for _, c := range refused {
		t.Run(c.name, func(t *testing.T) {
			_, err := f.svc.Resolve(ctx, f.tenant(t), use(c.use))
			wantCode(t, err, c.code, c.status)
		})
	}
	_, err := f.svc.Resolve(ctx, f.tenant(t), use(account.Use{UserID: "carol", ConnectorID: "slack", AllowGlobal: true, ToolID: "slack_send_message"}))
	if e, _ := apierr.As(err); e == nil || len(e.Choices) != 2 {
		t.Fatalf("ambiguous answer lists no choices: %v", err)
	}
}

// TestCreate_Rules table-tests what a new account must satisfy.
func TestCreate_Rules(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.create(t, account.CreateRequest{ConnectorID: "github", UserID: "ann", Name: "work"})
	key := json.RawMessage(`{"type":"api_key","apiKey":"sk_test"}`)
	cases := []struct {
		name   string
		req    account.CreateRequest
		code   apierr.Code
		status int
		path   string
	}{
		{"no connector", account.CreateRequest{UserID: "ann", Credential: key}, apierr.ValidationError, 400, "connectorId"},
		{"unknown connector", account.CreateRequest{ConnectorID: "nope", UserID: "ann", Credential: key}, apierr.ValidationError, 400, "connectorId"},
		{"no user", account.CreateRequest{ConnectorID: "github", Credential: key}, apierr.ValidationError, 400, "userId"},
		{"user and global", account.CreateRequest{ConnectorID: "github", UserID: "ann", Global: true, Credential: key}, apierr.ValidationError, 400, "userId"},
		{"user id too long", account.CreateRequest{ConnectorID: "github", UserID: strings.Repeat("u", account.MaxUserIDLen+1), Credential: key}, apierr.ValidationError, 400, "userId"},
		{"name too long", account.CreateRequest{ConnectorID: "github", UserID: "ann", Name: strings.Repeat("n", account.MaxNameLen+1), Credential: key}, apierr.ValidationError, 400, "name"},
		{"no credential", account.CreateRequest{ConnectorID: "github", UserID: "ann"}, apierr.ValidationError, 400, "credential"},
		{"credential type the connector lacks", account.CreateRequest{ConnectorID: "github", UserID: "ann", Credential: json.RawMessage(`{"type":"basic","username":"u","password":"p"}`)}, apierr.ValidationError, 400, "credential.type"},
		{"unknown auth config", account.CreateRequest{ConnectorID: "github", UserID: "ann", AuthConfigKey: "nope", Credential: key}, apierr.ValidationError, 400, "authConfig"},
		{"a name the user has", account.CreateRequest{ConnectorID: "github", UserID: "ann", Name: "work", Credential: key}, apierr.Conflict, 409, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := f.svc.Create(context.Background(), f.tenant(t), c.req)
			wantCode(t, err, c.code, c.status)
			if c.path == "" {
				return
			}
			e, _ := apierr.As(err)
			for _, is := range e.Issues {
				if apierr.PathString(is.Path) == c.path {
					return
				}
			}
			t.Fatalf("issues %+v lack path %s", e.Issues, c.path)
		})
	}
	// Lengths count characters, not bytes.
	f.create(t, account.CreateRequest{ConnectorID: "github", UserID: strings.Repeat("é", account.MaxUserIDLen), Name: strings.Repeat("é", account.MaxNameLen)})
}

// TestService_Lifecycle: seal and open, rename, rotate, default, delete,
// and the Connect page's public view.
func TestService_Lifecycle(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	label := "Ann at work"
	a := f.create(t, account.CreateRequest{ConnectorID: "github", UserID: "ann", Label: &label})
	b := f.create(t, account.CreateRequest{ConnectorID: "github", UserID: "ann", Name: "home"})
	if cred, err := f.svc.Open(a); err != nil || cred.APIKey != "sk_test" || cred.Type != "api_key" {
		t.Fatalf("open: %v", err)
	}
	// A credential is bound to its row: another row's id cannot open it.
	moved := b
	moved.Credential = a.Credential
	if _, err := f.svc.Open(moved); err == nil {
		t.Fatal("a credential opened under another account's id")
	} else {
		wantCode(t, err, apierr.CredentialUnavailable, 503)
	}
	if account.DisplayName(a) != label || account.DisplayName(b) != "home" {
		t.Fatalf("display names %q %q", account.DisplayName(a), account.DisplayName(b))
	}
	view, _ := json.Marshal(account.Public(a))
	if strings.Contains(string(view), "credential") || strings.Contains(string(view), "sk_test") {
		t.Fatalf("public view shows the credential: %s", view)
	}

	wantCode(t, f.svc.Rename(ctx, f.project, b.ID, a.Name), apierr.NameTaken, 409)
	wantCode(t, f.svc.Rename(ctx, f.project, store.NewID(), "x"), apierr.ConnectionNotFound, 404)
	if err := f.svc.Rename(ctx, f.project, b.ID, "office"); err != nil {
		t.Fatal(err)
	}

	rev, err := f.svc.Rotate(ctx, f.tenant(t), a.ID, json.RawMessage(`{"type":"api_key","apiKey":"sk_new"}`), a.Revision)
	if err != nil || rev != a.Revision+1 {
		t.Fatalf("rotate: %d %v", rev, err)
	}
	_, err = f.svc.Rotate(ctx, f.tenant(t), a.ID, json.RawMessage(`{"type":"api_key","apiKey":"sk_x"}`), a.Revision)
	wantCode(t, err, apierr.Conflict, 409)
	_, err = f.svc.Rotate(ctx, f.tenant(t), a.ID, json.RawMessage(`{"type":"api_key"}`), rev)
	wantCode(t, err, apierr.ValidationError, 400)
	got, _ := f.svc.Get(ctx, f.project, a.ID)
	if cred, _ := f.svc.Open(got); cred.APIKey != "sk_new" {
		t.Fatal("the rotated credential was not stored")
	}

	if c, err := f.svc.SetDefault(ctx, f.project, b.ID); err != nil || !c.IsDefault {
		t.Fatalf("set default: %+v %v", c, err)
	}
	g := f.create(t, account.CreateRequest{ConnectorID: "github", Global: true, Name: "shared"})
	_, err = f.svc.SetDefault(ctx, f.project, g.ID)
	wantCode(t, err, apierr.ValidationError, 400)

	if err := f.svc.Delete(ctx, f.project, a.ID); err != nil {
		t.Fatal(err)
	}
	wantCode(t, f.svc.Delete(ctx, f.project, a.ID), apierr.ConnectionNotFound, 404)
	_, err = f.svc.Get(ctx, f.project, a.ID)
	wantCode(t, err, apierr.ConnectionNotFound, 404)
	if list, err := f.svc.List(ctx, f.project, "ann"); err != nil || len(list) != 2 || errors.Is(err, store.ErrNotFound) {
		t.Fatalf("list: %d %v", len(list), err)
	}
}
