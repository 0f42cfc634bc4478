package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	builtin "github.com/switchboard-gw/switchboard/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// signInHosts are the real hosts of the connectors whose whole sign-in
// the tests run; the test catalog sends each to the fake under a path
// prefix of the host's name, so the fake sees which host a request was
// meant for. A host the user types or the provider names ({loginHost},
// {shop}.myshopify.com, Pipedrive's api_domain) is the fake's too.
var signInHosts = []string{"appcenter.intuit.com", "oauth.platform.intuit.com", "quickbooks.api.intuit.com",
	"auth.atlassian.com", "api.atlassian.com", "login.xero.com", "identity.xero.com", "api.xero.com", "oauth.pipedrive.com",
	"api.notion.com", "airtable.com", "api.airtable.com", "www.dropbox.com", "api.dropboxapi.com",
	"app.asana.com", "app.hubspot.com", "api.hubapi.com", "github.com", "api.github.com",
	"accounts.google.com", "oauth2.googleapis.com", "www.googleapis.com",
	"login.mailchimp.com", "{dc}.api.mailchimp.com", "{loginHost}", "{instanceUrl}", "login.microsoftonline.com", "graph.microsoft.com",
	"account.box.com", "api.box.com", "auth.calendly.com", "api.calendly.com", "app.clickup.com", "api.clickup.com",
	"www.figma.com", "api.figma.com", "{host}", "gmail.googleapis.com", "docs.googleapis.com", "sheets.googleapis.com",
	"app.intercom.com", "api.intercom.io", "linear.app", "api.linear.app", "auth.monday.com", "api.monday.com",
	"{domain}", "identity.pagerduty.com", "sentry.io", "{region}.sentry.io", "{shop}.myshopify.com", "slack.com",
	"connect.squareup.com", "connect.stripe.com", "api.stripe.com", "todoist.com", "app.todoist.com", "api.todoist.com",
	"{subdomain}.zendesk.com", "zoom.us", "api.zoom.us",
	"tasks.googleapis.com", "meet.googleapis.com", "bitbucket.org", "api.bitbucket.org", "vercel.com", "api.vercel.com",
	// conn-a
	"app.attio.com", "api.attio.com", "app.cal.com", "api.cal.com", "www.klaviyo.com", "a.klaviyo.com", "webflow.com", "api.webflow.com", "miro.com", "api.miro.com",
	"app.frontapp.com", "api2.frontapp.com", "secure.helpscout.net", "api.helpscout.net",
	"app.close.com", "api.close.com",
	"app.smartsheet.{region}", "api.smartsheet.{region}",
	// conn-e: DocuSign's account server is typed (production or developer).
	"{authHost}", "{instance}.service-now.com"}

// pipedriveDomainPattern is the pattern of Pipedrive's apiDomain field;
// the test catalog widens it to the fake's host and port followed by a
// company domain as a path prefix.
const pipedriveDomainPattern = `"[a-z0-9][a-z0-9-]*\\.pipedrive\\.com"`

// signInCall is one request the fake provider received.
type signInCall struct {
	Method, Path string // Path starts with the real host: /api.atlassian.com/ex/jira/…
	Query        url.Values
	Header       http.Header
	Form         url.Values // the form, or a JSON object's members
}

// tokenSpec is how one provider's token endpoint must be called.
type tokenSpec struct {
	who string // the access token it gives is at-<who>
	// body: the client id and secret come in the body, not in a basic
	// header; json: the body is a JSON object, not a form (Square).
	body, json bool
	// code and refresh say which grants the endpoint takes (Figma has one
	// URL for each).
	code, refresh bool
	// scope is what the code exchange must carry as scope (Zendesk), if
	// anything.
	scope string
	// lasting: the provider's tokens do not expire, and it gives no
	// refresh token.
	lasting bool
}

