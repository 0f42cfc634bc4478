package mcpauth

import (
	"context"
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// PurposeAuthSecret is the sealing purpose of endpoints.auth_secret: the
// handoff's HS256 shared secret, or the OpenID Connect client secret.
const PurposeAuthSecret = "endpoint.auth_secret"

// Identity kinds: how an oauth endpoint learns who its end user is.
const (
	KindHandoff = "handoff"
	KindOIDC    = "oidc"
)

// Identity is how an oauth endpoint learns its end user
// (endpoints.auth_config), one of two kinds.
//
// handoff (the default): Switchboard sends the browser to HandoffURL; the
// project's backend signs the user in and sends the browser back to
// {base_url}/oauth/handoff with an assertion, a JWT whose iss is Issuer, aud
// is {base_url}, sub is the userId and nonce is the one Switchboard sent. It
// is signed with HS256 and the endpoint's shared secret, or, when JWKSURL is
// set, with RS256 or ES256 and a key of that JWKS.
//
// oidc: Switchboard signs the user in with the project's OpenID Connect
// provider at Issuer (discovered from its openid-configuration) as the
// client ClientID (with the sealed client secret, or as a public client
// with PKCE only), and UserClaim (default sub) of the verified ID token is
// the userId.
type Identity struct {
	Kind       string `json:"kind,omitempty"`
	HandoffURL string `json:"handoffUrl,omitempty"`
	Issuer     string `json:"issuer"`
	JWKSURL    string `json:"jwksUrl,omitempty"`
	ClientID   string `json:"clientId,omitempty"`
	UserClaim  string `json:"userClaim,omitempty"`
}

// MinSecretBytes is the shortest HS256 shared secret accepted.
const MinSecretBytes = 32

// Configure sets an endpoint's auth (e.ID must be set: the secret is
// sealed to it). auth is store.AuthAPIKey or store.AuthOAuth; for oauth,
// id and secret (the handoff's HS256 secret, or the OpenID Connect client
// secret) are checked.
func (s *Service) Configure(e *store.Endpoint, auth string, id Identity, sharedSecret string) error {
	var issues apierr.Issues
	switch auth {
	case "", store.AuthAPIKey:
		e.Auth, e.AuthConfig, e.AuthSecret = store.AuthAPIKey, nil, nil
		return nil
	case store.AuthOAuth:
	default:
		issues.Add(apierr.IssueInvalidValue, []any{"auth"}, "must be api_key or oauth")
		return issues.Err()
	}
	if id.Kind == "" {
		id.Kind = KindHandoff
	}
	switch id.Kind {
	case KindHandoff:
		if err := checkURL(id.HandoffURL); err != nil {
			issues.Add(apierr.IssueInvalidValue, []any{"handoffUrl"}, "%s", err.Error())
		}
		if id.Issuer == "" {
			issues.Add(apierr.IssueRequired, []any{"issuer"}, "name the iss the project's assertions carry")
		}
		if id.ClientID != "" || id.UserClaim != "" {
			issues.Add(apierr.IssueInvalidValue, []any{"clientId"}, "a client id and user claim are for OpenID Connect sign-in")
		}
		if id.JWKSURL != "" {
			if err := checkURL(id.JWKSURL); err != nil {
				issues.Add(apierr.IssueInvalidValue, []any{"jwksUrl"}, "%s", err.Error())
			}
			if sharedSecret != "" {
				issues.Add(apierr.IssueInvalidValue, []any{"secret"}, "give a JWKS URL or a shared secret, not both")
			}
		} else if len(sharedSecret) < MinSecretBytes {
			issues.Add(apierr.IssueInvalidValue, []any{"secret"}, "an HS256 shared secret of at least %d bytes is required without a JWKS URL", MinSecretBytes)
		}
	case KindOIDC:
		if err := checkURL(id.Issuer); err != nil {
			issues.Add(apierr.IssueInvalidValue, []any{"issuer"}, "the OpenID Connect issuer %s", err.Error())
		}
		if id.ClientID == "" {
			issues.Add(apierr.IssueRequired, []any{"clientId"}, "the client id Switchboard has at the OpenID Connect provider is required")
		}
		if id.HandoffURL != "" || id.JWKSURL != "" {
			issues.Add(apierr.IssueInvalidValue, []any{"handoffUrl"}, "a handoff URL and JWKS URL are for handoff sign-in (the provider's keys are discovered)")
		}
		if id.UserClaim == "" {
			id.UserClaim = "sub"
		}
	default:
		issues.Add(apierr.IssueInvalidValue, []any{"kind"}, "must be handoff or oidc")
	}
	if err := issues.Err(); err != nil {
		return err
	}
	if e.ID == "" {
		return errors.New("mcpauth: endpoint without id")
	}
	cfg, _ := json.Marshal(id)
	e.Auth, e.AuthConfig, e.AuthSecret = store.AuthOAuth, cfg, nil
	if sharedSecret != "" {
		sealed, err := s.ring.Seal([]byte(sharedSecret), secret.AAD(PurposeAuthSecret, e.ID))
		if err != nil {
			return err
		}
		e.AuthSecret = sealed
	}
	return nil
}

// authSecret opens an endpoint's sealed secret ("" when it has none).
func (s *Service) authSecret(e store.Endpoint) (string, error) {
	if len(e.AuthSecret) == 0 {
		return "", nil
	}
	b, err := s.ring.Open(e.AuthSecret, secret.AAD(PurposeAuthSecret, e.ID))
	if err != nil {
		return "", fmt.Errorf("mcpauth: open the auth secret of %s: %w", e.Slug, err)
	}
	return string(b), nil
}

// checkURL accepts https URLs and http ones on a loopback host.
func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" || u.Fragment != "" || u.User != nil {
		return errors.New("must be an absolute https URL without credentials or fragment")
	}
	if u.Scheme == "https" || (u.Scheme == "http" && loopbackHost(u.Hostname())) {
		return nil
	}
	return errors.New("must use https (http only on a loopback host)")
}

