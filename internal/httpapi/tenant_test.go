package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/connect"
	"github.com/switchboard-gw/switchboard/internal/execlog"
	"github.com/switchboard-gw/switchboard/internal/execute"
	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/session"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
	"github.com/switchboard-gw/switchboard/internal/trigger"
	"github.com/switchboard-gw/switchboard/internal/upstream"
)

// importNotes stores the notes API (an OpenAPI import on plain http to a
// loopback fake) as the fixture project's own connector.
func importNotes(t *testing.T, f *fixture) {
	t.Helper()
	ctx := context.Background()
	plain := httptest.NewServer(http.HandlerFunc(fakeDelta))
	t.Cleanup(plain.Close)
	data, err := os.ReadFile("../upstream/testdata/notes-31.yaml")
	if err != nil {
		t.Fatal(err)
	}
	scope := netguard.New(netguard.Options{AllowLoopback: true}).Connector("notes")
	con, _, err := upstream.ImportOpenAPI(ctx, data, upstream.ImportOptions{ID: "notes", BaseURL: plain.URL + "/v1",
		PlainHTTPFunc: func(ctx context.Context, host string) error { return scope.OpenedHost(ctx, host, nil) }})
	if err != nil {
		t.Fatal(err)
	}
	def, _ := json.Marshal(con)
	if err := f.store.PutProjectConnector(ctx, store.ProjectConnector{ProjectID: f.project.ID, ConnectorID: "notes",
		Origin: catalog.OriginOpenAPI, Definition: def}); err != nil {
		t.Fatal(err)
	}
}

// TestTenant_OwnConnectorThroughEachService runs a project's own connector
// through every service that takes a tenant, called directly as the
// Connect page, admin commands and the benchmark call them. Before tenants
// were parameters, a caller that forgot to put the project's catalog in
// the context silently got the built-in catalog, where "notes" does not
// exist.
func TestTenant_OwnConnectorThroughEachService(t *testing.T) {
	t.Parallel()
	f := setup(t)
	importNotes(t, f)
	ctx := context.Background()

	cred := json.RawMessage(`{"type":"api_key","apiKey":"delta-secret-key"}`)
	conn, err := f.srv.accounts.Create(ctx, f.tenant(t, f.project.ID), account.CreateRequest{ConnectorID: "notes", UserID: "u1", Credential: cred})
	if err != nil {
		t.Fatalf("account create: %v", err)
	}
	if _, err := f.srv.accounts.Update(ctx, f.tenant(t, f.project.ID), conn.ID, account.UpdateRequest{Credential: cred}); err != nil {
		t.Fatalf("account rotate: %v", err)
	}
	if _, err := f.srv.links.Create(ctx, f.tenant(t, f.project.ID), connect.Request{UserID: "u1", Connectors: []string{"notes"}}); err != nil {
		t.Fatalf("connect link: %v", err)
	}
	res, err := f.srv.executor.Execute(ctx, f.tenant(t, f.project.ID), execute.Call{ToolID: "notes_list_notes", UserID: "u1",
		Input: json.RawMessage(`{"q":"milk"}`)})
	if err != nil {
		t.Fatalf("execute: %v", err)
	}
	if b, _ := json.Marshal(res); !strings.Contains(string(b), "/v1/notes") {
		t.Fatalf("execute answered %s", b)
	}
	if _, err := f.srv.executor.CallAPI(ctx, f.tenant(t, f.project.ID), conn.ID, "GET", "/notes", nil, false); err != nil {
		t.Fatalf("call API: %v", err)
	}

	tn := f.tenant(t, f.project.ID)
	ss, sc, err := f.srv.sessions.Create(ctx, tn, session.CreateRequest{UserID: "u1", Connectors: []string{"notes"}})
	if err != nil {
		t.Fatalf("session create: %v", err)
	}
	if !sc.Has("notes_list_notes") {
		t.Fatalf("session scope lacks the project's tool: %v", sc.Tools)
	}
	if _, err := f.srv.sessions.View(ctx, tn, ss, sc); err != nil {
		t.Fatalf("session view: %v", err)
	}
	out, err := f.srv.sessions.Call(ctx, tn, ss, sc, session.MetaSearch, json.RawMessage(`{"queries":["list notes"]}`), execlog.Origin{})
	if b, _ := json.Marshal(out); err != nil || !out.OK || !strings.Contains(string(b), "notes_list_notes") {
		t.Fatalf("search: %s %v", b, err)
	}
	out, err = f.srv.sessions.Call(ctx, tn, ss, sc, session.MetaExecute, json.RawMessage(`{"action":"notes_list_notes","input":{"q":"milk"}}`), execlog.Origin{})
	if b, _ := json.Marshal(out); err != nil || !out.OK {
		t.Fatalf("session execute: %s %v", b, err)
	}
	if _, err := f.srv.sessions.EndpointRecord(ctx, tn, session.EndpointRequest{ProjectID: f.project.ID, Slug: "notes-ep",
		Connectors: []string{"notes"}}); err != nil {
		t.Fatalf("endpoint record: %v", err)
	}
}

