package httpapi

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// scopeFake is a provider whose token endpoint answers what the test sets
// (a scope field or none) and whose API counts the calls it gets.
type scopeFake struct {
	srv *httptest.Server
	mu  sync.Mutex
	// tokenScope is the scope field of the next token answers; "-" leaves
	// the field out.
	tokenScope string
	grants     []string // grant_type of each token request
	apiCalls   int
}

func newScopeFake(t *testing.T) *scopeFake {
	f := &scopeFake{tokenScope: "-"}
	f.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/oauth/token":
			_ = r.ParseForm()
			f.mu.Lock()
			f.grants = append(f.grants, r.PostForm.Get("grant_type"))
			scope := f.tokenScope
			f.mu.Unlock()
			body := `{"access_token":"kappa-access","refresh_token":"kappa-refresh","token_type":"Bearer","expires_in":3600`
			if scope != "-" {
				body += fmt.Sprintf(`,"scope":%q`, scope)
			}
			_, _ = io.WriteString(w, body+"}")
		default:
			f.mu.Lock()
			f.apiCalls++
			f.mu.Unlock()
			_, _ = io.WriteString(w, `{"ok":true}`)
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *scopeFake) set(scope string) {
	f.mu.Lock()
	f.tokenScope = scope
	f.mu.Unlock()
}

func (f *scopeFake) calls() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.apiCalls
}

// kappaTools are three tools of one scope each, and a fourth that shares
// "write": switching kappa_write off must keep "write" requested.
const kappaTools = `
tools:
  - {id: %[1]s_read, name: Read, description: Reads a note for the scope tests., effect: read, requiredScopes: [%[2]sread],
     inputSchema: {type: object, properties: {}, additionalProperties: false}, request: {method: GET, path: /read}}
  - {id: %[1]s_write, name: Write, description: Writes a note for the scope tests., effect: write, requiredScopes: [%[2]swrite],
     inputSchema: {type: object, properties: {}, additionalProperties: false}, request: {method: POST, path: /write}}
  - {id: %[1]s_touch, name: Touch, description: Touches a note for the scope tests., effect: write, requiredScopes: [%[2]swrite],
     inputSchema: {type: object, properties: {}, additionalProperties: false}, request: {method: POST, path: /touch}}
  - {id: %[1]s_purge, name: Purge, description: Purges every note for the scope tests., effect: destructive, requiredScopes: [%[2]sadmin],
     inputSchema: {type: object, properties: {}, additionalProperties: false}, request: {method: DELETE, path: /purge}}
`

// scopeCatalog is the route-test catalog plus "kappa" (scopes read, write,
// admin and the base scope offline_access, which no tool needs, plus a
// client-credentials method) and "gnotes", which signs in at Google's
// authorize URL (the server only builds that URL, it never calls it).
func scopeCatalog(t *testing.T, fake *scopeFake) fs.FS {
	t.Helper()
	mfs := testCatalogCopy()
	mfs["connectors/kappa.yaml"] = &fstest.MapFile{Data: []byte(fmt.Sprintf(`
id: kappa
name: Kappa Notes
description: A test notes application whose tools need different OAuth scopes.
category: productivity
api: {baseUrl: "%[1]s/api"}
authMethods:
  - id: oauth2
    type: oauth2
    name: Kappa sign-in
    oauth2: {authorizeUrl: "%[1]s/oauth/authorize", tokenUrl: "%[1]s/oauth/token", scopes: [offline_access, read, write, admin],
      scopeSeparator: ",", pkce: true, tokenAuthStyle: body, refresh: true}
  - id: client_credentials
    type: oauth2_client_credentials
    name: Kappa machine client
    oauth2: {tokenUrl: "%[1]s/oauth/token", scopes: [read, write, admin], tokenAuthStyle: body}
`, fake.srv.URL) + fmt.Sprintf(kappaTools, "kappa", ""))}
	mfs["logos/kappa.svg"] = &fstest.MapFile{Data: []byte("<svg/>")}
	const g = "https://www.googleapis.com/auth/notes."
	mfs["connectors/gnotes.yaml"] = &fstest.MapFile{Data: []byte(fmt.Sprintf(`
id: gnotes
name: Google Notes
description: A test Google application, for incremental authorization.
category: productivity
api: {baseUrl: "%[1]s/api"}
authMethods:
  - id: oauth2
    type: oauth2
    name: Google sign-in
    oauth2: {authorizeUrl: "https://accounts.google.com/o/oauth2/v2/auth", tokenUrl: "%[1]s/oauth/token",
      scopes: ["%[2]sread", "%[2]swrite", "%[2]sadmin"], pkce: true, tokenAuthStyle: body, refresh: true,
      authorizeParams: {access_type: offline}, incrementalParams: {include_granted_scopes: "true"}}
`, fake.srv.URL, g) + fmt.Sprintf(kappaTools, "gnotes", g))}
	mfs["logos/gnotes.svg"] = &fstest.MapFile{Data: []byte("<svg/>")}
	if _, err := catalog.Load(mfs); err != nil {
		t.Fatal(err)
	}
	return mfs
}