func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// identityOf decodes an endpoint's sign-in settings.
func identityOf(e store.Endpoint) (Identity, error) {
	var id Identity
	if err := json.Unmarshal(e.AuthConfig, &id); err != nil || id.Issuer == "" {
		return Identity{}, fmt.Errorf("mcpauth: endpoint %s has no sign-in settings", e.Slug)
	}
	if id.Kind == "" {
		id.Kind = KindHandoff
	}
	return id, nil
}

// verifyAssertion checks a handoff assertion and returns the userId it names.
func (s *Service) verifyAssertion(ctx context.Context, e store.Endpoint, h Identity, assertion, nonceHash string) (string, error) {
	var claims struct {
		jwt.RegisteredClaims
		Nonce string `json:"nonce"`
	}
	opts := []jwt.ParserOption{jwt.WithIssuer(h.Issuer), jwt.WithAudience(s.baseURL), jwt.WithExpirationRequired(),
		jwt.WithTimeFunc(s.now), jwt.WithLeeway(30 * time.Second)}
	var keyFunc jwt.Keyfunc
	if h.JWKSURL == "" {
		key, err := s.authSecret(e)
		if err != nil || key == "" {
			return "", fmt.Errorf("mcpauth: no handoff secret for %s: %v", e.Slug, err)
		}
		opts = append(opts, jwt.WithValidMethods([]string{"HS256"}))
		keyFunc = func(*jwt.Token) (any, error) { return []byte(key), nil }
	} else {
		opts = append(opts, jwt.WithValidMethods([]string{"RS256", "ES256"}))
		keyFunc = func(t *jwt.Token) (any, error) {
			kid, _ := t.Header["kid"].(string)
			return s.jwks.key(ctx, h.JWKSURL, kid)
		}
	}
	if _, err := jwt.ParseWithClaims(assertion, &claims, keyFunc, opts...); err != nil {
		return "", fmt.Errorf("the assertion is not valid: %w", err)
	}
	if claims.ExpiresAt.Sub(s.now()) > RequestTTL {
		return "", errors.New("the assertion lives too long: its exp must be within 10 minutes")
	}
	if claims.Nonce == "" || hash(claims.Nonce) != nonceHash {
		return "", errors.New("the assertion's nonce is not the one of this sign-in")
	}
	var issues apierr.Issues
	if account.CheckUserID(claims.Subject, "sub", true, &issues); issues.Err() != nil {
		return "", errors.New("the assertion's sub is not a valid userId")
	}
	return claims.Subject, nil
}

