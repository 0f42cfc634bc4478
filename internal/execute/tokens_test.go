package execute

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// A token refresh leaves the resolution cache alone, so the next call may
// resolve the account with its credential from before the refresh. That
// call must use the refreshed token without reading the account again:
// here the account is deleted behind a request context whose version still
// answers from the cache, so any read of it fails the call.
func TestExecute_AfterRefreshCachedResolutionUsesRefreshedTokenWithoutReading(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	c := e.oauthAccount(t, "expired-access", -time.Minute)
	ctx := context.Background()
	key, hash, hint, err := apikey.Generate()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.CreateAPIKey(ctx, store.NewAPIKey{ProjectID: e.project.ID, Name: "k", Hash: hash, Hint: hint}); err != nil {
		t.Fatal(err)
	}
	kp, err := e.store.ProjectForKey(ctx, apikey.Hash(key))
	if err != nil {
		t.Fatal(err)
	}
	req := e.tenantAt(kp) // one version for every call below
	call := Call{ToolID: "acme_get_item", Input: json.RawMessage(`{"id":"1"}`), UserID: "u1"}

	if _, err := e.exec.Execute(ctx, req, call); err != nil {
		t.Fatal(err)
	}
	if got := e.fake.last().Header.Get("Authorization"); got != "Bearer access-1" || e.fake.refreshes.Load() != 1 {
		t.Fatalf("first call: auth %q after %d refreshes", got, e.fake.refreshes.Load())
	}
	if err := e.store.DeleteConnection(ctx, e.project.ID, c.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.exec.Execute(ctx, req, call); err != nil {
		t.Fatalf("second call read the account again: %v", err)
	}
	if got := e.fake.last().Header.Get("Authorization"); got != "Bearer access-1" || e.fake.refreshes.Load() != 1 {
		t.Fatalf("second call: auth %q after %d refreshes", got, e.fake.refreshes.Load())
	}
}