// signInTokens are the token endpoints of the fake, by path.
var signInTokens = map[string]tokenSpec{
	"/oauth.platform.intuit.com/oauth2/v1/tokens/bearer":                   {who: "quickbooks", code: true, refresh: true},
	"/auth.atlassian.com/oauth/token":                                      {who: "atlassian", body: true, code: true, refresh: true},
	"/identity.xero.com/connect/token":                                     {who: "xero", code: true, refresh: true},
	"/oauth.pipedrive.com/oauth/token":                                     {who: "pipedrive", code: true, refresh: true},
	"/api.notion.com/v1/oauth/token":                                       {who: "notion", code: true, refresh: true},
	"/airtable.com/oauth2/v1/token":                                        {who: "airtable", code: true, refresh: true},
	"/api.dropboxapi.com/oauth2/token":                                     {who: "dropbox", code: true, refresh: true},
	"/app.asana.com/-/oauth_token":                                         {who: "asana", body: true, code: true, refresh: true},
	"/api.hubapi.com/oauth/v1/token":                                       {who: "hubspot", body: true, code: true, refresh: true},
	"/github.com/login/oauth/access_token":                                 {who: "github", body: true, code: true, refresh: true},
	"/oauth2.googleapis.com/token":                                         {who: "google", body: true, code: true, refresh: true},
	"/login.mailchimp.com/oauth2/token":                                    {who: "mailchimp", body: true, code: true, lasting: true},
	"/test.salesforce.com/services/oauth2/token":                           {who: "salesforce", body: true, code: true, refresh: true},
	"/login.salesforce.com/services/oauth2/token":                          {who: "salesforce", body: true, code: true, refresh: true},
	"/login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/token": {who: "microsoft", body: true, code: true, refresh: true},
	"/login.microsoftonline.com/common/oauth2/v2.0/token":                  {who: "microsoft", body: true, code: true, refresh: true},
	"/login.microsoftonline.com/organizations/oauth2/v2.0/token":           {who: "microsoft", body: true, code: true, refresh: true},
	"/api.box.com/oauth2/token":                                            {who: "box", body: true, code: true, refresh: true},
	"/auth.calendly.com/oauth/token":                                       {who: "calendly", body: true, code: true, refresh: true},
	"/api.clickup.com/api/v2/oauth/token":                                  {who: "clickup", body: true, code: true, lasting: true},
	// Figma takes a code at one URL and a refresh token at another, both
	// with the client in a basic header.
	"/api.figma.com/v1/oauth/token":                      {who: "figma", code: true},
	"/api.figma.com/v1/oauth/refresh":                    {who: "figma", refresh: true},
	"/gitlab.com/oauth/token":                            {who: "gitlab", body: true, code: true, refresh: true},
	"/api.intercom.io/auth/eagle/token":                  {who: "intercom", body: true, code: true, lasting: true},
	"/api.linear.app/oauth/token":                        {who: "linear", body: true, code: true, refresh: true},
	"/auth.monday.com/oauth2/token":                      {who: "monday", body: true, code: true, lasting: true},
	"/acme.okta.com/oauth2/v1/token":                     {who: "okta", code: true, refresh: true},
	"/identity.pagerduty.com/oauth/token":                {who: "pagerduty", body: true, code: true, refresh: true},
	"/sentry.io/oauth/token/":                            {who: "sentry", body: true, code: true, refresh: true},
	"/acme-store.myshopify.com/admin/oauth/access_token": {who: "shopify", body: true, code: true, lasting: true},
	"/slack.com/api/oauth.v2.access":                     {who: "slack", code: true, lasting: true},
	"/connect.squareup.com/oauth2/token":                 {who: "square", body: true, json: true, code: true, refresh: true},
	"/connect.stripe.com/oauth/token":                    {who: "stripe", body: true, code: true, lasting: true},
	"/api.todoist.com/oauth/access_token":                {who: "todoist", body: true, code: true, lasting: true},
	"/acme.zendesk.com/oauth/tokens":                     {who: "zendesk", body: true, json: true, code: true, refresh: true, scope: "read write"},
	"/zoom.us/oauth/token":                               {who: "zoom", code: true, refresh: true},
	"/bitbucket.org/site/oauth2/access_token":            {who: "bitbucket", code: true, refresh: true},
	"/api.typeform.eu/oauth/token":                       {who: "typeform", body: true, code: true, refresh: true},
	"/api.vercel.com/login/oauth/token":                  {who: "vercel", code: true, refresh: true},
	// conn-a: Attio, Cal.com, Klaviyo, Webflow, Miro.
	"/app.attio.com/oauth/token":          {who: "attio", body: true, code: true, lasting: true},
	"/api.cal.com/v2/auth/oauth2/token":   {who: "cal_com", body: true, code: true, refresh: true},
	"/a.klaviyo.com/oauth/token":          {who: "klaviyo", code: true, refresh: true},
	"/api.webflow.com/oauth/access_token": {who: "webflow", body: true, code: true, lasting: true},
	"/api.miro.com/v1/oauth/token":        {who: "miro", body: true, code: true, refresh: true},
	"/app.frontapp.com/oauth/token":       {who: "front", code: true, refresh: true},
	"/api.helpscout.net/v2/oauth2/token":  {who: "help_scout", body: true, code: true, refresh: true},
	"/api.close.com/oauth2/token/":        {who: "close_crm", body: true, code: true, refresh: true},
	"/api.smartsheet.eu/2.0/token":        {who: "smartsheet", body: true, code: true, refresh: true},
	// conn-e: DocuSign (the developer account server here).
	"/account-d.docusign.com/oauth/token": {who: "docusign", code: true, refresh: true},
	// conn-e: ServiceNow, on the typed instance, the client in the form body.
	"/acme.service-now.com/oauth_token.do": {who: "servicenow", body: true, code: true, refresh: true},
}

// signInFake stands for the providers of signInHosts: token endpoints that
// check the exchange each provider documents, the calls that name an
// account's site or tenant, and the APIs, recording every request.
type signInFake struct {
	srv        *httptest.Server
	mu         sync.Mutex
	calls      []signInCall
	challenges map[string]string // code -> PKCE challenge
	// sites and tenants are the answers of the Atlassian and Xero calls;
	// instanceURL is the instance_url of Salesforce's token response.
	sites, tenants, instanceURL string
}