// jwksCache keeps fetched key sets for a few minutes.
type jwksCache struct {
	client *http.Client
	now    func() time.Time
	mu     sync.Mutex
	sets   map[string]jwksEntry
}

type jwksEntry struct {
	keys    map[string]crypto.PublicKey
	fetched time.Time
}

func newJWKSCache(c *http.Client, now func() time.Time) *jwksCache {
	return &jwksCache{client: c, now: now, sets: map[string]jwksEntry{}}
}

// key returns the key kid of the set at url, fetching the set when it is
// not cached, older than five minutes, or lacks kid.
func (c *jwksCache) key(ctx context.Context, url, kid string) (crypto.PublicKey, error) {
	c.mu.Lock()
	e, ok := c.sets[url]
	c.mu.Unlock()
	if ok && c.now().Sub(e.fetched) < 5*time.Minute {
		if k := pick(e.keys, kid); k != nil {
			return k, nil
		}
	}
	keys, err := c.fetch(ctx, url)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	c.sets[url] = jwksEntry{keys: keys, fetched: c.now()}
	c.mu.Unlock()
	if k := pick(keys, kid); k != nil {
		return k, nil
	}
	return nil, fmt.Errorf("no key %q in the JWKS", kid)
}

func pick(keys map[string]crypto.PublicKey, kid string) crypto.PublicKey {
	if k, ok := keys[kid]; ok {
		return k
	}
	if kid == "" && len(keys) == 1 {
		for _, k := range keys {
			return k
		}
	}
	return nil
}

func (c *jwksCache) fetch(ctx context.Context, url string) (map[string]crypto.PublicKey, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch the JWKS: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch the JWKS: HTTP %d", resp.StatusCode)
	}
	var set struct {
		Keys []struct {
			Kty, Kid, Use, Crv, N, E, X, Y string
		} `json:"keys"`
	}
	if err := json.NewDecoder(http.MaxBytesReader(nil, resp.Body, 1<<20)).Decode(&set); err != nil {
		return nil, fmt.Errorf("decode the JWKS: %w", err)
	}
	out := map[string]crypto.PublicKey{}
	b64 := func(s string) []byte { b, _ := base64.RawURLEncoding.DecodeString(strings.TrimRight(s, "=")); return b }
	for _, k := range set.Keys {
		if k.Use != "" && k.Use != "sig" {
			continue
		}
		switch k.Kty {
		case "RSA":
			n, e := b64(k.N), b64(k.E)
			if len(n) < 256 || len(e) == 0 || len(e) > 4 {
				continue
			}
			out[k.Kid] = &rsa.PublicKey{N: new(big.Int).SetBytes(n), E: int(new(big.Int).SetBytes(e).Int64())}
		case "EC":
			if k.Crv != "P-256" {
				continue
			}
			x, y := b64(k.X), b64(k.Y)
			if len(x) != 32 || len(y) != 32 {
				continue
			}
			// The uncompressed point 0x04 || X || Y; parsing checks that
			// it is on the curve.
			pub, err := ecdsa.ParseUncompressedPublicKey(elliptic.P256(), append(append([]byte{4}, x...), y...))
			if err != nil {
				continue
			}
			out[k.Kid] = pub
		}
	}
	return out, nil
}
