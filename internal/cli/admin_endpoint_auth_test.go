package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

func TestAdminEndpoint_OAuthSignIn(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	proj := newProject(t, env)
	const secret = "0123456789abcdef0123456789abcdef-cli"
	code, out, stderr := runCLI(t, env, "admin", "endpoint", "create", "--project", proj.ID, "--slug", "signin-cli", "--connectors", "github",
		"--auth", "oauth", "--handoff-url", "https://app.example/signin", "--handoff-issuer", "https://app.example", "--handoff-secret", secret, "--json")
	if code != 0 || !strings.Contains(out, `"auth": "oauth"`) || !strings.Contains(out, `"handoffUrl": "https://app.example/signin"`) || strings.Contains(out, secret) {
		t.Fatalf("create: %d %s %s", code, out, stderr)
	}
	st, err := store.Open(context.Background(), env["SWITCHBOARD_DATABASE_URL"], store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	e, err := st.EndpointBySlug(context.Background(), "signin-cli")
	if err != nil || e.Auth != store.AuthOAuth || len(e.AuthSecret) == 0 || strings.Contains(string(e.AuthSecret), secret) {
		t.Fatalf("stored: %+v %v", e, err)
	}
	// An update without --auth keeps the sign-in; --auth api_key drops it.
	if code, out, stderr := runCLI(t, env, "admin", "endpoint", "update", "--slug", "signin-cli", "--connectors", "github", "--json"); code != 0 || !strings.Contains(out, `"auth": "oauth"`) {
		t.Fatalf("update keeps: %d %s %s", code, out, stderr)
	}
	if code, out, _ := runCLI(t, env, "admin", "endpoint", "update", "--slug", "signin-cli", "--auth", "api_key", "--json"); code != 0 || !strings.Contains(out, `"auth": "api_key"`) {
		t.Fatalf("update to api_key: %d %s", code, out)
	}
	// OpenID Connect sign-in instead of a handoff.
	if code, out, stderr := runCLI(t, env, "admin", "endpoint", "update", "--slug", "signin-cli", "--auth", "oauth", "--oidc-issuer", "https://idp.example",
		"--oidc-client-id", "sb", "--oidc-client-secret", "idp-secret", "--oidc-user-claim", "email", "--json"); code != 0 ||
		!strings.Contains(out, `"kind": "oidc"`) || !strings.Contains(out, `"userClaim": "email"`) || strings.Contains(out, "idp-secret") {
		t.Fatalf("update to oidc: %d %s %s", code, out, stderr)
	}
	if code, _, stderr := runCLI(t, env, "admin", "endpoint", "update", "--slug", "signin-cli", "--auth", "oauth", "--oidc-issuer", "https://idp.example",
		"--handoff-url", "https://app.example/signin"); code == 0 || !strings.Contains(stderr, "not both") {
		t.Fatalf("handoff and oidc flags together: %d %s", code, stderr)
	}
	// A short secret, an http handoff URL off loopback: refused.
	if code, _, stderr := runCLI(t, env, "admin", "endpoint", "create", "--project", proj.ID, "--slug", "signin-bad", "--auth", "oauth",
		"--handoff-url", "http://app.example/signin", "--handoff-issuer", "x", "--handoff-secret", "short"); code == 0 || !strings.Contains(stderr, "secret") || !strings.Contains(stderr, "handoffUrl") {
		t.Fatalf("bad settings: %d %s", code, stderr)
	}
}
