package execute

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apierr"
)

// TestExecute_RefreshSendsTheClientSecretOnlyToAllowedHosts: an account
// whose token URL is filled with a host outside the auth config's allowed
// hosts is not refreshed, so the project's client secret never reaches
// that host; the caller is told what to fix.
func TestExecute_RefreshSendsTheClientSecretOnlyToAllowedHosts(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	// No operator hosts: the definition allows *.acme.test only, and the
	// account names the fake provider's loopback host.
	e.oauthConfigOn()
	raw, _ := json.Marshal(map[string]any{"type": "oauth2", "accessToken": "old", "refreshToken": "refresh-0",
		"expiresAt": e.clock.Now().Add(-time.Minute), "host": e.fake.host()})
	if _, err := e.accounts.Create(context.Background(), e.tenant(), createReq("u1", raw, "acme-oauth")); err != nil {
		t.Fatal(err)
	}
	err := mustErr(e.run("acme_get_item", `{"id":"1"}`))
	wantCode(t, err, apierr.ExecutionError, 400)
	if msg := err.Error(); !strings.Contains(msg, e.fake.host()) || !strings.Contains(msg, "*.acme.test") || strings.Contains(msg, "client-secret-1") {
		t.Fatalf("message: %s", msg)
	}
	if n := e.fake.refreshes.Load(); n != 0 {
		t.Fatalf("the token endpoint on a host that is not allowed was called %d times", n)
	}
}
