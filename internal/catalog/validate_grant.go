package catalog

import (
	"fmt"
	"slices"
	"strings"
)

// grantMethod checks an auth method whose tokens the gateway obtains with
// a key the account holds: the JWT bearer grant (RFC 7523), a Google
// service account, a GitHub App installation (docs/auth-methods.md).
func (v *validator) grantMethod(p string, m *AuthMethod, fields map[string]bool) {
	o := m.OAuth2
	if o == nil || o.TokenURL == "" {
		v.add(p+".oauth2.tokenUrl", "is required for type %s", m.Type)
		return
	}
	if o.AuthorizeURL != "" || o.PKCE || o.Refresh || len(o.AuthorizeParams) > 0 || len(o.RedirectParams) > 0 || o.AfterToken != nil || len(o.TokenParams) > 0 ||
		o.RefreshURL != "" || o.TokenBodyType != "" || o.TokenScope {
		v.add(p+".oauth2", "type %s takes only tokenUrl, scopes, audience, allowedHosts and placement", m.Type)
	}
	tokenURL := o.TokenURL
	if m.Type == AuthGitHubApp {
		// The installation id is the credential's own, not a connection field.
		if !strings.Contains(tokenURL, "{installationId}") {
			v.add(p+".oauth2.tokenUrl", "%q must contain {installationId}", tokenURL)
		}
		tokenURL = strings.ReplaceAll(tokenURL, "{installationId}", "1")
		if o.Audience != "" || len(o.Scopes) > 0 {
			v.add(p+".oauth2", "a github_app token takes no audience or scopes (the installation's permissions apply)")
		}
	}
	v.baseURL(p+".oauth2.tokenUrl", tokenURL, fields, false)
	if o.Audience != "" {
		v.baseURL(p+".oauth2.audience", o.Audience, fields, false)
	}
	if (Templated(tokenURL) || Templated(o.Audience)) && len(o.AllowedHosts) == 0 {
		v.add(p+".oauth2.allowedHosts", "is required when the token URL or audience has a placeholder: a signed assertion goes to the host the account names")
	}
	for i, h := range o.AllowedHosts {
		if !ValidHostPattern(h) {
			v.add(fmt.Sprintf("%s.oauth2.allowedHosts[%d]", p, i), "%q is not a host name, host:port or *.domain", h)
		}
	}
	if o.TokenAuthStyle != "" {
		v.add(p+".oauth2.tokenAuthStyle", "is not used by type %s (no client secret is sent)", m.Type)
	}
	if o.Placement != nil {
		v.placement(p+".oauth2.placement", o.Placement)
	}
}

// tokenParams checks the extra token request fields of a client-credentials
// method.
func (v *validator) tokenParams(p string, m *AuthMethod, fields map[string]bool) {
	o := m.OAuth2
	if len(o.TokenParams) == 0 {
		return
	}
	if m.Type != AuthOAuth2ClientCredentials {
		v.add(p+".oauth2.tokenParams", "is only for type oauth2_client_credentials")
		return
	}
	for name, val := range o.TokenParams {
		switch name {
		case "", "client_id", "client_secret", "scope":
			v.add(p+".oauth2.tokenParams", "%q cannot be set here (the credential and scopes supply it)", name)
		}
		for _, ph := range placeholderRegex.FindAllStringSubmatch(val, -1) {
			if !fields[ph[1]] {
				v.add(p+".oauth2.tokenParams."+name, "placeholder {%s} is not a connection field", ph[1])
			}
		}
	}
}

// methodPaths checks an auth method's path rewrites.
func (v *validator) methodPaths(p string, m *AuthMethod, fields map[string]bool) {
	for from, to := range m.PathPrefixes {
		if !strings.HasPrefix(from, "/") || !strings.HasPrefix(to, "/") || strings.Contains(to, "..") {
			v.add(p+".pathPrefixes", "%q: %q must map a path start to a path start, both beginning with /", from, to)
		}
		for _, ph := range placeholderRegex.FindAllStringSubmatch(to, -1) {
			if !fields[ph[1]] {
				v.add(p+".pathPrefixes."+from, "placeholder {%s} is not a connection field", ph[1])
			}
		}
	}
}

// excludedTools checks that a method's excluded tools are the connector's.
func (v *validator) excludedTools(p string, c *Connector, m *AuthMethod) {
	for i, id := range m.ExcludeTools {
		if !slices.ContainsFunc(c.Tools, func(t *Tool) bool { return t.ID == id }) {
			v.add(fmt.Sprintf("%s.excludeTools[%d]", p, i), "%q is not a tool of %s", id, c.ID)
		}
	}
	if len(m.ExcludeTools) > 0 && len(m.ExcludeTools) >= len(c.Tools) {
		v.add(p+".excludeTools", "excludes every tool of %s", c.ID)
	}
}

// tokenRequest checks how an oauth2 or client-credentials method's token
// requests are sent: the body type, and the refresh URL and the scope of
// the code exchange, which only a sign-in (oauth2) has.
func (v *validator) tokenRequest(p string, m *AuthMethod, fields map[string]bool) {
	o := m.OAuth2
	switch o.TokenBodyType {
	case "", "form", "json":
	default:
		v.add(p+".oauth2.tokenBodyType", "%q must be form or json", o.TokenBodyType)
	}
	if m.Type != AuthOAuth2 {
		if o.RefreshURL != "" || o.TokenScope {
			v.add(p+".oauth2", "refreshUrl and tokenScope are only for type oauth2 (a sign-in with refresh tokens)")
		}
		return
	}
	if o.RefreshURL != "" {
		if !o.Refresh {
			v.add(p+".oauth2.refreshUrl", "is set but refresh is false")
		}
		v.baseURL(p+".oauth2.refreshUrl", o.RefreshURL, fields, false)
	}
}
