package connect

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"golang.org/x/oauth2"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// AuthorizeRequest is the body of POST /api/connect/:token/authorize.
type AuthorizeRequest struct {
	AuthConfigID string
	Name         string
	ConnectionID string
	// Fields are the connection fields the user typed before signing in
	// (a GitLab host, an Okta domain, a Shopify shop).
	Fields map[string]any
}

// Authorization is a started OAuth sign-in: the provider URL to send the
// user to, and the cookie to set in the user's browser, which the callback
// requires.
type Authorization struct {
	URL    string
	Cookie *http.Cookie
}

// Authorize starts an OAuth authorization code flow. The state is random,
// stored hashed and single use, and bound to the browser by a cookie; PKCE
// is used where the provider supports it.
func (p *Page) Authorize(ctx context.Context, token string, r AuthorizeRequest) (Authorization, error) {
	fail := func(err error) (Authorization, error) { return Authorization{}, err }
	l, err := p.active(ctx, token)
	if err != nil {
		return fail(err)
	}
	t, err := p.tenant(ctx, l)
	if err != nil {
		return fail(err)
	}
	if r.ConnectionID, err = linkAccount(l, r.ConnectionID); err != nil {
		return fail(err)
	}
	if r.AuthConfigID == "" {
		return fail(apierr.Validation(apierr.Issue{Code: apierr.IssueRequired, Path: []any{"authConfigId"}, Message: "is required"}))
	}
	ac, c, m, err := p.config(ctx, t, l, r.AuthConfigID)
	if err != nil {
		return fail(err)
	}
	if m.Type != catalog.AuthOAuth2 {
		return fail(apierr.Validation(apierr.Issue{Code: apierr.IssueInvalidValue, Path: []any{"authConfigId"},
			Message: "this auth config takes fields: send them with POST …/accounts"}))
	}
	if ac.ClientID == "" {
		return fail(apierr.New(apierr.ConnectorUnavailable, "%s has no OAuth client configured in this project", c.ID))
	}
	r.ConnectionID = p.reconnectTarget(ctx, l, ac, r)
	if r.ConnectionID != "" {
		if _, err := p.ownAccount(ctx, l, r.ConnectionID, c.ID); err != nil {
			return fail(err)
		}
	}
	if r.Name != "" {
		conns, err := p.Store.ConnectorConnections(ctx, l.ProjectID, l.UserID, c.ID)
		if err != nil {
			return fail(err)
		}
		if slices.ContainsFunc(conns, func(x store.Connection) bool { return !x.Global && x.Name == r.Name }) {
			return fail(apierr.New(apierr.NameTaken, "you already have a %s account named %q", c.Name, r.Name))
		}
	}
	fields, err := oauthFields(c, m, r.Fields)
	if err != nil {
		return fail(err)
	}
	// Both URLs are checked now, so a host the client secret may not go to
	// is refused before the user signs in, not after.
	endpoint, err := oauthEndpoint(c, ac, m, fields)
	if err != nil {
		return fail(err)
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return fail(err)
	}
	state := base64.RawURLEncoding.EncodeToString(raw[:])
	nonce, browserHash, err := newBrowserNonce()
	if err != nil {
		return fail(err)
	}
	scopes, opts, err := p.signInScopes(ctx, t, l, c, m, ac, r.ConnectionID)
	if err != nil {
		return fail(err)
	}
	st := store.OAuthState{ID: store.NewID(), StateHash: apikey.Hash(state), LinkID: l.ID, AuthConfigID: ac.ID,
		ConnectionID: r.ConnectionID, Name: r.Name, ExpiresAt: p.Now().Add(stateTTL), Fields: fields, BrowserHash: browserHash,
		Scopes: scopes}
	conf := p.oauthConfig(ac, m, endpoint, "", scopes)
	for k, v := range m.OAuth2.AuthorizeParams {
		opts = append(opts, oauth2.SetAuthURLParam(k, v))
	}
	if m.OAuth2.Resource != "" {
		// RFC 8707: the token is asked for this one server.
		opts = append(opts, oauth2.SetAuthURLParam("resource", m.OAuth2.Resource))
	}
	if m.OAuth2.PKCE {
		verifier := oauth2.GenerateVerifier()
		if st.Verifier, err = p.Keyring.Seal([]byte(verifier), secret.AAD("oauth_state.verifier", st.ID)); err != nil {
			return fail(err)
		}
		opts = append(opts, oauth2.S256ChallengeOption(verifier))
	}
	if err := p.Store.CreateOAuthState(ctx, st); err != nil {
		return fail(err)
	}
	authURL := conf.AuthCodeURL(state, opts...)
	sep, param := m.OAuth2.ScopeSeparator, m.OAuth2.ScopeParam
	if len(conf.Scopes) > 0 && (sep != "" && sep != " " || param != "" && param != "scope") {
		if sep == "" {
			sep = " "
		}
		u, _ := url.Parse(authURL)
		q := u.Query()
		q.Del("scope")
		q.Set(cmp.Or(param, "scope"), strings.Join(conf.Scopes, sep))
		u.RawQuery = q.Encode()
		authURL = u.String()
	}
	return Authorization{URL: authURL, Cookie: p.browserCookie(state, nonce, int(stateTTL/time.Second))}, nil
}

