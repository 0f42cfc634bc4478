package storetest

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

func mcpOAuthTests() map[string]func(*testing.T, Opener) {
	return map[string]func(*testing.T, Opener){
		"MCPOAuth_EndpointAuthStored":           testEndpointAuthStored,
		"MCPOAuth_GrantCodeOnceAndTokens":       testOAuthGrantCodeTokens,
		"MCPOAuth_RefreshRotatesOnce":           testOAuthRefreshRotation,
		"MCPOAuth_ClientsCountedByRegistrar":    testOAuthClientCount,
		"MCPOAuth_CleanupDropsExpiredGrantsTok": testOAuthCleanup,
	}
}

func oauthEndpoint(t *testing.T, s *store.Store) (store.Project, store.Endpoint) {
	t.Helper()
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	e, err := s.CreateEndpoint(ctx, store.Endpoint{ID: store.NewID(), ProjectID: p.ID, Slug: "signin", Mode: "tools", Spec: []byte(`{}`),
		Auth: store.AuthOAuth, AuthConfig: []byte(`{"handoffUrl":"https://app.example"}`), AuthSecret: []byte("sealed")})
	if err != nil {
		t.Fatal(err)
	}
	return p, e
}

func testEndpointAuthStored(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	p, e := oauthEndpoint(t, s)
	got, err := s.EndpointByID(ctx, e.ID)
	if err != nil || got.Auth != store.AuthOAuth || string(got.AuthConfig) != `{"handoffUrl":"https://app.example"}` || string(got.AuthSecret) != "sealed" {
		t.Fatalf("by id: %+v %v", got, err)
	}
	plain, err := s.CreateEndpoint(ctx, store.Endpoint{ProjectID: p.ID, Slug: "plain", Mode: "tools", Spec: []byte(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := s.EndpointBySlug(ctx, "plain"); got.Auth != store.AuthAPIKey || got.AuthConfig != nil || got.AuthSecret != nil || got.ID != plain.ID {
		t.Fatalf("an endpoint without auth settings: %+v", got)
	}
	if err := s.UpdateEndpoint(ctx, store.Endpoint{Slug: "signin", Mode: "tools", Spec: []byte(`{}`)}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.EndpointBySlug(ctx, "signin"); got.Auth != store.AuthAPIKey || got.AuthSecret != nil {
		t.Fatalf("update back to api_key: %+v", got)
	}
}

func testOAuthGrantCodeTokens(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, clock.Now)
	ctx := context.Background()
	p, e := oauthEndpoint(t, s)
	c, err := s.CreateOAuthClient(ctx, store.OAuthClient{Name: "Claude", RedirectURIs: []string{"http://127.0.0.1:3000/cb"}, RegistrarHash: "r"})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.OAuthClientByID(ctx, c.ID); err != nil || got.Name != "Claude" || len(got.RedirectURIs) != 1 || got.RedirectURIs[0] != "http://127.0.0.1:3000/cb" {
		t.Fatalf("client: %+v %v", got, err)
	}
	if _, err := s.OAuthClientByID(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown client: %v", err)
	}
	g, err := s.CreateOAuthGrant(ctx, store.OAuthGrant{ClientID: c.ID, EndpointID: e.ID, Resource: "https://sb/v1/mcp/signin",
		RedirectURI: "http://127.0.0.1:3000/cb", State: "st", CodeChallenge: "cc", NonceHash: "nh", BrowserHash: "bh", ExpiresAt: clock.Now().Add(10 * time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.IssueOAuthCode(ctx, g.ID, "code1", clock.Now().Add(time.Minute)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a code before the user is known: %v", err)
	}
	if err := s.SetOAuthGrantUser(ctx, g.ID, "ann"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetOAuthGrantUser(ctx, g.ID, "bob"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the user set twice: %v", err)
	}
	if err := s.IssueOAuthCode(ctx, g.ID, "code1", clock.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if err := s.IssueOAuthCode(ctx, g.ID, "code2", clock.Now().Add(time.Minute)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a second code: %v", err)
	}
	got, first, err := s.UseOAuthCode(ctx, "code1")
	if err != nil || !first || got.ID != g.ID || got.UserID != "ann" || !got.HasCode || !got.CodeUsed || got.State != "st" {
		t.Fatalf("first use: %+v %v %v", got, first, err)
	}
	if _, first, err := s.UseOAuthCode(ctx, "code1"); err != nil || first {
		t.Fatalf("second use: first=%v %v", first, err)
	}
	if _, _, err := s.UseOAuthCode(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown code: %v", err)
	}
	exp := clock.Now().Add(time.Hour)
	if err := s.CreateOAuthTokens(ctx, store.OAuthToken{Hash: "a1", Kind: store.TokenAccess, FamilyID: g.ID, ProjectID: p.ID, EndpointID: e.ID,
		ClientID: c.ID, UserID: "ann", Resource: g.Resource, ExpiresAt: exp}); err != nil {
		t.Fatal(err)
	}
	tok, err := s.OAuthTokenByHash(ctx, "a1")
	if err != nil || tok.UserID != "ann" || tok.EndpointID != e.ID || tok.ProjectID != p.ID || !tok.ExpiresAt.Equal(exp) || tok.Revoked || tok.Used {
		t.Fatalf("token: %+v %v", tok, err)
	}
	if err := s.RevokeOAuthFamily(ctx, g.ID); err != nil {
		t.Fatal(err)
	}
	if tok, _ := s.OAuthTokenByHash(ctx, "a1"); !tok.Revoked {
		t.Fatal("the family's token is not revoked")
	}
	if _, err := s.OAuthTokenByHash(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown token: %v", err)
	}
}

func testOAuthRefreshRotation(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	p, _ := oauthEndpoint(t, s)
	exp := time.Now().Add(time.Hour)
	if err := s.CreateOAuthTokens(ctx, store.OAuthToken{Hash: "r1", Kind: store.TokenRefresh, FamilyID: "f", ProjectID: p.ID, UserID: "u", ExpiresAt: exp}); err != nil {
		t.Fatal(err)
	}
	ok, err := s.RotateRefreshToken(ctx, "r1", store.OAuthToken{Hash: "r2", Kind: store.TokenRefresh, FamilyID: "f", ProjectID: p.ID, UserID: "u", ExpiresAt: exp})
	if err != nil || !ok {
		t.Fatalf("rotate: %v %v", ok, err)
	}
	ok, err = s.RotateRefreshToken(ctx, "r1", store.OAuthToken{Hash: "r3", Kind: store.TokenRefresh, FamilyID: "f", ProjectID: p.ID, UserID: "u", ExpiresAt: exp})
	if err != nil || ok {
		t.Fatalf("rotate a used token: %v %v", ok, err)
	}
	if _, err := s.OAuthTokenByHash(ctx, "r3"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a refused rotation stored its successor: %v", err)
	}
	if tok, _ := s.OAuthTokenByHash(ctx, "r1"); !tok.Used {
		t.Fatal("the rotated token is not marked used")
	}
	_ = s.RevokeOAuthFamily(ctx, "f")
	if ok, _ := s.RotateRefreshToken(ctx, "r2"); ok {
		t.Fatal("a revoked refresh token rotated")
	}
}

func testOAuthClientCount(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, clock.Now)
	ctx := context.Background()
	for range 3 {
		if _, err := s.CreateOAuthClient(ctx, store.OAuthClient{Name: "c", RedirectURIs: []string{"https://x/cb"}, RegistrarHash: "a"}); err != nil {
			t.Fatal(err)
		}
		clock.Advance(time.Minute)
	}
	_, _ = s.CreateOAuthClient(ctx, store.OAuthClient{Name: "c", RedirectURIs: []string{"https://x/cb"}, RegistrarHash: "b"})
	if n, err := s.CountOAuthClientsSince(ctx, "a", clock.Now().Add(-150*time.Second)); err != nil || n != 2 {
		t.Fatalf("count: %d %v", n, err)
	}
}

func testOAuthCleanup(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, clock.Now)
	ctx := context.Background()
	p, e := oauthEndpoint(t, s)
	c, _ := s.CreateOAuthClient(ctx, store.OAuthClient{Name: "c", RedirectURIs: []string{"https://x/cb"}, RegistrarHash: "a"})
	g, _ := s.CreateOAuthGrant(ctx, store.OAuthGrant{ClientID: c.ID, EndpointID: e.ID, ExpiresAt: clock.Now().Add(time.Minute)})
	_ = s.CreateOAuthTokens(ctx, store.OAuthToken{Hash: "short", Kind: store.TokenAccess, FamilyID: "f", ProjectID: p.ID, UserID: "u", ExpiresAt: clock.Now().Add(time.Minute)},
		store.OAuthToken{Hash: "long", Kind: store.TokenRefresh, FamilyID: "f", ProjectID: p.ID, UserID: "u", ExpiresAt: clock.Now().Add(time.Hour)})
	clock.Advance(2 * time.Minute)
	if _, err := s.Cleanup(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.OAuthGrantByID(ctx, g.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("expired grant: %v", err)
	}
	if _, err := s.OAuthTokenByHash(ctx, "short"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("expired token: %v", err)
	}
	if _, err := s.OAuthTokenByHash(ctx, "long"); err != nil {
		t.Fatalf("live token: %v", err)
	}
}
