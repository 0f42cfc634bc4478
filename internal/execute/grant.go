package execute

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"strings"
	"time"
	"unicode"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/jwt"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// assertionLifetime is how long a JWT bearer assertion is valid: short,
// since it only buys one token (Salesforce accepts at most three minutes).
const assertionLifetime = 2 * time.Minute

// unknownExpiry is how long a token whose answer gave no lifetime is used
// (a Salesforce session lasts at least this long); a 401 drops it sooner.
const unknownExpiry = 15 * time.Minute

// grantToken returns an access token for an account whose key the gateway
// trades for tokens itself: a JWT bearer grant (RFC 7523), a Google
// service account, a GitHub App installation (docs/auth-methods.md). The
// token is kept per account revision until shortly before it expires;
// concurrent callers share one token request.
func (e *Executor) grantToken(ctx context.Context, conn store.Connection, cred account.Credential, m *catalog.AuthMethod) (*oauth2.Token, error) {
	key := tokenKey(conn)
	if tok, ok := e.tokens.token(key, e.now()); ok {
		return tok, nil
	}
	if m.OAuth2 == nil {
		return nil, apierr.New(apierr.ConnectorUnavailable, "auth method %s has no token URL", m.ID)
	}
	v, err, _ := e.refresh.Do("grant:"+key, func() (any, error) {
		if tok, ok := e.tokens.token(key, e.now()); ok {
			return tok, nil
		}
		var tok *oauth2.Token
		var err error
		if m.Type == catalog.AuthGitHubApp {
			tok, err = e.installationToken(ctx, conn, cred, m)
		} else {
			tok, err = e.jwtBearerToken(ctx, conn, cred, m)
		}
		if err != nil {
			return nil, err
		}
		if tok.Expiry.IsZero() {
			tok.Expiry = e.now().Add(unknownExpiry)
		}
		e.tokens.put(key, tok)
		if m.Type == catalog.AuthServiceAccount {
			e.recordServiceAccountScopes(ctx, conn, m, tok)
		}
		return tok, nil
	})
	if err != nil {
		return nil, err
	}
	return v.(*oauth2.Token), nil
}

// recordServiceAccountScopes records what a service account's token
// grants, as a sign-in does for an OAuth account, so the scope check
// before a call holds for both: the answer's scope field, or, as Google
// usually sends none, the scopes the assertion asked for.
func (e *Executor) recordServiceAccountScopes(ctx context.Context, conn store.Connection, m *catalog.AuthMethod, tok *oauth2.Token) {
	granted, ok := account.GrantedScopes(tok.Extra("scope"))
	if !ok {
		granted = requestedGrantScopes(conn, m)
	}
	e.granted.put(conn, e.storeGranted(ctx, conn, granted))
}

// requestedGrantScopes are the scopes a signed assertion asks for: the
// account's, else its method's.
func requestedGrantScopes(conn store.Connection, m *catalog.AuthMethod) []string {
	if len(conn.Scopes) > 0 {
		return conn.Scopes
	}
	return m.OAuth2.Scopes
}

// jwtBearerToken signs an assertion with the account's key (RS256; iss the
// consumer key or service account e-mail, sub the user to act as, aud the
// method's audience or token URL) and trades it at the token URL.
func (e *Executor) jwtBearerToken(ctx context.Context, conn store.Connection, cred account.Credential, m *catalog.AuthMethod) (*oauth2.Token, error) {
	if !usableKey(cred.PrivateKey) {
		return nil, apierr.New(apierr.ExecutionError, "the private key of connection %s cannot be used; store the credential again", conn.ID)
	}
	tokenURL, err := catalog.OAuthURL(m.OAuth2.TokenURL, cred.Connection, m.OAuth2.AllowedHosts)
	if err != nil {
		return nil, grantURLError(conn, err)
	}
	audience := ""
	if m.OAuth2.Audience != "" {
		if audience, err = catalog.OAuthURL(m.OAuth2.Audience, cred.Connection, m.OAuth2.AllowedHosts); err != nil {
			return nil, grantURLError(conn, err)
		}
	}
	scopes := requestedGrantScopes(conn, m)
	conf := &jwt.Config{Email: cred.Issuer, Subject: cred.Subject, PrivateKey: []byte(cred.PrivateKey), PrivateKeyID: cred.PrivateKeyID,
		Scopes: scopes, TokenURL: tokenURL, Audience: audience, Expires: assertionLifetime}
	octx := context.WithValue(ctx, oauth2.HTTPClient, e.clientFor(conn.ConnectorID, strings.HasPrefix(tokenURL, "http:")))
	tok, err := conf.TokenSource(octx).Token()
	if err != nil {
		return nil, grantError(conn, m, err)
	}
	return tok, nil
}

