package mcpauth

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"golang.org/x/oauth2"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
)

// PathOIDCCallback is where the project's OpenID Connect provider sends the
// browser back; register {base_url}/oauth/oidc/callback there.
const PathOIDCCallback = "/oauth/oidc/callback"

// oidcProvider is what discovery tells of a provider.
type oidcProvider struct {
	Issuer        string `json:"issuer"`
	AuthEndpoint  string `json:"authorization_endpoint"`
	TokenEndpoint string `json:"token_endpoint"`
	JWKSURI       string `json:"jwks_uri"`
}

// discover reads the provider's openid-configuration; its issuer must be
// the configured one and its endpoints https (http on loopback).
func (s *Service) discover(ctx context.Context, issuer string) (*oidcProvider, error) {
	u := strings.TrimSuffix(issuer, "/") + "/.well-known/openid-configuration"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("mcpauth: discover %s: %w", issuer, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("mcpauth: discover %s: HTTP %d", issuer, resp.StatusCode)
	}
	var p oidcProvider
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 1<<20)).Decode(&p); err != nil {
		return nil, fmt.Errorf("mcpauth: discover %s: %w", issuer, err)
	}
	if p.Issuer != issuer {
		return nil, fmt.Errorf("mcpauth: discover %s: the document names issuer %q", issuer, p.Issuer)
	}
	for _, e := range []string{p.AuthEndpoint, p.TokenEndpoint, p.JWKSURI} {
		if err := checkURL(e); err != nil {
			return nil, fmt.Errorf("mcpauth: discover %s: endpoint %q %v", issuer, e, err)
		}
	}
	return &p, nil
}

func (s *Service) oauthConfig(id Identity, p *oidcProvider, secret string) *oauth2.Config {
	return &oauth2.Config{ClientID: id.ClientID, ClientSecret: secret, RedirectURL: s.baseURL + PathOIDCCallback,
		Endpoint: oauth2.Endpoint{AuthURL: p.AuthEndpoint, TokenURL: p.TokenEndpoint}, Scopes: []string{"openid"}}
}

// oidcVerifier is the PKCE verifier of the sign-in at the provider: derived
// from the browser's cookie, so it is stored nowhere and only the browser
// that started the sign-in can finish it.
func oidcVerifier(cookie string) string {
	sum := sha256.Sum256([]byte("oidc-pkce:" + cookie))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// oidcAuthURL is the provider's authorization URL for a sign-in: state is
// the grant id, nonce the grant's nonce, with PKCE S256.
func (s *Service) oidcAuthURL(id Identity, p *oidcProvider, grantID, nonce, cookie string) string {
	return s.oauthConfig(id, p, "").AuthCodeURL(grantID, oauth2.SetAuthURLParam("nonce", nonce), oauth2.S256ChallengeOption(oidcVerifier(cookie)))
}

// OIDCCallback takes the browser back from the project's provider (GET
// /oauth/oidc/callback): it exchanges the code, verifies the ID token
// (signature against the provider's JWKS, iss, aud, exp, nonce) and records
// its user claim as the sign-in's user.
func (s *Service) OIDCCallback(ctx context.Context, grantID, cookie, code, providerError string) *Error {
	p, e := s.pending(ctx, grantID, cookie)
	if e != nil {
		return e
	}
	if p.Grant.UserID != "" {
		return errSignInGone
	}
	id, err := identityOf(p.Endpoint)
	if err != nil || id.Kind != KindOIDC {
		return invalidRequest("this endpoint does not sign users in with OpenID Connect")
	}
	if providerError != "" {
		return oauthErr(http.StatusBadRequest, "access_denied", "the sign-in provider refused: "+providerError)
	}
	if code == "" {
		return invalidRequest("the sign-in provider sent no code")
	}
	prov, err := s.discover(ctx, id.Issuer)
	if err != nil {
		return oauthErr(http.StatusBadGateway, "temporarily_unavailable", "the project's sign-in provider could not be reached; try again")
	}
	secret, err := s.authSecret(p.Endpoint)
	if err != nil {
		return oauthErr(http.StatusInternalServerError, "server_error", "the endpoint's sign-in is not configured")
	}
	tok, err := s.oauthConfig(id, prov, secret).Exchange(context.WithValue(ctx, oauth2.HTTPClient, s.client), code, oauth2.VerifierOption(oidcVerifier(cookie)))
	if err != nil {
		return oauthErr(http.StatusBadGateway, "access_denied", "the sign-in provider did not accept the code")
	}
	raw, _ := tok.Extra("id_token").(string)
	if raw == "" {
		return oauthErr(http.StatusBadGateway, "access_denied", "the sign-in provider sent no ID token")
	}
	user, err := s.verifyIDToken(ctx, id, prov, raw, p.Grant.NonceHash)
	if err != nil {
		return oauthErr(http.StatusBadRequest, "access_denied", err.Error())
	}
	if err := s.store.SetOAuthGrantUser(ctx, grantID, user); err != nil {
		return errSignInGone
	}
	return nil
}

// verifyIDToken checks an ID token and returns its user claim.
func (s *Service) verifyIDToken(ctx context.Context, id Identity, p *oidcProvider, raw, nonceHash string) (string, error) {
	claims := jwt.MapClaims{}
	_, err := jwt.ParseWithClaims(raw, claims, func(t *jwt.Token) (any, error) {
		kid, _ := t.Header["kid"].(string)
		return s.jwks.key(ctx, p.JWKSURI, kid)
	}, jwt.WithValidMethods([]string{"RS256", "ES256"}), jwt.WithIssuer(id.Issuer), jwt.WithAudience(id.ClientID),
		jwt.WithExpirationRequired(), jwt.WithTimeFunc(s.now), jwt.WithLeeway(30*time.Second))
	if err != nil {
		return "", fmt.Errorf("the ID token is not valid: %w", err)
	}
	nonce, _ := claims["nonce"].(string)
	if nonce == "" || hash(nonce) != nonceHash {
		return "", errors.New("the ID token's nonce is not the one of this sign-in")
	}
	claim := id.UserClaim
	if claim == "" {
		claim = "sub"
	}
	user, _ := claims[claim].(string)
	var issues apierr.Issues
	if account.CheckUserID(user, claim, true, &issues); user == "" || issues.Err() != nil {
		return "", fmt.Errorf("the ID token's %s claim is not a valid userId", claim)
	}
	return user, nil
}
