package store_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

func (p *keyPair) newToken(t *testing.T, s *store.Store, hash, family string) {
	t.Helper()
	if err := s.CreateOAuthTokens(context.Background(), store.OAuthToken{Hash: hash, Kind: store.TokenAccess, FamilyID: family,
		ProjectID: p.project.ID, EndpointID: "e1", UserID: "ann", ExpiresAt: p.clock.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
}

func tokenOf(t *testing.T, s *store.Store, hash string) (store.OAuthToken, bool) {
	t.Helper()
	tok, err := s.OAuthTokenByHash(context.Background(), hash)
	return found(t, tok, err)
}

// TestTokenCache_ServesWithoutQuery_RevocationSeen: an MCP access token
// read once is answered from the cache (a revocation nobody announces is
// not seen), and one revoked by another instance is seen revoked within
// notifyBound.
func TestTokenCache_ServesWithoutQuery_RevocationSeen(t *testing.T) {
	t.Parallel()
	p := newKeyPair(t)
	p.newToken(t, p.b, "h-silent", "f-silent")
	p.newToken(t, p.b, "h-revoked", "f-revoked")
	if tok, ok := tokenOf(t, p.a, "h-silent"); !ok || tok.UserID != "ann" || tok.Revoked {
		t.Fatalf("a: %+v %v", tok, ok)
	}
	warm(t, p.a, "the token", func() { tokenOf(t, p.a, "h-silent") }, func() bool { return p.a.TokenCached("h-silent") })
	p.sql(t, `ALTER TABLE oauth_tokens DISABLE TRIGGER oauth_tokens_notify`)
	p.sql(t, `UPDATE oauth_tokens SET revoked_at = 1 WHERE token_hash = 'h-silent'`)
	p.sql(t, `ALTER TABLE oauth_tokens ENABLE TRIGGER oauth_tokens_notify`)
	if tok, _ := tokenOf(t, p.a, "h-silent"); tok.Revoked {
		t.Fatal("a read the token again instead of answering from its cache")
	}
	if tok, _ := tokenOf(t, p.b, "h-silent"); !tok.Revoked {
		t.Fatal("b, which does not watch, does not see the revocation")
	}

	warm(t, p.a, "the token", func() { tokenOf(t, p.a, "h-revoked") }, func() bool { return p.a.TokenCached("h-revoked") })
	if err := p.b.RevokeOAuthFamily(context.Background(), "f-revoked"); err != nil {
		t.Fatal(err)
	}
	took := waitFor(t, "a to see the token revoked", notifyBound, func() bool {
		tok, _ := tokenOf(t, p.a, "h-revoked")
		return tok.Revoked
	})
	t.Logf("token revoked on b seen by a after %v", took)
}

// TestTokenCache_SQLiteSeesOtherProcesses: on SQLite a token revoked by
// another process on the same file is seen within a few polls.
func TestTokenCache_SQLiteSeesOtherProcesses(t *testing.T) {
	t.Parallel()
	url := "sqlite:" + filepath.Join(t.TempDir(), "switchboard.db")
	a, b := openAt(t, url, nil), openAt(t, url, nil)
	watch(t, a)
	ctx := context.Background()
	proj, err := b.CreateProject(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if err := b.CreateOAuthTokens(ctx, store.OAuthToken{Hash: "h1", Kind: store.TokenAccess, FamilyID: "f1", ProjectID: proj.ID,
		UserID: "ann", ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	warm(t, a, "the token", func() { tokenOf(t, a, "h1") }, func() bool { return a.TokenCached("h1") })
	if err := b.RevokeOAuthFamily(ctx, "f1"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a to see the other process's revocation", 500*time.Millisecond, func() bool {
		tok, _ := tokenOf(t, a, "h1")
		return tok.Revoked
	})
}

// TestTokenCache_OwnRevocationSeenAtOnce: a process that revokes a token
// it cached refuses it on its next lookup, with nobody announcing it.
func TestTokenCache_OwnRevocationSeenAtOnce(t *testing.T) {
	t.Parallel()
	url := "sqlite:" + filepath.Join(t.TempDir(), "switchboard.db")
	a := openAt(t, url, nil)
	watch(t, a)
	ctx := context.Background()
	proj, err := a.CreateProject(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.CreateOAuthTokens(ctx, store.OAuthToken{Hash: "h1", Kind: store.TokenAccess, FamilyID: "f1", ProjectID: proj.ID,
		UserID: "ann", ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	warm(t, a, "the token", func() { tokenOf(t, a, "h1") }, func() bool { return a.TokenCached("h1") })
	if _, err := a.WriteDB().ExecContext(ctx, `DROP TRIGGER oauth_tokens_counted_update`); err != nil {
		t.Fatal(err)
	}
	if err := a.RevokeOAuthFamily(ctx, "f1"); err != nil {
		t.Fatal(err)
	}
	if tok, _ := tokenOf(t, a, "h1"); !tok.Revoked {
		t.Fatal("a still answers a token it revoked itself from its cache")
	}
}
