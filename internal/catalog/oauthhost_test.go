package catalog

import (
	"errors"
	"strings"
	"testing"
)

func TestOAuthURL_FillsAndKeepsToAllowedHosts(t *testing.T) {
	t.Parallel()
	okta := []string{"*.okta.com", "*.oktapreview.com"}
	cases := []struct {
		name, tmpl string
		fields     map[string]string
		hosts      []string
		want       string // the URL, or "host:<h>" / "field:<f>" for an error
	}{
		{"fixed URL kept as it is", "https://github.com/login/oauth/access_token", nil, nil, "https://github.com/login/oauth/access_token"},
		{"okta subdomain", "https://{domain}/oauth2/v1/token", map[string]string{"domain": "acme.okta.com"}, okta, "https://acme.okta.com/oauth2/v1/token"},
		{"okta preview, upper case", "https://{domain}/oauth2/v1/token", map[string]string{"domain": "ACME.oktapreview.com"}, okta, "https://ACME.oktapreview.com/oauth2/v1/token"},
		{"deeper subdomain", "https://{domain}/t", map[string]string{"domain": "a.b.okta.com"}, okta, "https://a.b.okta.com/t"},
		{"the bare domain is not a subdomain", "https://{domain}/t", map[string]string{"domain": "okta.com"}, okta, "host:okta.com"},
		{"attacker host", "https://{domain}/t", map[string]string{"domain": "evil.example"}, okta, "host:evil.example"},
		{"suffix trick", "https://{domain}/t", map[string]string{"domain": "evilokta.com"}, okta, "host:evilokta.com"},
		{"suffix with a dot after", "https://{domain}/t", map[string]string{"domain": "acme.okta.com.evil.example"}, okta, "host:acme.okta.com.evil.example"},
		{"trailing dot", "https://{domain}/t", map[string]string{"domain": "acme.okta.com."}, okta, "host:acme.okta.com."},
		{"user info", "https://{domain}/t", map[string]string{"domain": "acme.okta.com@evil.example"}, okta, "host:acme.okta.com@evil.example"},
		{"path in the value", "https://{domain}/t", map[string]string{"domain": "evil.example/x.okta.com"}, okta, "host:evil.example"},
		{"escaped host", "https://{domain}/t", map[string]string{"domain": "evil.example%2f.okta.com"}, okta, "host:evil.example%2f.okta.com"},
		{"other port", "https://{domain}/t", map[string]string{"domain": "acme.okta.com:8443"}, okta, "host:acme.okta.com:8443"},
		{"explicit default port", "https://{domain}/t", map[string]string{"domain": "acme.okta.com:443"}, okta, "https://acme.okta.com:443/t"},
		{"subdomain placeholder", "https://{shop}.myshopify.com/admin/oauth/access_token", map[string]string{"shop": "acme"}, []string{"*.myshopify.com"}, "https://acme.myshopify.com/admin/oauth/access_token"},
		{"operator host with port", "https://{host}/oauth/token", map[string]string{"host": "git.corp.example:8443"}, []string{"git.corp.example:8443"}, "https://git.corp.example:8443/oauth/token"},
		{"gitlab.com only", "https://{host}/oauth/token", map[string]string{"host": "gitlab.example.com"}, []string{"gitlab.com"}, "host:gitlab.example.com"},
		{"no hosts at all", "https://{host}/oauth/token", map[string]string{"host": "gitlab.com"}, nil, "host:gitlab.com"},
		{"missing field", "https://{host}/oauth/token", map[string]string{}, []string{"gitlab.com"}, "field:host"},
		{"empty field", "https://{host}/oauth/token", map[string]string{"host": ""}, []string{"gitlab.com"}, "field:host"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := OAuthURL(c.tmpl, c.fields, c.hosts)
			var ue *OAuthURLError
			switch {
			case strings.HasPrefix(c.want, "host:"):
				if !errors.As(err, &ue) || ue.Host != strings.TrimPrefix(c.want, "host:") {
					t.Fatalf("got %q, %v; want host %s refused", got, err, c.want)
				}
			case strings.HasPrefix(c.want, "field:"):
				if !errors.As(err, &ue) || ue.Field != strings.TrimPrefix(c.want, "field:") {
					t.Fatalf("got %q, %v; want %s missing", got, err, c.want)
				}
			case err != nil || got != c.want:
				t.Fatalf("got %q, %v; want %q", got, err, c.want)
			}
		})
	}
}

func TestValidHostPattern(t *testing.T) {
	t.Parallel()
	for p, want := range map[string]bool{
		"gitlab.com": true, "*.okta.com": true, "git.corp.example:8443": true, "127.0.0.1:9000": true,
		"": false, "*": false, "*.com.": false, "a.*.com": false, "https://gitlab.com": false, "gitlab.com/x": false,
		"localhost": false, "gitlab.com:": false, "gitlab.com:x": false, "a..com": false,
	} {
		if got := ValidHostPattern(p); got != want {
			t.Errorf("ValidHostPattern(%q) = %v, want %v", p, got, want)
		}
	}
}

// TestLoad_TemplatedOAuthNeedsAllowedHosts: an OAuth method whose URLs take
// a user-typed host must say which hosts the client secret may go to.
func TestLoad_TemplatedOAuthNeedsAllowedHosts(t *testing.T) {
	t.Parallel()
	const method = `  - {id: api_key, type: api_key, name: API key, apiKey: {in: header, name: Authorization, format: "Bearer {value}"}}`
	templated := strings.Replace(strings.Replace(goodConnector, `api: {baseUrl: "https://api.acme.test/v1"}`,
		"api: {baseUrl: \"https://{domain}/v1\"}\nconnectionFields:\n  - {name: domain, label: Domain}", 1), method, method+`
  - id: oauth2
    type: oauth2
    name: OAuth
    oauth2: {authorizeUrl: "https://{domain}/authorize", tokenUrl: "https://{domain}/token"}`, 1)
	if err := loadOne(t, templated); err == nil || !strings.Contains(err.Error(), "oauth2.allowedHosts: is required") {
		t.Fatalf("templated OAuth without allowedHosts: %v", err)
	}
	withHosts := strings.Replace(templated, `tokenUrl: "https://{domain}/token"}`, `tokenUrl: "https://{domain}/token", allowedHosts: ["*.acme.test"]}`, 1)
	if err := loadOne(t, withHosts); err != nil {
		t.Fatalf("with allowedHosts: %v", err)
	}
	bad := strings.Replace(withHosts, `"*.acme.test"`, `"https://*.acme.test/"`, 1)
	if err := loadOne(t, bad); err == nil || !strings.Contains(err.Error(), "allowedHosts[0]") {
		t.Fatalf("bad pattern: %v", err)
	}
}
