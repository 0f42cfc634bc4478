package execute

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	v4 "github.com/aws/aws-sdk-go-v2/aws/signer/v4"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/telemetry"
)

// refreshMargin is how long before expiry a token is refreshed.
const refreshMargin = time.Minute

// leaseTTL bounds how long one replica may hold an account's refresh lease.
const leaseTTL = 30 * time.Second

// method returns the connector auth method a credential is for.
func method(con *catalog.Connector, cred account.Credential) *catalog.AuthMethod {
	if m := con.AuthMethod(cred.Method); m != nil {
		return m
	}
	for i := range con.AuthMethods {
		if con.AuthMethods[i].Type == cred.Type {
			return &con.AuthMethods[i]
		}
	}
	return nil
}

// place puts a secret value where a placement says.
func place(req *http.Request, p catalog.Placement, value string) {
	if p.Format != "" {
		value = strings.ReplaceAll(p.Format, "{value}", value)
	}
	if p.In == "query" {
		q := req.URL.Query()
		q.Set(p.Name, value)
		req.URL.RawQuery = q.Encode()
		return
	}
	req.Header.Set(p.Name, value)
}

var bearer = catalog.Placement{In: "header", Name: "Authorization", Format: "Bearer {value}"}

// authenticate adds the credential to req. For oauth2 it may refresh the
// token first and returns the credential it used.
func (e *Executor) authenticate(ctx context.Context, req *http.Request, body []byte, conn store.Connection,
	cred account.Credential, con *catalog.Connector) (account.Credential, error) {
	m := method(con, cred)
	if m == nil {
		return cred, apierr.New(apierr.ConnectorUnavailable, "connector %s no longer has the auth method of connection %s; reconnect it", con.ID, conn.ID)
	}
	switch cred.Type {
	case catalog.AuthAPIKey:
		p := bearer
		if m.APIKey != nil {
			p = *m.APIKey
		}
		place(req, p, cred.APIKey)
	case catalog.AuthBasic:
		req.SetBasicAuth(cred.Username, cred.Password)
	case catalog.AuthOAuth2:
		cred = e.fresh.newer(conn, cred)
		if needsRefresh(cred, e.now()) {
			var err error
			if cred, err = e.refreshToken(ctx, conn, cred, con, m, false); err != nil {
				return cred, err
			}
		}
		p := bearer
		if m.OAuth2 != nil && m.OAuth2.Placement != nil {
			p = *m.OAuth2.Placement
		}
		place(req, p, cred.AccessToken)
	case catalog.AuthOAuth2ClientCredentials:
		tok, err := e.clientCredentialsToken(ctx, conn, cred, m)
		if err != nil {
			return cred, err
		}
		place(req, bearer, tok)
	case catalog.AuthJWTBearer, catalog.AuthServiceAccount, catalog.AuthGitHubApp:
		tok, err := e.grantToken(ctx, conn, cred, m)
		if err != nil {
			return cred, err
		}
		p := bearer
		if m.OAuth2 != nil && m.OAuth2.Placement != nil {
			p = *m.OAuth2.Placement
		}
		place(req, p, tok.AccessToken)
	case catalog.AuthAWSIAM:
		region := cred.Region
		if region == "" {
			region = cred.Connection["region"]
		}
		if region == "" && m.AWS != nil {
			region = m.AWS.Region
		}
		sum := sha256.Sum256(body)
		hash := hex.EncodeToString(sum[:])
		req.Header.Set("X-Amz-Content-Sha256", hash)
		creds := aws.Credentials{AccessKeyID: cred.AccessKeyID, SecretAccessKey: cred.SecretAccessKey, SessionToken: cred.SessionToken}
		if err := v4.NewSigner().SignHTTP(ctx, creds, req, hash, m.AWS.Service, region, e.now()); err != nil {
			return cred, apierr.New(apierr.ExecutionError, "the request could not be signed for AWS")
		}
	case catalog.AuthCustom:
		for _, f := range m.Fields {
			if f.Placement != nil {
				place(req, *f.Placement, cred.Fields[f.Name])
			}
		}
	case catalog.AuthNone:
	}
	return cred, nil
}

