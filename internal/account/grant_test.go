package account_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// TestParseCredential_KeyHoldingTypes checks the shapes a key may arrive
// in (PKCS #1, PKCS #8, pasted from JSON with \n escapes, ids as numbers)
// and that a refusal never repeats the key.
func TestParseCredential_KeyHoldingTypes(t *testing.T) {
	t.Parallel()
	rk, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pkcs1 := string(pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(rk)}))
	der, _ := x509.MarshalPKCS8PrivateKey(rk)
	pkcs8 := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	escaped := strings.ReplaceAll(pkcs8, "\n", `\n`)
	ek, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	ecDER, _ := x509.MarshalPKCS8PrivateKey(ek)
	ecKey := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: ecDER}))

	con := &catalog.Connector{ID: "acme", AuthMethods: []catalog.AuthMethod{
		{ID: "gh", Type: catalog.AuthGitHubApp, OAuth2: &catalog.OAuth2{TokenURL: "https://api.acme.test/app/installations/{installationId}/access_tokens"}},
		{ID: "jwt", Type: catalog.AuthJWTBearer, OAuth2: &catalog.OAuth2{TokenURL: "https://login.acme.test/token"}},
		{ID: "sa", Type: catalog.AuthServiceAccount, OAuth2: &catalog.OAuth2{TokenURL: "https://oauth2.acme.test/token"}},
	}}
	parse := func(method int, cred map[string]any) (account.Credential, error) {
		raw, _ := json.Marshal(cred)
		c, _, err := account.ParseCredential(raw, con, &con.AuthMethods[method], "credential")
		return c, err
	}
	for _, key := range []string{pkcs1, pkcs8, escaped} {
		c, err := parse(0, map[string]any{"type": "github_app", "appId": 42, "installationId": 7, "privateKey": key})
		if err != nil || c.Issuer != "42" || c.InstallationID != "7" || !strings.HasPrefix(c.PrivateKey, "-----BEGIN") {
			t.Fatalf("github app with a %d-byte key: %+v %v", len(key), c.Issuer, err)
		}
	}
	c, err := parse(1, map[string]any{"type": "oauth2_jwt_bearer", "clientId": "ck", "username": "ann@acme.test", "privateKey": pkcs1})
	if err != nil || c.Issuer != "ck" || c.Subject != "ann@acme.test" || c.ClientID != "" || c.Username != "" {
		t.Fatalf("jwt bearer: %v", err)
	}
	keyFile := map[string]any{"type": "service_account", "client_email": "bot@acme.test", "private_key": pkcs8, "private_key_id": "k1", "token_uri": "https://oauth2.acme.test/token"}
	c, err = parse(2, map[string]any{"type": "google_service_account", "serviceAccountKey": keyFile})
	if err != nil || c.Issuer != "bot@acme.test" || c.PrivateKeyID != "k1" || c.Subject != "" {
		t.Fatalf("service account: %v", err)
	}

	body := strings.Split(pkcs8, "\n")[1]
	for name, tc := range map[string]struct {
		method int
		cred   map[string]any
		path   string
	}{
		"EC key":            {0, map[string]any{"type": "github_app", "appId": 1, "installationId": 2, "privateKey": ecKey}, "privateKey"},
		"negative id":       {0, map[string]any{"type": "github_app", "appId": 1, "installationId": -2, "privateKey": pkcs8}, "installationId"},
		"app id with space": {0, map[string]any{"type": "github_app", "appId": "1 2", "installationId": 2, "privateKey": pkcs8}, "appId"},
		"truncated key":     {1, map[string]any{"type": "oauth2_jwt_bearer", "clientId": "c", "username": "u", "privateKey": pkcs8[:200]}, "privateKey"},
		"key file as text":  {2, map[string]any{"type": "google_service_account", "serviceAccountKey": "not json " + body}, "serviceAccountKey"},
		"other token uri": {2, map[string]any{"type": "google_service_account", "serviceAccountKey": map[string]any{
			"type": "service_account", "client_email": "b@a", "private_key": pkcs8, "token_uri": "https://elsewhere.test/token"}}, "serviceAccountKey"},
	} {
		_, err := parse(tc.method, tc.cred)
		e, ok := apierr.As(err)
		if !ok || e.Code != apierr.ValidationError || len(e.Issues) != 1 || e.Issues[0].Path[1] != tc.path {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if b, _ := json.Marshal(e); strings.Contains(string(b), body[:24]) {
			t.Errorf("%s: the refusal repeats the key: %s", name, b)
		}
	}
}