func setupScopes(t *testing.T) (*fixture, *scopeFake) {
	t.Helper()
	fake := newScopeFake(t)
	f := setupWith(t, sqliteDB, scopeCatalog(t, fake), fake.srv)
	addOAuthClient(t, f, "kappa")
	addOAuthClient(t, f, "gnotes")
	return f, fake
}

// signIn runs a sign-in through a new link for ann (or through token when
// given) and returns the authorize URL's query and the callback's answer.
func (f *fixture) signIn(t *testing.T, connector, token, body string) (url.Values, response) {
	t.Helper()
	if token == "" {
		token = f.link(t, `{"userId":"ann","connectors":["`+connector+`"]}`)
	}
	if body == "" {
		body = `{"authConfigId":"` + oauthConfigID(t, f, token) + `"}`
	}
	authURL, cookie := f.authorize(t, token, body)
	u, err := url.Parse(authURL)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	r := f.do(f.h, "GET", "/api/oauth/callback?code=c1&state="+url.QueryEscape(q.Get("state")), "", "", "Cookie", cookie)
	if r.status != 200 {
		t.Fatalf("callback: %d %s", r.status, r.body)
	}
	return q, r
}

// only returns ann's single account of the connector.
func (f *fixture) only(t *testing.T, connector string) store.Connection {
	t.Helper()
	conns, err := f.store.ConnectorConnections(context.Background(), f.project.ID, "ann", connector)
	if err != nil || len(conns) != 1 {
		t.Fatalf("ann's %s accounts: %v %v", connector, conns, err)
	}
	return conns[0]
}

// A token answer that grants less than the sign-in asked for is what the
// account stores, and a tool needing a scope that was not granted is
// refused with 403 ACTION_DISABLED naming it, before any provider call.
func TestOAuthCallback_NarrowerScope_StoresGrantedAndRefusesTheTool(t *testing.T) {
	t.Parallel()
	f, fake := setupScopes(t)
	fake.set("offline_access read write")
	q, _ := f.signIn(t, "kappa", "", "")
	if q.Get("scope") != "offline_access,read,write,admin" {
		t.Fatalf("asked for %q", q.Get("scope"))
	}
	if got := strings.Join(f.only(t, "kappa").Scopes, " "); got != "offline_access read write" {
		t.Fatalf("stored scopes %q, want what was granted", got)
	}
	st, m, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"kappa_purge","userId":"ann"}`)
	if st != 403 || errCode(m) != "ACTION_DISABLED" || !strings.Contains(raw, "admin") || fake.calls() != 0 {
		t.Fatalf("purge without admin: %d %s (%d provider calls)", st, raw, fake.calls())
	}
	if st, _, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"kappa_write","userId":"ann"}`); st != 200 || fake.calls() != 1 {
		t.Fatalf("write with write granted: %d %s", st, raw)
	}
}