func newSignInFake(t *testing.T) *signInFake {
	f := &signInFake{challenges: map[string]string{}, instanceURL: "https://acme.my.salesforce.com",
		sites: `[{"id":"cloud-other","url":"https://other.atlassian.net","name":"Other"},` +
			`{"id":"cloud-acme","url":"https://acme.atlassian.net","name":"Acme"}]`,
		tenants: `[{"tenantId":"00000000-0000-0000-0000-00000000000a","tenantType":"PRACTICE","tenantName":"Practice"},` +
			`{"tenantId":"fe79f7dd-b6d4-4a92-ba7b-538af6289c58","tenantType":"ORGANISATION","tenantName":"Demo Company"}]`}
	f.srv = httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		form, isJSON := readBody(r)
		f.mu.Lock()
		f.calls = append(f.calls, signInCall{Method: r.Method, Path: r.URL.Path, Query: r.URL.Query(), Header: r.Header.Clone(), Form: form})
		f.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		if spec, ok := signInTokens[r.URL.Path]; ok {
			f.token(w, r, spec, form, isJSON)
			return
		}
		switch r.URL.Path {
		case "/login.mailchimp.com/oauth2/metadata":
			// Mailchimp documents this call with an OAuth, not a Bearer, prefix.
			if r.Header.Get("Authorization") != "OAuth at-mailchimp" {
				w.WriteHeader(401)
				return
			}
			_, _ = io.WriteString(w, `{"dc":"us21","role":"owner","accountname":"Acme","api_endpoint":"https://us21.api.mailchimp.com"}`)
		case "/api.atlassian.com/oauth/token/accessible-resources":
			f.bearer(w, r, f.sites)
		case "/api.xero.com/connections":
			f.bearer(w, r, f.tenants)
		default:
			f.bearer(w, r, `{"ok":true}`)
		}
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// readBody reads a form or a JSON object's string members, and says
// which it was.
func readBody(r *http.Request) (url.Values, bool) {
	if !strings.HasPrefix(r.Header.Get("Content-Type"), "application/json") {
		_ = r.ParseForm()
		return r.PostForm, false
	}
	var obj map[string]any
	raw, _ := io.ReadAll(r.Body)
	_ = json.Unmarshal(raw, &obj)
	form := url.Values{}
	for k, v := range obj {
		if s, ok := v.(string); ok {
			form.Set(k, s)
		}
	}
	return form, true
}

// token answers a code exchange or a refresh done the way the provider
// documents it: the grant, the code and redirect URI or the refresh
// token, the client in a basic header or in the body, the PKCE verifier
// where a challenge was sent, a form or a JSON body.
func (f *signInFake) token(w http.ResponseWriter, r *http.Request, spec tokenSpec, form url.Values, isJSON bool) {
	id, secret, basic := r.BasicAuth()
	if !basic {
		id, secret = form.Get("client_id"), form.Get("client_secret")
	}
	ok := r.Method == "POST" && id == "cid" && secret == "csecret" && basic != spec.body && isJSON == spec.json &&
		(!basic || form.Get("client_secret") == "")
	switch form.Get("grant_type") {
	case "authorization_code":
		f.mu.Lock()
		challenge, pkce := f.challenges[form.Get("code")]
		f.mu.Unlock()
		sum := sha256.Sum256([]byte(form.Get("code_verifier")))
		ok = ok && spec.code && form.Get("code") != "" && form.Get("redirect_uri") == "http://sb.test/api/oauth/callback" &&
			(!pkce || base64.RawURLEncoding.EncodeToString(sum[:]) == challenge) && (pkce || form.Get("code_verifier") == "") &&
			form.Get("scope") == spec.scope
	case "refresh_token":
		ok = ok && spec.refresh && form.Get("refresh_token") == "rt"
	default:
		ok = false
	}
	if !ok {
		w.WriteHeader(400)
		_, _ = io.WriteString(w, `{"error":"invalid_grant"}`)
		return
	}
	// A refreshed token lasts a day: longer than expireTokens moves the
	// clock past the first ones.
	access, expiresIn := "at-"+spec.who, "3600"
	if form.Get("grant_type") == "refresh_token" {
		access, expiresIn = access+"-2", "86400"
	}
	extra := ""
	switch spec.who {
	case "pipedrive":
		// Pipedrive names the company's API host with every token; the
		// test's company moved after its sign-in.
		domain := "acme"
		if form.Get("grant_type") == "refresh_token" {
			domain = "acme-eu"
		}
		extra = `,"api_domain":"` + f.srv.URL + "/" + domain + `.pipedrive.com"`
	case "salesforce":
		// So does Salesforce, for the org's instance (instance_url).
		f.mu.Lock()
		extra = `,"instance_url":"` + f.instanceURL + `"`
		f.mu.Unlock()
	}
	if spec.who == "square" {
		// Square names the expiry as a time (expires_at), not a lifetime.
		lifetime := time.Hour
		if form.Get("grant_type") == "refresh_token" {
			lifetime = 24 * time.Hour
		}
		_, _ = io.WriteString(w, `{"access_token":"`+access+`","token_type":"bearer","expires_at":"`+
			time.Now().Add(lifetime).UTC().Format(time.RFC3339)+`","merchant_id":"ML1","refresh_token":"rt","short_lived":false}`)
		return
	}
	if spec.who == "slack" && form.Get("code") == "code-slack-user" {
		// A sign-in that asked for user scopes only: Slack answers the
		// user's token under authed_user and no top-level token.
		_, _ = io.WriteString(w, `{"ok":true,"app_id":"A0APP","team":{"id":"T0TEAM","name":"Acme"},`+
			`"authed_user":{"id":"U0ANN","scope":"search:read,users.profile:write,chat:write","access_token":"at-slack-user","token_type":"user"}}`)
		return
	}
	if spec.who == "slack" && form.Get("code") == "code-slack-nouser" {
		// A bot token only, where a user token was asked for.
		_, _ = io.WriteString(w, `{"ok":true,"access_token":"at-slack-bot","token_type":"bot","scope":"chat:write"}`)
		return
	}
	if spec.lasting {
		_, _ = io.WriteString(w, `{"access_token":"`+access+`","token_type":"Bearer"`+extra+`}`)
		return
	}
	_, _ = io.WriteString(w, `{"access_token":"`+access+`","refresh_token":"rt","token_type":"Bearer","expires_in":`+expiresIn+extra+`}`)
}

// bearer answers body to a call that carries an access token the fake
// gave: as a Bearer token, bare (monday.com) or in Shopify's header.
func (f *signInFake) bearer(w http.ResponseWriter, r *http.Request, body string) {
	auth := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !strings.HasPrefix(auth, "at-") && !strings.HasPrefix(r.Header.Get("X-Shopify-Access-Token"), "at-") {
		w.WriteHeader(401)
		return
	}
	_, _ = io.WriteString(w, body)
}

// since returns the calls after the first n.
func (f *signInFake) since(n int) []signInCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]signInCall(nil), f.calls[n:]...)
}