// oauthConfig is the client of an auth config; endpoint holds the
// method's URLs filled for the account (oauthEndpoint), scopes what the
// sign-in asks for (signInScopes).
func (p *Page) oauthConfig(ac store.AuthConfig, m *catalog.AuthMethod, endpoint oauth2.Endpoint, clientSecret string, scopes []string) *oauth2.Config {
	endpoint.AuthStyle = oauth2.AuthStyleInHeader
	if m.OAuth2.TokenAuthStyle == "body" {
		endpoint.AuthStyle = oauth2.AuthStyleInParams
	}
	return &oauth2.Config{ClientID: ac.ClientID, ClientSecret: clientSecret, Scopes: scopes, RedirectURL: p.BaseURL + CallbackPath,
		Endpoint: endpoint}
}

// CallbackResult is what the callback page shows.
type CallbackResult struct {
	OK          bool
	Message     string
	Connector   string
	Connection  *account.PublicView
	RedirectURL string
}

// Callback completes an OAuth flow: it consumes the state, checks that the
// browser is the one that started it (browserNonce is the value of its
// BrowserCookieName cookie), exchanges the code, stores the tokens sealed,
// labels the account, and uses the link. A provider error, a bad or
// replayed state, or another browser changes nothing.
func (p *Page) Callback(ctx context.Context, q url.Values, browserNonce string) CallbackResult {
	fail := func(msg string) CallbackResult { return CallbackResult{Message: msg} }
	if q.Get("state") == "" {
		return fail("This sign-in is not valid: it carries no state. Start again from your connect link.")
	}
	st, err := p.Store.TakeOAuthState(ctx, apikey.Hash(q.Get("state")))
	if err != nil {
		return fail("This sign-in has expired or was already completed. Start again from your connect link.")
	}
	// Checked before anything else, even the provider's error: a callback
	// from another browser learns nothing and spends the state.
	if !sameBrowser(browserNonce, st.BrowserHash) {
		p.Logger.InfoContext(ctx, "an OAuth callback came from a browser that did not start the sign-in; nothing is stored", "link_id", st.LinkID)
		return fail("This sign-in was started in another browser (or this browser does not keep cookies), so it cannot be completed here. " +
			"Open your connect link in this browser and start again.")
	}
	l, err := p.Store.ConnectLinkByID(ctx, st.LinkID)
	if err != nil {
		return fail("The connect link of this sign-in no longer exists.")
	}
	t, err := p.tenant(ctx, l)
	if err != nil {
		p.Logger.ErrorContext(ctx, "cannot load the project of an OAuth callback", "link_id", l.ID, "error", err.Error())
		return fail("The sign-in could not be completed; start again from your connect link.")
	}
	redirect := func(r CallbackResult) CallbackResult {
		if l.RedirectURL != "" {
			u, _ := url.Parse(l.RedirectURL)
			qq := u.Query()
			if r.OK {
				qq.Set("status", "success")
				qq.Set("connectionId", r.Connection.ID)
			} else {
				qq.Set("status", "error")
			}
			u.RawQuery = qq.Encode()
			r.RedirectURL = u.String()
		}
		return r
	}
	if e := q.Get("error"); e != "" {
		msg := "The provider did not grant access"
		if e == "access_denied" {
			msg = "You declined access, so nothing was connected"
		}
		return redirect(fail(msg + ". You can start again from your connect link."))
	}
	if l.UsedAt != nil || !p.Now().Before(l.ExpiresAt) {
		return fail("This connect link was already used or has expired. Ask for a new link.")
	}
	ac, err := p.Store.GetAuthConfig(ctx, l.ProjectID, st.AuthConfigID)
	if err != nil {
		return fail("The sign-in's configuration was removed.")
	}
	c, ok := t.Catalog.Connector(ac.ConnectorID)
	if !ok {
		return fail("This application is no longer available.")
	}
	m := c.AuthMethod(ac.AuthMethodID)
	if m == nil || m.OAuth2 == nil {
		return fail("This application's sign-in method is no longer available.")
	}
	// The token URL is filled and checked again: the operator may have
	// changed the auth config's hosts since the sign-in started.
	endpoint, err := oauthEndpoint(c, ac, m, st.Fields)
	if err != nil {
		p.Logger.WarnContext(ctx, "an OAuth callback's host is no longer allowed; nothing is exchanged", "connector", c.ID)
		return fail("The address this sign-in started with is no longer allowed for " + c.Name + ". Start again from your connect link.")
	}
	clientSecret, err := p.Accounts.ClientSecret(ac)
	if err != nil {
		return fail("The application's OAuth client cannot be read on the server; tell the service's administrator.")
	}
	var opts []oauth2.AuthCodeOption
	if len(st.Verifier) > 0 {
		v, err := p.Keyring.Open(st.Verifier, secret.AAD("oauth_state.verifier", st.ID))
		if err != nil {
			return fail("This sign-in cannot be completed on the server; start again.")
		}
		opts = append(opts, oauth2.VerifierOption(string(v)))
	}
	if m.OAuth2.TokenScope && len(st.Scopes) > 0 {
		sep := m.OAuth2.ScopeSeparator
		if sep == "" {
			sep = " "
		}
		opts = append(opts, oauth2.SetAuthURLParam("scope", strings.Join(st.Scopes, sep)))
	}
	octx := context.WithValue(ctx, oauth2.HTTPClient, p.Guard.Connector(c.ID).Client())
	// The exchange goes as the provider documents it (a JSON body for Square).
	xctx := context.WithValue(ctx, oauth2.HTTPClient, account.TokenClient(p.Guard.Connector(c.ID).Client(), m.OAuth2))
	tok, err := p.oauthConfig(ac, m, endpoint, clientSecret, st.Scopes).Exchange(xctx, q.Get("code"), opts...)
	if err != nil {
		p.Logger.WarnContext(ctx, "OAuth code exchange failed", "connector", c.ID)
		return redirect(fail("The provider refused the sign-in. Start again from your connect link."))
	}
	// Values the provider hands over beside the token (Intuit's realmId on
	// the redirect, an Atlassian cloud id from a call made with the new
	// token) are read before anything is stored: without them every call
	// of the account would fail.
	extra, err := p.flowFields(octx, c, m, q, tok.AccessToken, st.Fields)
	if err != nil {
		var fe *flowError
		if !errors.As(err, &fe) {
			p.Logger.WarnContext(ctx, "reading an OAuth sign-in's account values failed", "connector", c.ID, "error", err.Error())
			return redirect(fail("The sign-in succeeded, but " + c.Name + " could not be asked which account it grants. Start again from your connect link."))
		}
		p.Logger.InfoContext(ctx, "an OAuth sign-in gave no usable account values; nothing is stored", "connector", c.ID, "reason", fe.msg)
		return redirect(fail(fe.msg))
	}
	// The token response itself may name the account's host (Salesforce's
	// instance_url); tokenFields answers only *flowError.
	fromToken, err := tokenFields(c, tok.Extra)
	if err != nil {
		p.Logger.InfoContext(ctx, "an OAuth token response gave no usable account values; nothing is stored", "connector", c.ID, "reason", err.Error())
		return redirect(fail(err.Error()))
	}
	cred := map[string]any{"type": "oauth2", "accessToken": tok.AccessToken}
	// What the provider granted, which may be less than what was asked
	// for: a tool needing a scope the user declined is refused before any
	// provider call (execute.MissingScopesError).
	if granted := grantedScopes(tok, st.Scopes); len(granted) > 0 {
		cred["scopes"] = granted
	}
	if tok.RefreshToken != "" {
		cred["refreshToken"] = tok.RefreshToken
	}
	if exp := account.TokenExpiry(tok); !exp.IsZero() {
		cred["expiresAt"] = exp
	}
	for k, v := range st.Fields {
		cred[k] = v
	}
	for k, v := range extra {
		cred[k] = v
	}
	for k, v := range fromToken {
		cred[k] = v
	}
	raw, _ := json.Marshal(cred)
	var conn store.Connection
	if st.ConnectionID != "" {
		old, err := p.ownAccount(ctx, l, st.ConnectionID, c.ID)
		if err != nil {
			return fail("The account to reconnect no longer exists.")
		}
		// As on the accounts route, the link is used up in the same
		// transaction that stores the tokens.
		if _, err := p.Accounts.RotateThroughLink(ctx, t, l.ID, old.ID, raw, old.Revision); err != nil {
			if isLinkUsed(err) {
				return fail(linkUsedPage)
			}
			return fail("The new sign-in could not be stored; start again.")
		}
		conn, _ = p.Store.GetConnection(ctx, l.ProjectID, old.ID)
	} else {
		conn, err = p.Accounts.Create(ctx, t, account.CreateRequest{ConnectorID: c.ID, UserID: l.UserID, Credential: raw,
			AuthConfigKey: ac.Key, Name: st.Name, LinkID: l.ID})
		if isLinkUsed(err) {
			return fail(linkUsedPage)
		}
		if err != nil {
			return fail("The account could not be stored: " + publicMessage(err))
		}
	}
	p.label(ctx, t, conn)
	if c.OAuthMCP() && p.ToolsFunc != nil {
		// Such a server may list its tools only to a signed-in user: the
		// list is fetched with this user's new token. The account stays
		// connected when the listing fails; the next sign-in tries again.
		if err := p.ToolsFunc(ctx, l.ProjectID, c.ID, tok.AccessToken); err != nil {
			p.Logger.WarnContext(ctx, "listing an MCP server's tools with a new account's token failed", "connector", c.ID, "error", err.Error())
		}
	}
	conn, _ = p.Store.GetConnection(ctx, l.ProjectID, conn.ID)
	pv := account.Public(conn)
	return redirect(CallbackResult{OK: true, Message: c.Name + " is connected.", Connector: c.Name, Connection: &pv})
}

// linkUsedPage is the callback page's answer when the link was used
// meanwhile (another sign-in or account through it finished first).
const linkUsedPage = "This connect link was already used, so nothing was connected. Ask for a new link."

func isLinkUsed(err error) bool {
	e, ok := apierr.As(err)
	return ok && e.Code == apierr.LinkUsed
}

func publicMessage(err error) string {
	if e, ok := apierr.As(err); ok {
		return e.Message
	}
	return "an internal error occurred"
}