// TestTenant_MissingIsAnError: a service called without a tenant (no
// project, or no catalog) fails with tenant.ErrMissing; it never answers
// from the built-in catalog.
func TestTenant_MissingIsAnError(t *testing.T) {
	t.Parallel()
	f := setup(t)
	ctx := context.Background()
	whole := f.tenant(t, f.project.ID)
	cred := json.RawMessage(`{"type":"api_key","apiKey":"delta-secret-key","host":"` + f.providerHost + `"}`)
	conn, err := f.srv.accounts.Create(ctx, whole, account.CreateRequest{ConnectorID: "delta", UserID: "u1", Credential: cred})
	if err != nil {
		t.Fatal(err)
	}
	ss, sc, err := f.srv.sessions.Create(ctx, whole, session.CreateRequest{UserID: "u1"})
	if err != nil {
		t.Fatal(err)
	}
	noCatalog := whole
	noCatalog.Catalog = nil
	noProject := whole
	noProject.ProjectID = ""
	for name, tn := range map[string]tenant.Tenant{"zero": {}, "no catalog": noCatalog, "no project": noProject} {
		calls := map[string]func() error{
			"execute": func() error {
				_, err := f.srv.executor.Execute(ctx, tn, execute.Call{ToolID: "delta_get_task", UserID: "u1", Input: json.RawMessage(`{"id":"1"}`)})
				return err
			},
			"proxy": func() error {
				_, err := f.srv.executor.Proxy(ctx, tn, execute.ProxyCall{ConnectorID: "delta", UserID: "u1", Method: "GET", Endpoint: "/x"})
				return err
			},
			"call API": func() error {
				_, err := f.srv.executor.CallAPI(ctx, tn, conn.ID, "GET", "/x", nil, false)
				return err
			},
			"account create": func() error {
				_, err := f.srv.accounts.Create(ctx, tn, account.CreateRequest{ConnectorID: "delta", UserID: "u2", Credential: cred})
				return err
			},
			"account update": func() error {
				_, err := f.srv.accounts.Update(ctx, tn, conn.ID, account.UpdateRequest{Credential: cred})
				return err
			},
			"account resolve": func() error {
				_, err := f.srv.accounts.Resolve(ctx, tn, account.Use{UserID: "u1", ConnectorID: "delta"})
				return err
			},
			"connect link": func() error {
				_, err := f.srv.links.Create(ctx, tn, connect.Request{UserID: "u1"})
				return err
			},
			"session create": func() error {
				_, _, err := f.srv.sessions.Create(ctx, tn, session.CreateRequest{UserID: "u1"})
				return err
			},
			"session scope": func() error {
				_, err := f.srv.sessions.Scope(ctx, tn, ss.Spec)
				return err
			},
			"session view": func() error {
				_, err := f.srv.sessions.View(ctx, tn, ss, sc)
				return err
			},
			"session call": func() error {
				_, err := f.srv.sessions.Call(ctx, tn, ss, sc, session.MetaSearch, json.RawMessage(`{"queries":["item"]}`), execlog.Origin{})
				return err
			},
			"endpoint record": func() error {
				_, err := f.srv.sessions.EndpointRecord(ctx, tn, session.EndpointRequest{ProjectID: f.project.ID, Slug: "some-ep"})
				return err
			},
			"trigger create": func() error {
				_, err := f.srv.triggers.Create(ctx, tn, trigger.CreateRequest{ConnectionID: conn.ID, Event: "delta_task_created"})
				return err
			},
			"trigger delete": func() error { return f.srv.triggers.Delete(ctx, tn, store.NewID()) },
		}
		for call, run := range calls {
			if err := run(); !errors.Is(err, tenant.ErrMissing) {
				t.Errorf("%s with a %s tenant: %v, want tenant.ErrMissing", call, name, err)
			}
		}
	}
}

// TestAPIKey_BuildsTheTenant: the API key middleware gives handlers the
// project's tenant at the versions the key lookup read, with the project's
// own connectors in its catalog.
func TestAPIKey_BuildsTheTenant(t *testing.T) {
	t.Parallel()
	f := setup(t)
	importNotes(t, f)
	var got tenant.Tenant
	h := f.srv.requireAPIKey(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = tenantOf(r)
		_, _ = io.WriteString(w, "ok")
	}))
	if r := f.do(h, "GET", "/v1/x", "Bearer "+f.key, ""); r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	want, err := f.store.ProjectVersions(context.Background(), f.project.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.ProjectID != f.project.ID || got.ToolsVersion != want.ToolsVersion || got.ConnectionsVersion != want.ConnectionsVersion {
		t.Fatalf("tenant %+v, want the versions %+v", got, want)
	}
	if got.Catalog == nil {
		t.Fatal("no catalog")
	}
	if _, ok := got.Catalog.Tool("notes_list_notes"); !ok {
		t.Fatal("the tenant's catalog lacks the project's own connector")
	}
}