func (f *signInFake) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls)
}

var allowedHostsLine = regexp.MustCompile(`allowedHosts: \[.*\]`)

// signInConnectors are the connectors of TestConnect_SignInHandsOverAccountValues.
var signInConnectors = []string{"quickbooks", "jira", "confluence", "xero", "pipedrive", "notion", "airtable", "dropbox",
	"asana", "hubspot", "github", "google_calendar", "mailchimp", "salesforce", "microsoft_teams", "outlook"}

// signInCatalog is the built-in definitions of the connectors, as
// shipped, with each real host sent to the fake.
func signInCatalog(t *testing.T, fake *signInFake, ids ...string) fs.FS {
	t.Helper()
	if len(ids) == 0 {
		ids = signInConnectors
	}
	mfs := fstest.MapFS{}
	for _, id := range ids {
		b, err := fs.ReadFile(builtin.FS, "connectors/"+id+".yaml")
		if err != nil {
			t.Fatal(err)
		}
		s := string(b)
		for _, h := range signInHosts {
			s = strings.ReplaceAll(s, "https://"+h, fake.srv.URL+"/"+h)
		}
		// Google scopes are URLs on an API host, but names, not addresses.
		s = strings.ReplaceAll(s, fake.srv.URL+"/www.googleapis.com/auth/", "https://www.googleapis.com/auth/")
		if id == "pipedrive" {
			if !strings.Contains(s, pipedriveDomainPattern) {
				t.Fatalf("pipedrive.yaml has no apiDomain pattern %s", pipedriveDomainPattern)
			}
			s = strings.ReplaceAll(s, pipedriveDomainPattern, `"[0-9.]+:[0-9]+/[a-z0-9-]+\\.pipedrive\\.com"`)
		}
		// A typed login host, tenant, shop or site keeps the client to the
		// allowed hosts: here the fake's.
		s = allowedHostsLine.ReplaceAllString(s, `allowedHosts: ["`+strings.TrimPrefix(fake.srv.URL, "https://")+`"]`)
		mfs["connectors/"+id+".yaml"] = &fstest.MapFile{Data: []byte(s)}
		mfs["logos/"+id+".svg"] = &fstest.MapFile{Data: []byte("<svg/>")}
	}
	return mfs
}

// signInCase is one connector's whole sign-in and first call.
type signInCase struct {
	connector string
	typed     string // fields the user types before signing in (JSON)
	// authorize is the authorize URL's path at the fake; params are
	// parameters it must carry beside client_id, redirect_uri and state,
	// noParams those it must not carry.
	authorize string
	params    map[string]string
	noParams  []string
	pkce      bool
	redirect  string // extra callback query (Intuit's realmId)
	// token is the path of the code exchange, when the test pins it.
	token string
	// extraCall is the path of the call made with the new token, if any;
	// identity the path of the call that labels the account, if any.
	extraCall, identity string
	extraAuth           string            // its Authorization header when not "Bearer at-…"
	stored              map[string]string // connection fields the account keeps
	tool                string            // first tool call
	input               string
	wantPath            string      // its path at the fake (host first)
	wantHdr             http.Header // headers it must carry
	// refresh, when set, is the path of the token refresh that the same
	// call makes once the access token has expired; the call then goes
	// to refreshedPath (wantPath when empty) with the new token, and the
	// account keeps refreshedStored (stored when nil).
	refresh, refreshedPath string
	refreshedStored        map[string]string
}