// usableKey reports whether a stored PEM key still parses (it was checked
// when stored); x/oauth2's own parse error is not shown to callers.
func usableKey(s string) bool {
	block, _ := pem.Decode([]byte(s))
	if block == nil {
		return false
	}
	if _, err := x509.ParsePKCS8PrivateKey(block.Bytes); err == nil {
		return true
	}
	_, err := x509.ParsePKCS1PrivateKey(block.Bytes)
	return err == nil
}

func grantURLError(conn store.Connection, err error) error {
	var ue *catalog.OAuthURLError
	switch {
	case !errors.As(err, &ue):
		return err
	case ue.Field != "":
		return apierr.New(apierr.ExecutionError, "connection %s has no %s, which its token URL needs; store the credential again with it", conn.ID, ue.Field)
	}
	return apierr.New(apierr.ExecutionError, "connection %s's token URL is on %s, which its auth method does not allow; store the credential again with an allowed host", conn.ID, ue.Host)
}

// grantHints say what to check when a provider refuses a signed assertion.
var grantHints = map[string]string{
	catalog.AuthServiceAccount: "check that the service account and its key still exist, that the API is enabled in its project, and, when a subject is set, that a Workspace admin granted the service account's client id domain-wide delegation for these scopes",
	catalog.AuthJWTBearer:      "check that the connected app holds the certificate of this key, that the user is pre-authorized for the app (admin approved users), and that the login host fits the org (login for production, test for a sandbox)",
	catalog.AuthGitHubApp:      "check the app id, that the private key is one of the app's current keys, and that the app is still installed with this installation id",
}

// grantError maps a failed token request: a refusal (4xx) is 400
// EXECUTION_ERROR with the provider's error code and what to check, as for
// client credentials; anything else is 502 UPSTREAM_ERROR. The assertion
// and the key are never part of the message.
func grantError(conn store.Connection, m *catalog.AuthMethod, err error) error {
	var re *oauth2.RetrieveError
	if !errors.As(err, &re) || re.Response == nil {
		return apierr.New(apierr.UpstreamError, "the provider's token endpoint could not be reached for connection %s; try again", conn.ID)
	}
	if re.Response.StatusCode >= 500 {
		return &apierr.Error{Code: apierr.UpstreamError, Upstream: &apierr.Upstream{Status: re.Response.StatusCode},
			Message: "the provider's token endpoint failed for connection " + conn.ID + "; try again"}
	}
	return apierr.New(apierr.ExecutionError, "the provider refused the signed assertion of connection %s%s; %s", conn.ID, providerReason(re), grantHints[m.Type])
}

// providerReason quotes a token endpoint's error code and description
// ({"error": "invalid_grant", "error_description": "…"}, or GitHub's
// {"message": "…"}), short and printable.
func providerReason(re *oauth2.RetrieveError) string {
	var body struct {
		Error       string `json:"error"`
		Description string `json:"error_description"`
		Message     string `json:"message"`
	}
	_ = json.Unmarshal(re.Body, &body)
	code, desc := body.Error, body.Description
	if code == "" {
		code = re.ErrorCode
	}
	if desc == "" {
		desc = body.Message
	}
	parts := make([]string, 0, 2)
	for _, s := range []string{code, desc} {
		if s = printable(s, 160); s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (" + strings.Join(parts, ": ") + ")"
}

func printable(s string, n int) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsPrint(r) {
			return r
		}
		return -1
	}, s)
	if r := []rune(s); len(r) > n {
		s = string(r[:n]) + "…"
	}
	return strings.TrimSpace(s)
}

// fieldsFromGrant fills the connection fields that a JWT bearer token
// answer supplies (fromToken: Salesforce names the org's instance_url
// there, which becomes the account's base URL). The token is the one the
// call then sends, so this costs a token request only when none is cached.
func (e *Executor) fieldsFromGrant(ctx context.Context, conn store.Connection, cred account.Credential, con *catalog.Connector, m *catalog.AuthMethod) (account.Credential, error) {
	if m.Type != catalog.AuthJWTBearer && m.Type != catalog.AuthServiceAccount {
		return cred, nil
	}
	var tok *oauth2.Token
	for _, f := range con.ConnectionFields {
		if f.FromToken == "" || !f.UsedBy(m.ID) {
			continue
		}
		if tok == nil {
			var err error
			if tok, err = e.grantToken(ctx, conn, cred, m); err != nil {
				return cred, err
			}
		}
		v, _ := tok.Extra(f.FromToken).(string)
		v = strings.TrimPrefix(strings.TrimPrefix(v, "https://"), "http://")
		if v == "" || !f.Matches(v) {
			return cred, apierr.New(apierr.UpstreamError, "the token answer for connection %s has no usable %s, which its requests need; try again", conn.ID, f.FromToken)
		}
		if cred.Connection[f.Name] == v {
			continue
		}
		// The stored credential's map is shared with the resolution cache.
		fields := make(map[string]string, len(cred.Connection)+1)
		for k, x := range cred.Connection {
			fields[k] = x
		}
		fields[f.Name] = v
		cred.Connection = fields
	}
	return cred, nil
}
