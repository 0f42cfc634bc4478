package mcpauth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// CookiePrefix names the cookie that binds a sign-in to the browser that
// started it: CookiePrefix + the grant id, path /oauth/.
const CookiePrefix = "sb_mcp_signin_"

// challengePattern is an S256 code challenge: 43 base64url characters.
var challengePattern = regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`)

// Start is where the authorization endpoint sends the browser.
type Start struct {
	// Redirect is the URL to send the browser to: the project's handoff,
	// or the client's redirect URI with an error.
	Redirect string
	// GrantID and Cookie, when set, are the browser binding to set.
	GrantID, Cookie string
}

// Authorize handles GET /oauth/authorize. An unknown client or a redirect
// URI that is not exactly one the client registered is an *Error to show
// on our page (never a redirect); any other problem goes back to the
// client's redirect URI (RFC 6749 4.1.2.1).
func (s *Service) Authorize(ctx context.Context, q url.Values) (Start, *Error) {
	c, err := s.store.OAuthClientByID(ctx, q.Get("client_id"))
	if errors.Is(err, store.ErrNotFound) || q.Get("client_id") == "" {
		return Start{}, invalidRequest("unknown client_id: register the client first (dynamic client registration)")
	}
	if err != nil {
		return Start{}, oauthErr(http.StatusInternalServerError, "server_error", "the client could not be read")
	}
	redirect := q.Get("redirect_uri")
	if redirect == "" {
		return Start{}, invalidRequest("redirect_uri is required")
	}
	if !slices.Contains(c.RedirectURIs, redirect) {
		return Start{}, invalidRequest("redirect_uri is not one the client registered (it must match exactly)")
	}
	fail := func(code, desc string) (Start, *Error) {
		return Start{Redirect: s.errorRedirect(redirect, q.Get("state"), code, desc)}, nil
	}
	if q.Get("response_type") != "code" {
		return fail("unsupported_response_type", "response_type must be code")
	}
	if q.Get("code_challenge") == "" {
		return fail("invalid_request", "PKCE is required: send code_challenge and code_challenge_method=S256")
	}
	if q.Get("code_challenge_method") != "S256" {
		return fail("invalid_request", "code_challenge_method must be S256 (plain is not accepted)")
	}
	if !challengePattern.MatchString(q.Get("code_challenge")) {
		return fail("invalid_request", "code_challenge must be the base64url SHA-256 of the verifier (43 characters)")
	}
	if sc := q.Get("scope"); sc != "" && sc != Scope {
		for _, part := range strings.Fields(sc) {
			if part != Scope {
				return fail("invalid_scope", "the only scope is mcp")
			}
		}
	}
	resource := q.Get("resource")
	if resource == "" {
		return fail("invalid_target", "resource is required: name the MCP endpoint URL (RFC 8707)")
	}
	slug := s.endpointOfResource(resource)
	e, err := s.store.EndpointBySlug(ctx, slug)
	if slug == "" || errors.Is(err, store.ErrNotFound) || (err == nil && e.Auth != store.AuthOAuth) {
		return fail("invalid_target", "resource is not the URL of an MCP endpoint that accepts OAuth sign-in")
	}
	if err != nil {
		return fail("server_error", "the endpoint could not be read")
	}
	id, err := identityOf(e)
	if err != nil {
		return fail("server_error", "the endpoint's sign-in is not configured")
	}
	var provider *oidcProvider
	if id.Kind == KindOIDC {
		if provider, err = s.discover(ctx, id.Issuer); err != nil {
			return fail("temporarily_unavailable", "the project's sign-in provider could not be reached; try again")
		}
	}
	nonce, cookie := newSecret(""), newSecret("")
	g, err := s.store.CreateOAuthGrant(ctx, store.OAuthGrant{ClientID: c.ID, EndpointID: e.ID, Resource: strings.TrimSuffix(resource, "/"),
		RedirectURI: redirect, State: q.Get("state"), Scope: Scope, CodeChallenge: q.Get("code_challenge"),
		NonceHash: hash(nonce), BrowserHash: hash(cookie), ExpiresAt: s.now().Add(RequestTTL)})
	if err != nil {
		return fail("server_error", "the sign-in could not be stored")
	}
	if provider != nil {
		return Start{Redirect: s.oidcAuthURL(id, provider, g.ID, nonce, cookie), GrantID: g.ID, Cookie: cookie}, nil
	}
	to, _ := url.Parse(id.HandoffURL)
	hq := to.Query()
	hq.Set("sb_request", g.ID)
	hq.Set("nonce", nonce)
	hq.Set("return_to", s.baseURL+PathHandoff)
	to.RawQuery = hq.Encode()
	return Start{Redirect: to.String(), GrantID: g.ID, Cookie: cookie}, nil
}

func (s *Service) errorRedirect(redirect, state, code, desc string) string {
	u, _ := url.Parse(redirect)
	q := u.Query()
	q.Set("error", code)
	q.Set("error_description", desc)
	if state != "" {
		q.Set("state", state)
	}
	q.Set("iss", s.baseURL)
	u.RawQuery = q.Encode()
	return u.String()
}

// Pending is a sign-in between the authorization endpoint and its code.
type Pending struct {
	Grant    store.OAuthGrant
	Client   store.OAuthClient
	Endpoint store.Endpoint
}

var errSignInGone = oauthErr(http.StatusBadRequest, "invalid_request", "this sign-in is unknown, expired or finished, or was started in another browser: start again from the MCP client")

// pending loads a grant by id for the browser holding cookie.
func (s *Service) pending(ctx context.Context, grantID, cookie string) (Pending, *Error) {
	g, err := s.store.OAuthGrantByID(ctx, grantID)
	if err != nil || cookie == "" || hash(cookie) != g.BrowserHash || g.HasCode || !s.now().Before(g.ExpiresAt) {
		return Pending{}, errSignInGone
	}
	c, err := s.store.OAuthClientByID(ctx, g.ClientID)
	if err != nil {
		return Pending{}, errSignInGone
	}
	e, err := s.store.EndpointByID(ctx, g.EndpointID)
	if err != nil || e.Auth != store.AuthOAuth {
		return Pending{}, errSignInGone
	}
	return Pending{Grant: g, Client: c, Endpoint: e}, nil
}

// Handoff takes the project's assertion back (GET /oauth/handoff): it
// checks it and records the user the sign-in is for.
func (s *Service) Handoff(ctx context.Context, grantID, cookie, assertion string) *Error {
	p, e := s.pending(ctx, grantID, cookie)
	if e != nil {
		return e
	}
	if p.Grant.UserID != "" {
		return errSignInGone
	}
	h, err := identityOf(p.Endpoint)
	if err != nil || h.Kind != KindHandoff {
		return oauthErr(http.StatusBadRequest, "invalid_request", "this endpoint does not sign users in by handoff")
	}
	if assertion == "" {
		return invalidRequest("the project's app sent no assertion")
	}
	user, err := s.verifyAssertion(ctx, p.Endpoint, h, assertion, p.Grant.NonceHash)
	if err != nil {
		return oauthErr(http.StatusBadRequest, "access_denied", err.Error())
	}
	if err := s.store.SetOAuthGrantUser(ctx, grantID, user); err != nil {
		return errSignInGone
	}
	return nil
}

// Consent returns a signed-in sign-in awaiting the user's decision.
func (s *Service) Consent(ctx context.Context, grantID, cookie string) (Pending, *Error) {
	p, e := s.pending(ctx, grantID, cookie)
	if e == nil && p.Grant.UserID == "" {
		return Pending{}, errSignInGone
	}
	return p, e
}

// Decide records the user's decision and returns where the browser goes:
// the client's redirect URI with a code, or with access_denied.
func (s *Service) Decide(ctx context.Context, grantID, cookie string, approve bool) (string, *Error) {
	p, e := s.Consent(ctx, grantID, cookie)
	if e != nil {
		return "", e
	}
	g := p.Grant
	if !approve {
		_ = s.store.DeleteOAuthGrant(ctx, g.ID)
		return s.errorRedirect(g.RedirectURI, g.State, "access_denied", "the user denied access"), nil
	}
	code := newSecret("")
	if err := s.store.IssueOAuthCode(ctx, g.ID, hash(code), s.now().Add(CodeTTL)); err != nil {
		return "", errSignInGone
	}
	u, _ := url.Parse(g.RedirectURI)
	q := u.Query()
	q.Set("code", code)
	if g.State != "" {
		q.Set("state", g.State)
	}
	q.Set("iss", s.baseURL)
	u.RawQuery = q.Encode()
	return u.String(), nil
}