// TestConnect_SignInHandsOverAccountValues runs, per connector, the whole
// OAuth flow through a connect link against a fake provider: the
// authorize URL (scopes, PKCE, extra parameters), the token exchange, the
// call that names the account's site or tenant, the fields the account
// stores, and the first tool call on the right host and path; for
// Pipedrive also a refresh whose answer moves the account's API host.
func TestConnect_SignInHandsOverAccountValues(t *testing.T) {
	t.Parallel()
	fake := newSignInFake(t)
	fakeHost := strings.TrimPrefix(fake.srv.URL, "https://")
	cases := []signInCase{{
		connector: "quickbooks", authorize: "/appcenter.intuit.com/connect/oauth2",
		params:   map[string]string{"scope": "com.intuit.quickbooks.accounting", "response_type": "code"},
		redirect: "&realmId=9130347596042316",
		identity: "/quickbooks.api.intuit.com/v3/company/9130347596042316/companyinfo/9130347596042316",
		stored:   map[string]string{"realmId": "9130347596042316"},
		tool:     "quickbooks_get_company_info", input: `{}`,
		wantPath: "/quickbooks.api.intuit.com/v3/company/9130347596042316/query",
	}, {
		connector: "jira", typed: `{"site":"acme"}`, authorize: "/auth.atlassian.com/authorize",
		params: map[string]string{"scope": "read:jira-work write:jira-work read:jira-user offline_access",
			"audience": "api.atlassian.com", "prompt": "consent", "response_type": "code"},
		extraCall: "/api.atlassian.com/oauth/token/accessible-resources",
		identity:  "/api.atlassian.com/ex/jira/cloud-acme/rest/api/3/myself",
		stored:    map[string]string{"site": "acme", "cloudId": "cloud-acme"},
		tool:      "jira_get_issue", input: `{"issueIdOrKey":"ENG-1"}`,
		wantPath: "/api.atlassian.com/ex/jira/cloud-acme/rest/api/3/issue/ENG-1",
	}, {
		// No site typed: the first site the user granted.
		connector: "confluence", typed: `{}`, authorize: "/auth.atlassian.com/authorize",
		params: map[string]string{"audience": "api.atlassian.com", "prompt": "consent",
			"scope": "read:space:confluence read:page:confluence write:page:confluence delete:page:confluence read:comment:confluence " +
				"write:comment:confluence search:confluence read:confluence-user offline_access"},
		extraCall: "/api.atlassian.com/oauth/token/accessible-resources",
		identity:  "/api.atlassian.com/ex/confluence/cloud-other/wiki/rest/api/user/current",
		stored:    map[string]string{"cloudId": "cloud-other"},
		tool:      "confluence_get_space", input: `{"id":"42"}`,
		wantPath: "/api.atlassian.com/ex/confluence/cloud-other/wiki/api/v2/spaces/42",
	}, {
		connector: "xero", authorize: "/login.xero.com/identity/connect/authorize", pkce: true,
		params: map[string]string{"scope": "offline_access accounting.contacts accounting.invoices accounting.payments " +
			"accounting.banktransactions accounting.settings", "code_challenge_method": "S256"},
		extraCall: "/api.xero.com/connections",
		stored:    map[string]string{"tenantId": "fe79f7dd-b6d4-4a92-ba7b-538af6289c58"},
		tool:      "xero_get_organisation", input: `{}`,
		wantPath: "/api.xero.com/api.xro/2.0/Organisation",
		wantHdr:  http.Header{"Xero-Tenant-Id": {"fe79f7dd-b6d4-4a92-ba7b-538af6289c58"}},
	}, {
		// The company's API host comes with the token (api_domain); every
		// call goes there, v2 for deals, v1 for the identity.
		connector: "pipedrive", authorize: "/oauth.pipedrive.com/oauth/authorize",
		params:   map[string]string{"response_type": "code"},
		identity: "/acme.pipedrive.com/api/v1/users/me",
		stored:   map[string]string{"apiDomain": fakeHost + "/acme.pipedrive.com"},
		tool:     "pipedrive_get_deal", input: `{"id":5}`,
		wantPath: "/acme.pipedrive.com/api/v2/deals/5",
		// A refresh answer names the API host again; the account follows it.
		refresh: "/oauth.pipedrive.com/oauth/token", refreshedPath: "/acme-eu.pipedrive.com/api/v2/deals/5",
		refreshedStored: map[string]string{"apiDomain": fakeHost + "/acme-eu.pipedrive.com"},
	}, {
		// No value to hand over: the authorize URL, the code exchange with
		// the client in a basic header, and the pinned API version.
		connector: "notion", authorize: "/api.notion.com/v1/oauth/authorize",
		params:   map[string]string{"owner": "user", "response_type": "code"},
		identity: "/api.notion.com/v1/users/me",
		tool:     "notion_get_page", input: `{"page_id":"p1"}`,
		wantPath: "/api.notion.com/v1/pages/p1",
		wantHdr:  http.Header{"Notion-Version": {"2026-03-11"}},
	}, {
		connector: "airtable", authorize: "/airtable.com/oauth2/v1/authorize", pkce: true,
		params: map[string]string{"code_challenge_method": "S256", "response_type": "code",
			"scope": "data.records:read data.records:write data.recordComments:read data.recordComments:write schema.bases:read schema.bases:write user.email:read"},
		identity: "/api.airtable.com/v0/meta/whoami",
		tool:     "airtable_get_record", input: `{"baseId":"appA1","tableIdOrName":"tblB2","recordId":"recC3"}`,
		wantPath: "/api.airtable.com/v0/appA1/tblB2/recC3",
	}, {
		// A refresh token only with token_access_type=offline.
		connector: "dropbox", authorize: "/www.dropbox.com/oauth2/authorize", pkce: true,
		params: map[string]string{"token_access_type": "offline", "code_challenge_method": "S256",
			"scope": "account_info.read files.metadata.read files.metadata.write files.content.read files.content.write sharing.read sharing.write"},
		identity: "/api.dropboxapi.com/2/users/get_current_account",
		tool:     "dropbox_get_metadata", input: `{"path":"/Reports/q3.pdf"}`,
		wantPath: "/api.dropboxapi.com/2/files/get_metadata",
	}, {
		// The client in the body of the code exchange from here on.
		connector: "asana", authorize: "/app.asana.com/-/oauth_authorize", pkce: true,
		params: map[string]string{"response_type": "code", "scope": "tasks:read tasks:write tasks:delete projects:read projects:write " +
			"stories:read stories:write users:read workspaces:read webhooks:write webhooks:delete"},
		identity: "/app.asana.com/api/1.0/users/me",
		tool:     "asana_get_task", input: `{"task_gid":"42"}`,
		wantPath: "/app.asana.com/api/1.0/tasks/42",
	}, {
		connector: "hubspot", authorize: "/app.hubspot.com/oauth/authorize",
		params: map[string]string{"scope": "oauth crm.objects.contacts.read crm.objects.contacts.write crm.objects.companies.read " +
			"crm.objects.companies.write crm.objects.deals.read crm.objects.deals.write crm.objects.owners.read"},
		identity: "/api.hubapi.com/account-info/v3/details",
		tool:     "hubspot_get_contact", input: `{"contactId":"7"}`,
		wantPath: "/api.hubapi.com/crm/objects/2026-09/contacts/7",
	}, {
		connector: "github", authorize: "/github.com/login/oauth/authorize", pkce: true,
		params:   map[string]string{"scope": "repo read:user user:email gist read:org"},
		identity: "/api.github.com/user",
		tool:     "github_get_issue", input: `{"owner":"acme","repo":"web","issue_number":3}`,
		wantPath: "/api.github.com/repos/acme/web/issues/3",
		wantHdr:  http.Header{"X-Github-Api-Version": {"2022-11-28"}},
	}, {
		connector: "google_calendar", authorize: "/accounts.google.com/o/oauth2/v2/auth", pkce: true,
		params: map[string]string{"access_type": "offline", "prompt": "consent",
			"scope": "https://www.googleapis.com/auth/calendar.readonly https://www.googleapis.com/auth/calendar.events " +
				"https://www.googleapis.com/auth/calendar.calendars https://www.googleapis.com/auth/calendar.calendarlist " +
				"https://www.googleapis.com/auth/calendar.acls"},
		identity: "/www.googleapis.com/calendar/v3/calendars/primary",
		tool:     "google_calendar_get_event", input: `{"calendarId":"primary","eventId":"e1"}`,
		wantPath: "/www.googleapis.com/calendar/v3/calendars/primary/events/e1",
	}, {
		// The data centre comes from the metadata call, not the token.
		connector: "mailchimp", authorize: "/login.mailchimp.com/oauth2/authorize",
		params:    map[string]string{"response_type": "code"},
		extraCall: "/login.mailchimp.com/oauth2/metadata", extraAuth: "OAuth at-mailchimp",
		identity: "/us21.api.mailchimp.com/3.0/",
		stored:   map[string]string{"dc": "us21"},
		tool:     "mailchimp_list_audiences", input: `{}`,
		wantPath: "/us21.api.mailchimp.com/3.0/lists",
	}, {
		// A sandbox: the login host typed, the instance from the token response.
		connector: "salesforce", typed: `{"loginHost":"test.salesforce.com"}`, authorize: "/test.salesforce.com/services/oauth2/authorize", pkce: true,
		params:   map[string]string{"scope": "api refresh_token", "response_type": "code"},
		identity: "/acme.my.salesforce.com/services/data/v67.0/chatter/users/me",
		stored:   map[string]string{"loginHost": "test.salesforce.com", "instanceUrl": "acme.my.salesforce.com"},
		tool:     "salesforce_query_records", input: `{"q":"SELECT Id FROM Account"}`,
		wantPath: "/acme.my.salesforce.com/services/data/v67.0/query",
	}, {
		// An app registered for one organisation signs in at its tenant.
		connector: "microsoft_teams", typed: `{"tenant":"contoso.onmicrosoft.com"}`, pkce: true,
		authorize: "/login.microsoftonline.com/contoso.onmicrosoft.com/oauth2/v2.0/authorize",
		params: map[string]string{"response_type": "code", "scope": "offline_access User.Read Team.ReadBasic.All Channel.ReadBasic.All Channel.Create " +
			"ChannelMessage.Send ChannelMessage.Read.All Chat.ReadWrite TeamMember.Read.All ChannelMember.Read.All Channel.Delete.All"},
		identity: "/graph.microsoft.com/v1.0/me",
		stored:   map[string]string{"tenant": "contoso.onmicrosoft.com"},
		tool:     "microsoft_teams_list_joined_teams", input: `{}`,
		wantPath: "/graph.microsoft.com/v1.0/me/joinedTeams",
	}, {
		// Nothing typed: common, for work, school and personal accounts.
		connector: "outlook", typed: `{}`, pkce: true,
		authorize: "/login.microsoftonline.com/common/oauth2/v2.0/authorize",
		params:    map[string]string{"scope": "offline_access User.Read Mail.ReadWrite Mail.Send Calendars.ReadWrite Contacts.ReadWrite"},
		identity:  "/graph.microsoft.com/v1.0/me",
		stored:    map[string]string{"tenant": "common"},
		tool:      "outlook_get_profile", input: `{}`,
		wantPath: "/graph.microsoft.com/v1.0/me",
	}}
	f := setupWith(t, sqliteDB, signInCatalog(t, fake), fake.srv)
	for _, c := range cases {
		addOAuthClient(t, f, c.connector)
	}
	for _, c := range cases {
		t.Run(c.connector, func(t *testing.T) {
			f.t = t
			runSignIn(t, f, fake, c)
		})
	}
	expireTokens(f)
	for _, c := range cases {
		if c.refresh != "" {
			t.Run(c.connector+"/refresh", func(t *testing.T) {
				f.t = t
				runRefresh(t, f, fake, c)
			})
		}
	}
}