func needsRefresh(c account.Credential, now time.Time) bool {
	return c.RefreshToken != "" && !c.Expiry.IsZero() && c.Expiry.Before(now.Add(refreshMargin))
}

// refreshToken returns a fresh access token for an oauth2 account. In this
// process concurrent callers share one refresh (singleflight); across
// replicas a lease in the database lets one replica refresh while the
// others wait and read the token it stored. force refreshes even a token
// that looks valid (the provider refused it).
func (e *Executor) refreshToken(ctx context.Context, conn store.Connection, cred account.Credential,
	con *catalog.Connector, m *catalog.AuthMethod, force bool) (account.Credential, error) {
	ctx, span := e.tracer.Start(ctx, "oauth.refresh")
	defer span.End()
	if span.IsRecording() {
		span.SetAttributes(attribute.String("switchboard.connector", telemetry.ConnectorLabel(con)), attribute.Bool("switchboard.forced", force))
	}
	stale := cred.AccessToken
	v, err, _ := e.refresh.Do(conn.ID, func() (any, error) {
		deadline := e.now().Add(leaseTTL)
		// current reads the stored account and reports whether it still
		// needs this refresh: not when another caller or replica refreshed
		// meanwhile.
		current := func() (store.Connection, account.Credential, bool, error) {
			c, err := e.store.GetConnection(ctx, conn.ProjectID, conn.ID)
			if err != nil {
				return c, account.Credential{}, false, err
			}
			if c.Status == store.StatusReauthRequired {
				return c, account.Credential{}, false, reauth(conn)
			}
			cur, err := e.accounts.Open(c)
			if err != nil {
				return c, cur, false, err
			}
			fieldDefaults(con, &cur)
			if cur.AccessToken != stale && !needsRefresh(cur, e.now()) {
				return c, cur, false, nil
			}
			return c, cur, force || needsRefresh(cur, e.now()), nil
		}
		for {
			c, cur, need, err := current()
			if err != nil || !need {
				return refreshed{cur, c.Scopes}, err
			}
			if e.beforeLease != nil {
				e.beforeLease()
			}
			got, err := e.store.AcquireRefreshLease(ctx, conn.ID, e.owner, leaseTTL)
			if err != nil {
				return nil, err
			}
			if got {
				defer func() { _ = e.store.ReleaseRefreshLease(context.WithoutCancel(ctx), conn.ID, e.owner) }()
				// Read again under the lease: the replica that held it may
				// have stored new tokens (and rotated the refresh token)
				// between the read above and this lease.
				c, cur, need, err := current()
				if err != nil || !need {
					return refreshed{cur, c.Scopes}, err
				}
				cred, scopes, err := e.doRefresh(ctx, c, cur, con, m)
				e.countRefresh(con, err)
				return refreshed{cred, scopes}, err
			}
			if e.now().After(deadline) {
				return nil, apierr.New(apierr.UpstreamError, "the token of connection %s is being refreshed elsewhere; try again", conn.ID)
			}
			select {
			case <-ctx.Done():
				return nil, ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
		}
	})
	if err != nil {
		if span.IsRecording() {
			span.SetStatus(codes.Error, telemetry.Outcome(err))
		}
		return cred, err
	}
	fresh := v.(refreshed)
	e.fresh.put(conn, fresh.cred)
	e.granted.put(conn, fresh.scopes)
	return fresh.cred, nil
}

// countRefresh counts one refresh this process attempted.
func (e *Executor) countRefresh(con *catalog.Connector, err error) {
	if e.metrics == nil {
		return
	}
	result := telemetry.RefreshOK
	if ae, ok := apierr.As(err); ok && ae.Code == apierr.ReauthRequired {
		result = telemetry.RefreshReauth
	} else if err != nil {
		result = telemetry.RefreshFailed
	}
	e.metrics.TokenRefresh(telemetry.ConnectorLabel(con), result)
}

// refreshed is what a refresh leaves: the credential and the scopes the
// account is granted.
type refreshed struct {
	cred   account.Credential
	scopes []string
}

func reauth(conn store.Connection) error {
	return apierr.New(apierr.ReauthRequired, "connection %s (%s) must be reconnected: the provider refused its authorization", conn.ID, conn.Name)
}

// doRefresh calls the token endpoint with the account's refresh token and
// stores the new tokens (and a rotated refresh token), and the granted
// scopes when the answer names them. It returns the scopes the account
// is granted after the refresh.
func (e *Executor) doRefresh(ctx context.Context, conn store.Connection, cred account.Credential, con *catalog.Connector, m *catalog.AuthMethod) (account.Credential, []string, error) {
	cred, granted, err := e.refreshCredential(ctx, conn, cred, con, m)
	if err != nil {
		return cred, conn.Scopes, err
	}
	return cred, e.storeGranted(ctx, conn, granted), nil
}

// storeGranted stores the scopes a token response granted when they
// differ from the account's (a refresh may narrow them, RFC 6749 section
// 6), and returns the account's scopes; nil granted (no scope field)
// keeps them.
func (e *Executor) storeGranted(ctx context.Context, conn store.Connection, granted []string) []string {
	if granted == nil || sameScopes(granted, conn.Scopes) {
		return conn.Scopes
	}
	if _, err := e.store.UpdateGrantedScopes(ctx, conn.ID, conn.Revision, granted); err != nil {
		// The token is good; the next refresh stores the scopes again.
		e.log.WarnContext(ctx, "could not store the scopes a token response granted", "connection_id", conn.ID, "error", err.Error())
	}
	return granted
}

// sameScopes reports whether two scope lists hold the same scopes, in any
// order.
func sameScopes(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, s := range a {
		if !slices.Contains(b, s) {
			return false
		}
	}
	return true
}

// refreshCredential sends the refresh request and stores the new tokens;
// it returns the scopes the answer granted, nil when it names none.
func (e *Executor) refreshCredential(ctx context.Context, conn store.Connection, cred account.Credential, con *catalog.Connector, m *catalog.AuthMethod) (account.Credential, []string, error) {
	if m.OAuth2 == nil || cred.RefreshToken == "" {
		return cred, nil, reauth(conn)
	}
	ac, err := e.store.GetAuthConfig(ctx, conn.ProjectID, conn.AuthConfigID)
	if err != nil {
		return cred, nil, err
	}
	if ac.ClientID == "" {
		return cred, nil, apierr.New(apierr.ConnectorUnavailable,
			"connection %s needs its OAuth token refreshed, but auth config %s has no OAuth client; an admin can add one with 'switchboard admin authconfig create'", conn.ID, ac.Key)
	}
	clientSecret, err := e.accounts.ClientSecret(ac)
	if err != nil {
		return cred, nil, err
	}
	// The project's client secret goes to the token URL: a host filled from
	// the account's fields must be one the auth config's client may be used
	// with, as at the Connect page's code exchange.
	// Some providers take refresh tokens at a URL of their own (Figma).
	refreshURL := m.OAuth2.TokenURL
	if m.OAuth2.RefreshURL != "" {
		refreshURL = m.OAuth2.RefreshURL
	}
	tokenURL, err := catalog.OAuthURL(refreshURL, cred.Connection, account.OAuthHosts(ac, m))
	if err != nil {
		return cred, nil, refreshURLError(conn, ac, m, err)
	}
	conf := &oauth2.Config{ClientID: ac.ClientID, ClientSecret: clientSecret, Endpoint: oauth2.Endpoint{
		TokenURL: tokenURL, AuthStyle: authStyle(m.OAuth2.TokenAuthStyle)}}
	octx := context.WithValue(ctx, oauth2.HTTPClient,
		account.TokenClient(e.clientFor(conn.ConnectorID, strings.HasPrefix(tokenURL, "http:")), m.OAuth2))
	tok, err := conf.TokenSource(octx, &oauth2.Token{RefreshToken: cred.RefreshToken}).Token()
	if err != nil {
		var re *oauth2.RetrieveError
		if errors.As(err, &re) && (re.ErrorCode == "invalid_grant" || re.Response != nil && re.Response.StatusCode == http.StatusUnauthorized) {
			if serr := e.store.SetConnectionStatus(ctx, conn.ID, conn.Revision, store.StatusReauthRequired); serr != nil {
				e.log.ErrorContext(ctx, "could not mark connection for reauthorization", "connection_id", conn.ID, "error", serr.Error())
			}
			return cred, nil, reauth(conn)
		}
		if !errors.As(err, &re) {
			// No answer at all: say why (certificate, DNS, refused, timeout).
			return cred, nil, e.unreachable(ctx, err, "token endpoint", "the token endpoint of "+conn.ConnectorID, conn.ConnectorID, hostOf(tokenURL))
		}
		status := 0
		if re.Response != nil {
			status = re.Response.StatusCode
		}
		return cred, nil, &apierr.Error{Code: apierr.UpstreamError, Upstream: &apierr.Upstream{Status: status},
			Message: "the provider's token endpoint failed while refreshing connection " + conn.ID + "; try again"}
	}
	cred.AccessToken = tok.AccessToken
	if tok.RefreshToken != "" {
		cred.RefreshToken = tok.RefreshToken
	}
	cred.Expiry = account.TokenExpiry(tok)
	if tok.TokenType != "" {
		cred.TokenType = tok.TokenType
	}
	cred.Connection = e.refreshedFields(ctx, conn, con, m, cred.Connection, tok.Extra)
	sealed, err := e.accounts.Seal(conn.ID, cred)
	if err != nil {
		return cred, nil, err
	}
	if ok, err := e.store.UpdateRefreshedCredential(ctx, conn.ID, conn.Revision, sealed); err != nil {
		return cred, nil, err
	} else if !ok {
		e.log.InfoContext(ctx, "connection was rotated during a token refresh; the refreshed token is used once and not stored", "connection_id", conn.ID)
	}
	// A refresh answer without a scope field keeps the granted scopes
	// (RFC 6749, section 6); with one, it may have narrowed them.
	granted, _ := account.GrantedScopes(tok.Extra("scope"))
	return cred, granted, nil
}

// refreshedFields returns the account's connection fields with those a
// refresh answer names again (fromToken: Pipedrive's api_domain, which
// may move), so that later calls go where the provider now says. A value
// missing from the answer, or one that does not fit its field's pattern,
// keeps the stored one: the host every call goes to is never taken from
// a value the sign-in would have refused. fields is not modified (the
// resolution cache shares it).
func (e *Executor) refreshedFields(ctx context.Context, conn store.Connection, con *catalog.Connector, m *catalog.AuthMethod,
	fields map[string]string, extra func(string) any) map[string]string {
	out := fields
	for _, f := range con.ConnectionFields {
		if f.FromToken == "" || !f.UsedBy(m.ID) {
			continue
		}
		v, _ := extra(f.FromToken).(string)
		v = strings.TrimPrefix(strings.TrimPrefix(v, "https://"), "http://")
		if v == "" || v == out[f.Name] {
			continue
		}
		if !f.Matches(v) {
			e.log.WarnContext(ctx, "a token refresh answer named a value that does not fit its field; the stored one is kept",
				"connection_id", conn.ID, "field", f.Name)
			continue
		}
		copied := make(map[string]string, len(out)+1)
		for k, x := range out {
			copied[k] = x
		}
		copied[f.Name] = v
		out = copied
	}
	return out
}

func authStyle(s string) oauth2.AuthStyle {
	if s == "body" {
		return oauth2.AuthStyleInParams
	}
	return oauth2.AuthStyleInHeader
}

// refreshURLError explains why an account's token URL was refused.
func refreshURLError(conn store.Connection, ac store.AuthConfig, m *catalog.AuthMethod, err error) error {
	var ue *catalog.OAuthURLError
	switch {
	case !errors.As(err, &ue):
		return err
	case ue.Field != "":
		return apierr.New(apierr.ExecutionError, "connection %s has no %s, which its token URL needs; reconnect it", conn.ID, ue.Field)
	}
	return apierr.New(apierr.ExecutionError,
		"connection %s's token URL is on %s, which auth config %s's OAuth client may not be used with (allowed: %s); the token is not refreshed: reconnect the account on an allowed host, or an admin can allow the host with 'switchboard admin authconfig create --hosts'",
		conn.ID, ue.Host, ac.Key, strings.Join(account.OAuthHosts(ac, m), ", "))
}

// baseURLFromTemplate fills {field} placeholders of an OAuth URL.
func baseURLFromTemplate(tmpl string, fields map[string]string) (string, error) {
	out, missing := fillPlaceholders(tmpl, fields)
	if missing != "" {
		return "", apierr.New(apierr.ExecutionError, "the account has no %s, which its token URL needs", missing)
	}
	return out, nil
}

func (e *Executor) clientCredentialsToken(ctx context.Context, conn store.Connection, cred account.Credential, m *catalog.AuthMethod) (string, error) {
	key := tokenKey(conn)
	if tok, ok := e.tokens.get(key, e.now()); ok {
		return tok, nil
	}
	if m.OAuth2 == nil {
		return "", apierr.New(apierr.ConnectorUnavailable, "auth method %s has no token URL", m.ID)
	}
	tokenURL, err := baseURLFromTemplate(m.OAuth2.TokenURL, cred.Connection)
	if err != nil {
		return "", err
	}
	// The account's scopes, else the method's (Microsoft Graph app-only
	// asks for https://graph.microsoft.com/.default).
	scopes := conn.Scopes
	if len(scopes) == 0 {
		scopes = m.OAuth2.Scopes
	}
	var params url.Values
	for name, tmpl := range m.OAuth2.TokenParams {
		v, missing := fillPlaceholders(tmpl, cred.Connection)
		if missing != "" {
			return "", apierr.New(apierr.ExecutionError, "connection %s has no %s, which its token request needs; store the credential again with it", conn.ID, missing)
		}
		if params == nil {
			params = url.Values{}
		}
		params.Set(name, v)
	}
	v, err, _ := e.refresh.Do("cc:"+key, func() (any, error) {
		conf := &clientcredentials.Config{ClientID: cred.ClientID, ClientSecret: cred.ClientSecret, TokenURL: tokenURL,
			Scopes: scopes, EndpointParams: params, AuthStyle: authStyle(m.OAuth2.TokenAuthStyle)}
		tok, err := conf.Token(context.WithValue(ctx, oauth2.HTTPClient,
			account.TokenClient(e.clientFor(conn.ConnectorID, strings.HasPrefix(tokenURL, "http:")), m.OAuth2)))
		if err != nil {
			var re *oauth2.RetrieveError
			if errors.As(err, &re) && re.Response != nil && re.Response.StatusCode < 500 {
				return nil, apierr.New(apierr.ExecutionError, "the provider refused the client credentials of connection %s", conn.ID)
			}
			if !errors.As(err, &re) {
				return nil, e.unreachable(ctx, err, "token endpoint", "the token endpoint of "+conn.ConnectorID, conn.ConnectorID, hostOf(tokenURL))
			}
			return nil, apierr.New(apierr.UpstreamError, "the provider's token endpoint failed for connection %s; try again", conn.ID)
		}
		e.tokens.put(key, tok)
		// The provider may grant fewer scopes than the account asks for;
		// the scope check then refuses what they do not cover.
		if granted, ok := account.GrantedScopes(tok.Extra("scope")); ok {
			e.granted.put(conn, e.storeGranted(ctx, conn, granted))
		}
		return tok.AccessToken, nil
	})
	if err != nil {
		return "", err
	}
	return v.(string), nil
}