// GitHub and Slack separate the granted scopes with commas.
func TestOAuthCallback_CommaSeparatedScope(t *testing.T) {
	t.Parallel()
	f, fake := setupScopes(t)
	fake.set("read,write")
	f.signIn(t, "kappa", "", "")
	if got := strings.Join(f.only(t, "kappa").Scopes, " "); got != "read write" {
		t.Fatalf("stored scopes %q", got)
	}
	if st, m, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"kappa_purge","userId":"ann"}`); st != 403 || errCode(m) != "ACTION_DISABLED" || !strings.Contains(raw, "admin") {
		t.Fatalf("purge: %d %s", st, raw)
	}
}

// Without --scopes an auth config asks for what the switched-on tools need
// plus the base scopes; a token answer without a scope field grants
// exactly what was asked for.
func TestOAuthSignIn_DefaultScopesFollowToolSwitches(t *testing.T) {
	t.Parallel()
	f, _ := setupScopes(t)
	ctx := context.Background()
	if err := f.store.SetToolsEnabled(ctx, f.project.ID, []string{"kappa_purge", "kappa_write"}, false); err != nil {
		t.Fatal(err)
	}
	// admin is no longer needed; write still is, by kappa_touch.
	q, _ := f.signIn(t, "kappa", "", "")
	if q.Get("scope") != "offline_access,read,write" {
		t.Fatalf("with purge and write off, asked for %q", q.Get("scope"))
	}
	if got := strings.Join(f.only(t, "kappa").Scopes, " "); got != "offline_access read write" {
		t.Fatalf("no scope field: stored %q, want what was asked for", got)
	}
	if err := f.store.SetToolsEnabled(ctx, f.project.ID, []string{"kappa_touch"}, false); err != nil {
		t.Fatal(err)
	}
	q, _ = f.signIn(t, "kappa", f.link(t, `{"userId":"cy","connectors":["kappa"]}`), "")
	if q.Get("scope") != "offline_access,read" {
		t.Fatalf("with every write tool off, asked for %q", q.Get("scope"))
	}
	// An operator's explicit scopes win over the tools.
	if _, err := f.store.CreateAuthConfig(ctx, store.AuthConfig{ProjectID: f.project.ID, ConnectorID: "kappa", Key: "kappa_fixed",
		AuthMethodID: "oauth2", AuthType: "oauth2", ClientID: "cid", Scopes: []string{"admin"}}); err != nil {
		t.Fatal(err)
	}
	q, _ = f.signIn(t, "kappa", f.link(t, `{"userId":"dee","authConfigs":["kappa_fixed"]}`), "")
	if q.Get("scope") != "admin" {
		t.Fatalf("explicit scopes: asked for %q", q.Get("scope"))
	}
}

// A refresh answer that grants fewer scopes narrows the stored set without
// a new revision or a new connections version, and the next call of a
// tool needing a dropped scope is refused, though the account's resolution
// is cached from before the refresh.
func TestRefresh_NarrowerScope_UpdatesGrantedScopes(t *testing.T) {
	t.Parallel()
	f, fake := setupScopes(t)
	ctx := context.Background()
	st, m, raw := f.json("POST", "/v1/connections", `{"connectorId":"kappa","userId":"ann","authConfig":"kappa_oauth",
		"credential":{"type":"oauth2","accessToken":"old","refreshToken":"r1","expiresAt":"2000-01-01T00:00:00Z","scopes":["read","write","admin"]}}`)
	if st != 200 {
		t.Fatalf("create: %d %s", st, raw)
	}
	id := dataOf(m)["id"].(string)
	before := f.only(t, "kappa")
	version := func() int64 {
		kp, err := f.store.ProjectForKey(ctx, apikey.Hash(f.key))
		if err != nil {
			t.Fatal(err)
		}
		return kp.ConnectionsVersion
	}
	v0 := version()
	// This call resolves the account (cached with read, write and admin)
	// and refreshes its expired token; the answer grants only read.
	fake.set("read")
	if st, _, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"kappa_read","userId":"ann"}`); st != 200 {
		t.Fatalf("read: %d %s", st, raw)
	}
	after := f.only(t, "kappa")
	if strings.Join(after.Scopes, " ") != "read" || after.Revision != before.Revision || after.ID != id || version() != v0 {
		t.Fatalf("after the refresh: scopes %v revision %d (was %d), version %d (was %d)", after.Scopes, after.Revision, before.Revision, version(), v0)
	}
	calls := fake.calls()
	st, m, raw = f.json("POST", "/v1/tools/execute", `{"toolId":"kappa_write","userId":"ann"}`)
	if st != 403 || errCode(m) != "ACTION_DISABLED" || !strings.Contains(raw, "write") || fake.calls() != calls {
		t.Fatalf("write after the narrowing refresh: %d %s", st, raw)
	}
}