// runSignIn signs a user in to c.connector through a connect link and
// makes the first tool call, checking each step against c.
func runSignIn(t *testing.T, f *fixture, fake *signInFake, c signInCase) {
	t.Helper()
	token := f.link(t, `{"userId":"u-`+c.connector+`","connectors":["`+c.connector+`"]}`)
	cfg := oauthConfigID(t, f, token)
	typed := c.typed
	if typed == "" {
		typed = "{}"
	}
	authURL, cookie := f.authorize(t, token, `{"authConfigId":"`+cfg+`","fields":`+typed+`}`)
	u, err := url.Parse(authURL)
	if err != nil || u.Path != c.authorize || !strings.HasPrefix(authURL, fake.srv.URL) {
		t.Fatalf("authorize URL %s, want path %s", authURL, c.authorize)
	}
	q := u.Query()
	if q.Get("client_id") != "cid" || q.Get("redirect_uri") != "http://sb.test/api/oauth/callback" || q.Get("state") == "" {
		t.Errorf("authorize URL client or redirect: %s", authURL)
	}
	for k, v := range c.params {
		if q.Get(k) != v {
			t.Errorf("authorize URL %s=%q, want %q", k, q.Get(k), v)
		}
	}
	for _, k := range c.noParams {
		if q.Has(k) {
			t.Errorf("authorize URL has %s=%q, which the provider does not take", k, q.Get(k))
		}
	}
	if (q.Get("code_challenge") != "") != c.pkce || c.pkce && q.Get("code_challenge_method") != "S256" {
		t.Errorf("authorize URL PKCE challenge %q (%s), want PKCE S256 %v", q.Get("code_challenge"), q.Get("code_challenge_method"), c.pkce)
	}
	fake.mu.Lock()
	if c.pkce {
		fake.challenges["code-"+c.connector] = q.Get("code_challenge")
	}
	fake.mu.Unlock()

	before := fake.count()
	r := f.do(f.h, "GET", "/api/oauth/callback?code=code-"+c.connector+"&state="+url.QueryEscape(q.Get("state"))+c.redirect, "", "", "Cookie", cookie)
	if r.status != 200 || !strings.Contains(string(r.body), "is connected") {
		t.Fatalf("callback: %d %s", r.status, r.body)
	}
	calls := fake.since(before)
	if len(calls) < 1 {
		t.Fatal("no call after the callback")
	}
	isToken := strings.HasSuffix(calls[0].Path, "token") || strings.HasSuffix(calls[0].Path, "bearer")
	if c.token != "" {
		isToken = calls[0].Path == c.token
	}
	if calls[0].Method != "POST" || !isToken {
		t.Fatalf("first call after the callback is not the token exchange %s: %+v", c.token, calls)
	}
	if c.extraCall != "" {
		auth := calls[min(1, len(calls)-1)].Header.Get("Authorization")
		if len(calls) < 2 || calls[1].Method != "GET" || calls[1].Path != c.extraCall ||
			c.extraAuth == "" && !strings.HasPrefix(auth, "Bearer at-") || c.extraAuth != "" && auth != c.extraAuth {
			t.Fatalf("the call after the token exchange: %+v", calls[1:])
		}
	}
	if c.identity != "" && (len(calls) == 0 || calls[len(calls)-1].Path != c.identity) {
		t.Errorf("the identity call: %+v, want %s", calls[len(calls)-1], c.identity)
	}

	conns, _ := f.store.ListConnections(context.Background(), f.project.ID, "u-"+c.connector)
	if len(conns) != 1 {
		t.Fatalf("%d accounts stored", len(conns))
	}
	cred, err := f.srv.accounts.Open(conns[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(cred.Connection) != len(c.stored) {
		t.Errorf("stored fields %v, want %v", cred.Connection, c.stored)
	}
	for k, v := range c.stored {
		if cred.Connection[k] != v {
			t.Errorf("stored field %s=%q, want %q (all: %v)", k, cred.Connection[k], v, cred.Connection)
		}
	}

	before = fake.count()
	if st, _, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"`+c.tool+`","userId":"u-`+c.connector+`","input":`+c.input+`}`); st != 200 {
		t.Fatalf("first tool call: %d %s", st, raw)
	}
	calls = fake.since(before)
	if len(calls) != 1 || calls[0].Path != c.wantPath {
		t.Fatalf("first tool call reached %+v, want %s", calls, c.wantPath)
	}
	for k, v := range c.wantHdr {
		if calls[0].Header.Get(k) != v[0] {
			t.Errorf("first tool call header %s=%q, want %q", k, calls[0].Header.Get(k), v[0])
		}
	}
}

// runRefresh makes c's tool call again once its access token has expired
// (the caller moved the clock): the executor refreshes the token at
// c.refresh first (the fake checks the request the provider documents),
// then calls with the new token, and the account keeps what the refresh
// answer named.
func runRefresh(t *testing.T, f *fixture, fake *signInFake, c signInCase) {
	t.Helper()
	before := fake.count()
	if st, _, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"`+c.tool+`","userId":"u-`+c.connector+`","input":`+c.input+`}`); st != 200 {
		t.Fatalf("tool call after expiry: %d %s", st, raw)
	}
	calls := fake.since(before)
	if len(calls) != 2 || calls[0].Method != "POST" || calls[0].Path != c.refresh {
		t.Fatalf("the call after expiry did not refresh at %s first: %+v", c.refresh, calls)
	}
	want := c.refreshedPath
	if want == "" {
		want = c.wantPath
	}
	token := calls[1].Header.Get("Authorization") + calls[1].Header.Get("X-Shopify-Access-Token")
	if calls[1].Path != want || !strings.HasSuffix(token, "-2") {
		t.Errorf("the call after the refresh: %s with %q, want %s with the new token", calls[1].Path, token, want)
	}
	conns, _ := f.store.ListConnections(context.Background(), f.project.ID, "u-"+c.connector)
	cred, err := f.srv.accounts.Open(conns[0])
	if err != nil {
		t.Fatal(err)
	}
	stored := c.refreshedStored
	if stored == nil {
		stored = c.stored
	}
	if !strings.HasSuffix(cred.AccessToken, "-2") || len(cred.Connection) != len(stored) {
		t.Errorf("after the refresh the account keeps fields %v, want %v", cred.Connection, stored)
	}
	for k, v := range stored {
		if cred.Connection[k] != v {
			t.Errorf("after the refresh stored field %s=%q, want %q", k, cred.Connection[k], v)
		}
	}
}

