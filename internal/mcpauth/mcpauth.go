// Package mcpauth is the OAuth 2.1 authorization server of the project MCP
// endpoints whose auth is oauth (docs/mcp-oauth.md): the metadata documents
// (RFC 8414, RFC 9728), dynamic client registration (RFC 7591), the
// authorization code flow with PKCE and resource indicators (RFC 8707),
// rotating refresh tokens, revocation (RFC 7009), and the verification of
// the bearer tokens it issues. The end user is named by the project: its
// backend sends the browser back with a signed assertion (the handoff).
//
// Codes, access and refresh tokens are random and stored as their SHA-256
// only. An access token is bound to one endpoint (or one session) and one
// user.
package mcpauth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"net/http"
	"strings"
	"time"

	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// Lifetimes.
const (
	AccessTTL  = time.Hour
	RefreshTTL = 30 * 24 * time.Hour
	CodeTTL    = time.Minute
	// RequestTTL bounds a sign-in from the authorization endpoint to the
	// consent decision.
	RequestTTL = 10 * time.Minute
	// RegistrationsPerHour bounds the clients one address registers.
	RegistrationsPerHour = 20
)

// Token prefixes: an access token of an endpoint sign-in, a refresh token,
// a session's MCP token.
const (
	prefixAccess  = "sbat_"
	prefixRefresh = "sbrt_"
	prefixSession = "sbst_"
)

// Options configure a Service.
type Options struct {
	Store   *store.Store
	Keyring *secret.Keyring
	// BaseURL is {base_url}, the issuer; MCPURL is {mcp_url}.
	BaseURL string
	MCPURL  string
	// HTTPClient fetches a project's JWKS (the outbound guard's client).
	HTTPClient *http.Client
	Now        func() time.Time
}

// Service is the authorization server.
type Service struct {
	store   *store.Store
	ring    *secret.Keyring
	baseURL string
	mcpURL  string
	client  *http.Client
	now     func() time.Time
	jwks    *jwksCache
}

// New returns a Service.
func New(o Options) *Service {
	s := &Service{store: o.Store, ring: o.Keyring, baseURL: strings.TrimRight(o.BaseURL, "/"), mcpURL: strings.TrimRight(o.MCPURL, "/"),
		client: o.HTTPClient, now: o.Now}
	if s.now == nil {
		s.now = time.Now
	}
	if s.client == nil {
		s.client = http.DefaultClient
	}
	s.jwks = newJWKSCache(s.client, s.now)
	return s
}

// Issuer is the authorization server's issuer identifier: {base_url}.
func (s *Service) Issuer() string { return s.baseURL }

// newSecret returns prefix and 32 random bytes, base64url.
func newSecret(prefix string) string {
	b := make([]byte, 32)
	_, _ = rand.Read(b)
	return prefix + base64.RawURLEncoding.EncodeToString(b)
}

// hash is the stored form of a code, token, nonce or cookie.
func hash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// IsToken reports whether a bearer value has the shape of a token this
// package issues (rather than an API key).
func IsToken(bearer string) bool {
	return strings.HasPrefix(bearer, prefixAccess) || strings.HasPrefix(bearer, prefixSession) || strings.HasPrefix(bearer, prefixRefresh)
}
