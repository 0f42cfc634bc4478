package mcpauth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// TokenResponse is the token endpoint's answer (RFC 6749 5.1).
type TokenResponse struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token,omitempty"`
	Scope        string `json:"scope"`
}

// verifierPattern is a PKCE code verifier (RFC 7636 4.1).
var verifierPattern = regexp.MustCompile(`^[A-Za-z0-9._~-]{43,128}$`)

// Token handles POST /oauth/token for the authorization_code and
// refresh_token grants of public clients.
func (s *Service) Token(ctx context.Context, f url.Values) (*TokenResponse, *Error) {
	if f.Get("client_id") == "" {
		return nil, oauthErr(http.StatusUnauthorized, "invalid_client", "client_id is required")
	}
	switch f.Get("grant_type") {
	case "authorization_code":
		return s.exchangeCode(ctx, f)
	case "refresh_token":
		return s.refresh(ctx, f)
	case "":
		return nil, invalidRequest("grant_type is required")
	}
	return nil, oauthErr(http.StatusBadRequest, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
}

func (s *Service) exchangeCode(ctx context.Context, f url.Values) (*TokenResponse, *Error) {
	code := f.Get("code")
	if code == "" {
		return nil, invalidRequest("code is required")
	}
	g, first, err := s.store.UseOAuthCode(ctx, hash(code))
	if errors.Is(err, store.ErrNotFound) {
		return nil, invalidGrant("the code is unknown")
	}
	if err != nil {
		return nil, oauthErr(http.StatusInternalServerError, "server_error", "the code could not be read")
	}
	if !first {
		// A code used twice may have leaked: what it gave is revoked
		// (RFC 6749 4.1.2).
		_ = s.store.RevokeOAuthFamily(ctx, g.ID)
		return nil, invalidGrant("the code was already used; the tokens issued for it are revoked")
	}
	switch {
	case !s.now().Before(g.ExpiresAt):
		return nil, invalidGrant("the code expired")
	case subtle.ConstantTimeCompare([]byte(f.Get("client_id")), []byte(g.ClientID)) != 1:
		return nil, invalidGrant("the code was issued to another client")
	case f.Get("redirect_uri") != g.RedirectURI:
		return nil, invalidGrant("redirect_uri must be the one of the authorization request")
	case f.Get("code_verifier") == "":
		return nil, invalidGrant("code_verifier is required (PKCE)")
	case !verifierPattern.MatchString(f.Get("code_verifier")) || s256(f.Get("code_verifier")) != g.CodeChallenge:
		return nil, invalidGrant("code_verifier does not match the code_challenge")
	case f.Get("resource") != "" && strings.TrimSuffix(f.Get("resource"), "/") != g.Resource:
		return nil, oauthErr(http.StatusBadRequest, "invalid_target", "resource must be the one of the authorization request")
	}
	e, err := s.store.EndpointByID(ctx, g.EndpointID)
	if err != nil || e.Auth != store.AuthOAuth {
		return nil, invalidGrant("the endpoint no longer accepts OAuth sign-in")
	}
	return s.issue(ctx, "", store.OAuthToken{FamilyID: g.ID, ProjectID: e.ProjectID, EndpointID: e.ID, ClientID: g.ClientID, UserID: g.UserID, Resource: g.Resource})
}

func s256(verifier string) string {
	sum := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

func (s *Service) refresh(ctx context.Context, f url.Values) (*TokenResponse, *Error) {
	rt := f.Get("refresh_token")
	if rt == "" {
		return nil, invalidRequest("refresh_token is required")
	}
	t, err := s.store.OAuthTokenByHash(ctx, hash(rt))
	if errors.Is(err, store.ErrNotFound) || (err == nil && t.Kind != store.TokenRefresh) {
		return nil, invalidGrant("the refresh token is unknown")
	}
	if err != nil {
		return nil, oauthErr(http.StatusInternalServerError, "server_error", "the refresh token could not be read")
	}
	switch {
	case t.Revoked:
		return nil, invalidGrant("the refresh token was revoked")
	case t.Used:
		// A spent refresh token come back means one of two holders is not
		// the client: the whole family goes.
		_ = s.store.RevokeOAuthFamily(ctx, t.FamilyID)
		return nil, invalidGrant("the refresh token was already used; every token of this sign-in is revoked")
	case !s.now().Before(t.ExpiresAt):
		return nil, invalidGrant("the refresh token expired")
	case subtle.ConstantTimeCompare([]byte(f.Get("client_id")), []byte(t.ClientID)) != 1:
		return nil, invalidGrant("the refresh token was issued to another client")
	case f.Get("resource") != "" && strings.TrimSuffix(f.Get("resource"), "/") != t.Resource:
		return nil, oauthErr(http.StatusBadRequest, "invalid_target", "resource must be the one the sign-in was for")
	}
	e, err := s.store.EndpointByID(ctx, t.EndpointID)
	if err != nil || e.Auth != store.AuthOAuth {
		return nil, invalidGrant("the endpoint no longer accepts OAuth sign-in")
	}
	return s.issue(ctx, t.Hash, store.OAuthToken{FamilyID: t.FamilyID, ProjectID: t.ProjectID, EndpointID: t.EndpointID, ClientID: t.ClientID, UserID: t.UserID, Resource: t.Resource})
}

// issue stores a new access and refresh token like base, spending the
// refresh token of hash spent when set.
func (s *Service) issue(ctx context.Context, spent string, base store.OAuthToken) (*TokenResponse, *Error) {
	access, refresh := newSecret(prefixAccess), newSecret(prefixRefresh)
	at, rt := base, base
	at.Hash, at.Kind, at.ExpiresAt = hash(access), store.TokenAccess, s.now().Add(AccessTTL)
	rt.Hash, rt.Kind, rt.ExpiresAt = hash(refresh), store.TokenRefresh, s.now().Add(RefreshTTL)
	if spent == "" {
		if err := s.store.CreateOAuthTokens(ctx, at, rt); err != nil {
			return nil, oauthErr(http.StatusInternalServerError, "server_error", "the tokens could not be stored")
		}
	} else {
		ok, err := s.store.RotateRefreshToken(ctx, spent, at, rt)
		if err != nil {
			return nil, oauthErr(http.StatusInternalServerError, "server_error", "the tokens could not be stored")
		}
		if !ok {
			_ = s.store.RevokeOAuthFamily(ctx, base.FamilyID)
			return nil, invalidGrant("the refresh token was already used; every token of this sign-in is revoked")
		}
	}
	return &TokenResponse{AccessToken: access, TokenType: "Bearer", ExpiresIn: int(AccessTTL / time.Second), RefreshToken: refresh, Scope: Scope}, nil
}

// Revoke handles POST /oauth/revoke (RFC 7009): a known token of the
// client, access or refresh, revokes its whole sign-in. An unknown token is
// no error.
func (s *Service) Revoke(ctx context.Context, f url.Values) *Error {
	if f.Get("token") == "" {
		return invalidRequest("token is required")
	}
	t, err := s.store.OAuthTokenByHash(ctx, hash(f.Get("token")))
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	if err != nil {
		return oauthErr(http.StatusServiceUnavailable, "temporarily_unavailable", "the token could not be read; retry")
	}
	if t.ClientID != "" && subtle.ConstantTimeCompare([]byte(f.Get("client_id")), []byte(t.ClientID)) != 1 {
		return oauthErr(http.StatusUnauthorized, "invalid_client", "the token was issued to another client")
	}
	if err := s.store.RevokeOAuthFamily(ctx, t.FamilyID); err != nil {
		return oauthErr(http.StatusServiceUnavailable, "temporarily_unavailable", "the token could not be revoked; retry")
	}
	return nil
}

// Grant is what a verified bearer token allows: calls in ProjectID, on the
// endpoint EndpointID or the session SessionID, as UserID.
type Grant struct {
	ProjectID  string
	EndpointID string
	SessionID  string
	UserID     string
	ExpiresAt  time.Time
}

// ErrInvalidToken is a bearer token that is unknown, expired or revoked;
// its message says which.
type ErrInvalidToken struct{ Reason string }

func (e *ErrInvalidToken) Error() string { return e.Reason }

// Verify returns the grant of a bearer token.
func (s *Service) Verify(ctx context.Context, bearer string) (Grant, error) {
	if !strings.HasPrefix(bearer, prefixAccess) && !strings.HasPrefix(bearer, prefixSession) {
		return Grant{}, &ErrInvalidToken{"the token is not an access token"}
	}
	t, err := s.store.OAuthTokenByHash(ctx, hash(bearer))
	if errors.Is(err, store.ErrNotFound) || (err == nil && t.Kind != store.TokenAccess) {
		return Grant{}, &ErrInvalidToken{"the access token is unknown"}
	}
	if err != nil {
		return Grant{}, err
	}
	if t.Revoked {
		return Grant{}, &ErrInvalidToken{"the access token was revoked"}
	}
	if !s.now().Before(t.ExpiresAt) {
		return Grant{}, &ErrInvalidToken{"the access token expired: refresh it or sign in again"}
	}
	return Grant{ProjectID: t.ProjectID, EndpointID: t.EndpointID, SessionID: t.SessionID, UserID: t.UserID, ExpiresAt: t.ExpiresAt}, nil
}

// SessionToken issues a bearer for one session's MCP URL, as the session's
// user, expiring with the session (POST /v1/sessions with mcpToken).
func (s *Service) SessionToken(ctx context.Context, projectID, sessionID, userID string, expires time.Time) (string, error) {
	tok := newSecret(prefixSession)
	err := s.store.CreateOAuthTokens(ctx, store.OAuthToken{Hash: hash(tok), Kind: store.TokenAccess, FamilyID: "session:" + sessionID,
		ProjectID: projectID, SessionID: sessionID, UserID: userID, ExpiresAt: expires})
	if err != nil {
		return "", err
	}
	return tok, nil
}