// expireTokens moves the fixture's clock past the expiry of every token
// the fake gave: x/oauth2 computes an expiry from expires_in with the real
// clock, the executor compares it with the fixture's.
func expireTokens(f *fixture) {
	f.clock.Advance(time.Since(f.clock.Now()) + 2*time.Hour)
}

// TestConnect_SignInWithoutAccountValues_StoresNothing: a sign-in whose
// provider does not name the account (no realmId on the redirect, no
// granted site matching the one typed, no organisation among the tenants,
// a Salesforce instance_url that is not a host name)
// answers a page that says what to do, and stores nothing.
func TestConnect_SignInWithoutAccountValues_StoresNothing(t *testing.T) {
	t.Parallel()
	fake := newSignInFake(t)
	fake.tenants = `[{"tenantId":"00000000-0000-0000-0000-00000000000a","tenantType":"PRACTICE"}]`
	fake.instanceURL = "https://acme.my.salesforce.com.evil.example:8443/x"
	f := setupWith(t, sqliteDB, signInCatalog(t, fake), fake.srv)
	for _, id := range []string{"quickbooks", "jira", "xero", "salesforce"} {
		addOAuthClient(t, f, id)
	}
	for _, c := range []struct{ connector, typed, redirect, want string }{
		{"quickbooks", `{}`, "", "did not send the Company ID (realm ID)"},
		{"quickbooks", `{}`, "&realmId=not-a-number", "does not recognise"},
		{"jira", `{"site":"nope"}`, "", "matches what you typed (https://nope.atlassian.net)"},
		{"xero", `{}`, "", "access to no Xero account it can act on"},
		{"salesforce", `{}`, "", "sent a Salesforce instance host with the token that Switchboard does not recognise"},
	} {
		token := f.link(t, `{"userId":"ann","connectors":["`+c.connector+`"]}`)
		authURL, cookie := f.authorize(t, token, `{"authConfigId":"`+oauthConfigID(t, f, token)+`","fields":`+c.typed+`}`)
		u, _ := url.Parse(authURL)
		fake.mu.Lock()
		fake.challenges["code-x"] = u.Query().Get("code_challenge")
		if u.Query().Get("code_challenge") == "" {
			delete(fake.challenges, "code-x")
		}
		fake.mu.Unlock()
		r := f.do(f.h, "GET", "/api/oauth/callback?code=code-x&state="+url.QueryEscape(u.Query().Get("state"))+c.redirect, "", "", "Cookie", cookie)
		if r.status != 400 || !strings.Contains(string(r.body), c.want) || strings.Contains(string(r.body), "at-") {
			t.Errorf("%s %s: callback %d %s", c.connector, c.redirect, r.status, r.body)
		}
		if conns, _ := f.store.ListConnections(context.Background(), f.project.ID, "ann"); len(conns) != 0 {
			t.Errorf("%s: %d accounts stored", c.connector, len(conns))
		}
	}
}

