package execute

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	jwtlib "github.com/golang-jwt/jwt/v5"
	"golang.org/x/oauth2"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// GitHub's rules for the JWT an app signs (docs/auth-methods.md): issued
// 60 seconds in the past against clock drift, expiring at most 10 minutes
// after it is issued.
const (
	appJWTBackdate = 60 * time.Second
	appJWTLifetime = 9 * time.Minute
)

// installationToken signs a JWT as the GitHub App (RS256, iss the app id)
// and trades it for an installation access token, which lasts an hour.
// golang-jwt is used for the signature: x/oauth2's jws package says it is
// for x/oauth2's own use and may go away.
func (e *Executor) installationToken(ctx context.Context, conn store.Connection, cred account.Credential, m *catalog.AuthMethod) (*oauth2.Token, error) {
	key, err := jwtlib.ParseRSAPrivateKeyFromPEM([]byte(cred.PrivateKey))
	if err != nil {
		return nil, apierr.New(apierr.ExecutionError, "the private key of connection %s cannot be used; store the credential again", conn.ID)
	}
	now := e.now()
	assertion, err := jwtlib.NewWithClaims(jwtlib.SigningMethodRS256, jwtlib.RegisteredClaims{
		Issuer:    cred.Issuer,
		IssuedAt:  jwtlib.NewNumericDate(now.Add(-appJWTBackdate)),
		ExpiresAt: jwtlib.NewNumericDate(now.Add(appJWTLifetime)),
	}).SignedString(key)
	if err != nil {
		return nil, apierr.New(apierr.ExecutionError, "the private key of connection %s cannot sign; store the credential again", conn.ID)
	}
	tokenURL := strings.ReplaceAll(m.OAuth2.TokenURL, "{installationId}", url.PathEscape(cred.InstallationID))
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, tokenURL, nil)
	if err != nil {
		return nil, apierr.New(apierr.ExecutionError, "the token URL of connection %s is not valid", conn.ID)
	}
	req.Header.Set("Authorization", "Bearer "+assertion)
	req.Header.Set("Accept", "application/vnd.github+json")
	req.Header.Set("X-GitHub-Api-Version", "2022-11-28")
	req.Header.Set("User-Agent", "Switchboard/1")
	resp, err := e.clientFor(conn.ConnectorID, req.URL.Scheme == "http").Do(req)
	if err != nil {
		return nil, grantError(conn, m, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, grantError(conn, m, &oauth2.RetrieveError{Response: resp, Body: body})
	}
	var out struct {
		Token     string    `json:"token"`
		ExpiresAt time.Time `json:"expires_at"`
	}
	if err := json.Unmarshal(body, &out); err != nil || out.Token == "" {
		return nil, apierr.New(apierr.UpstreamError, "GitHub answered the installation token request of connection %s without a token; try again", conn.ID)
	}
	return &oauth2.Token{AccessToken: out.Token, TokenType: "Bearer", Expiry: out.ExpiresAt}, nil
}