// A client credentials token that grants fewer scopes than the account
// asks for narrows the stored set too.
func TestClientCredentials_NarrowerScope_UpdatesGrantedScopes(t *testing.T) {
	t.Parallel()
	f, fake := setupScopes(t)
	st, _, raw := f.json("POST", "/v1/connections", `{"connectorId":"kappa","userId":"ann",
		"credential":{"type":"oauth2_client_credentials","clientId":"machine","clientSecret":"machine-secret","scopes":["read","write"]}}`)
	if st != 200 {
		t.Fatalf("create: %d %s", st, raw)
	}
	fake.set("read")
	if st, _, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"kappa_read","userId":"ann"}`); st != 200 {
		t.Fatalf("read: %d %s", st, raw)
	}
	if got := strings.Join(f.only(t, "kappa").Scopes, " "); got != "read" {
		t.Fatalf("stored scopes %q", got)
	}
	calls := fake.calls()
	if st, m, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"kappa_write","userId":"ann"}`); st != 403 || errCode(m) != "ACTION_DISABLED" ||
		!strings.Contains(raw, "write") || fake.calls() != calls {
		t.Fatalf("write: %d %s", st, raw)
	}
}

// A session's missing_scopes refusal links to an incremental sign-in: it
// reconnects the same account, asking for what it was granted and what the
// tool needs (Google: with include_granted_scopes), and the callback
// replaces that account's credential and scopes under the same id and name.
func TestMissingScopes_IncrementalLinkReconnectsTheSameAccount(t *testing.T) {
	t.Parallel()
	const g = "https://www.googleapis.com/auth/notes."
	for _, c := range []struct {
		connector, granted, want, incremental string
	}{
		{"gnotes", g + "read", g + "read " + g + "write", "true"},
		// Not Google: the union, with the base scope asked again.
		{"kappa", "read", "read,write,offline_access", ""},
	} {
		t.Run(c.connector, func(t *testing.T) {
			t.Parallel()
			f, fake := setupScopes(t)
			fake.set(c.granted)
			f.signIn(t, c.connector, "", "")
			old := f.only(t, c.connector)

			_, m, _ := f.json("POST", "/v1/sessions", `{"userId":"ann","connectors":["`+c.connector+`"],"pinned":["`+c.connector+`_write"]}`)
			sid := dataOf(m)["id"].(string)
			st, m, raw := f.json("POST", "/v1/sessions/"+sid+"/tools/"+c.connector+"_write", `{"arguments":{}}`)
			e, _ := m["error"].(map[string]any)
			if st != 200 || e == nil || e["code"] != "missing_scopes" {
				t.Fatalf("session call: %d %s", st, raw)
			}
			u := e["connectUrl"].(string)
			token := u[strings.LastIndex(u, "/")+1:]
			_, m, raw = f.page("GET", "/api/connect/"+token, "")
			if re, _ := dataOf(m)["reconnect"].(map[string]any); re == nil || re["id"] != old.ID {
				t.Fatalf("the link's view names no account to reconnect: %s", raw)
			}

			fake.set("-") // no scope field: what was asked for is granted
			q, r := f.signIn(t, c.connector, token, "")
			if q.Get("scope") != c.want || q.Get("include_granted_scopes") != c.incremental {
				t.Fatalf("incremental sign-in asked for %q (include_granted_scopes %q)", q.Get("scope"), q.Get("include_granted_scopes"))
			}
			now := f.only(t, c.connector)
			if now.ID != old.ID || now.Name != old.Name || now.Revision != old.Revision+1 ||
				strings.Join(now.Scopes, " ") != strings.ReplaceAll(c.want, ",", " ") || !strings.Contains(string(r.body), "is connected") {
				t.Fatalf("after the incremental sign-in: %+v (was %+v)", now, old)
			}
			if st, m, raw := f.json("POST", "/v1/sessions/"+sid+"/tools/"+c.connector+"_write", `{"arguments":{}}`); st != 200 || m["ok"] != true {
				t.Fatalf("session call after reconnecting: %d %s", st, raw)
			}
		})
	}
}