// TestConnect_SignInFieldsOnThePage: the page asks only for what the user
// must type: nothing for QuickBooks OAuth (the realmId comes with the
// redirect), an optional site for Atlassian OAuth, the site for API tokens.
func TestConnect_SignInFieldsOnThePage(t *testing.T) {
	t.Parallel()
	fake := newSignInFake(t)
	f := setupWith(t, sqliteDB, signInCatalog(t, fake), fake.srv)
	addOAuthClient(t, f, "quickbooks")
	addOAuthClient(t, f, "jira")
	token := f.link(t, `{"userId":"ann","connectors":["quickbooks","jira"]}`)
	_, m, raw := f.page("GET", "/api/connect/"+token, "")
	got := map[string]string{}
	for _, c := range dataOf(m)["connectors"].([]any) {
		c := c.(map[string]any)
		for _, ac := range c["authConfigs"].([]any) {
			ac := ac.(map[string]any)
			var names []string
			for _, fl := range ac["fields"].([]any) {
				fl := fl.(map[string]any)
				n := fl["name"].(string)
				if fl["optional"] == true {
					n += "?"
				}
				names = append(names, n)
			}
			got[c["id"].(string)+"/"+ac["type"].(string)] = strings.Join(names, ",")
		}
	}
	want := map[string]string{"quickbooks/oauth2": "", "jira/oauth2": "site?", "jira/basic": "username,password,site"}
	for k, v := range want {
		if g, ok := got[k]; !ok || g != v {
			t.Errorf("%s fields %q, want %q (view %s)", k, g, v, raw)
		}
	}
}

// addOAuthClient gives the project an OAuth client for the connector.
func addOAuthClient(t *testing.T, f *fixture, connector string) {
	t.Helper()
	id := store.NewID()
	sealed, err := f.srv.accounts.SealClientSecret(id, "csecret")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.CreateAuthConfig(context.Background(), store.AuthConfig{ID: id, ProjectID: f.project.ID, ConnectorID: connector,
		Key: connector + "_oauth", AuthMethodID: "oauth2", AuthType: "oauth2", ClientID: "cid", ClientSecret: sealed}); err != nil {
		t.Fatal(err)
	}
}

// oauthConfigID returns the id of the link's OAuth auth config.
func oauthConfigID(t *testing.T, f *fixture, token string) string {
	t.Helper()
	_, m, raw := f.page("GET", "/api/connect/"+token, "")
	for _, c := range dataOf(m)["connectors"].([]any) {
		for _, ac := range c.(map[string]any)["authConfigs"].([]any) {
			if ac := ac.(map[string]any); ac["type"] == "oauth2" {
				return ac["id"].(string)
			}
		}
	}
	t.Fatalf("no OAuth config offered: %s", raw)
	return ""
}
