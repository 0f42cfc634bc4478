package catalog

import (
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// paramName is a query parameter name a definition may choose.
var paramName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)

// methodFields checks what ties an auth method to connection fields: its
// own base URL, the api.baseUrl placeholders its accounts must fill, the
// redirect parameters and the after-token call of an OAuth sign-in.
func (v *validator) methodFields(p string, c *Connector, m *AuthMethod) {
	used := map[string]bool{}
	for _, f := range c.ConnectionFields {
		if f.UsedBy(m.ID) {
			used[f.Name] = true
		}
	}
	if m.BaseURL != "" {
		v.baseURL(p+".baseUrl", m.BaseURL, used, false)
	} else if !c.MCP() {
		for _, ph := range placeholderRegex.FindAllStringSubmatch(c.API.BaseURL, -1) {
			if c.fieldIndex(ph[1]) >= 0 && !used[ph[1]] {
				v.add(p+".baseUrl", "is required: api.baseUrl needs {%s}, which accounts of this method do not have", ph[1])
			}
		}
	}
	if m.OAuth2 == nil {
		return
	}
	o := m.OAuth2
	if m.Type != AuthOAuth2 && (len(o.RedirectParams) > 0 || o.AfterToken != nil) {
		v.add(p+".oauth2", "redirectParams and afterToken are only for type oauth2 (a sign-in in the browser)")
		return
	}
	if m.Type != AuthOAuth2 && (o.ScopeParam != "" || o.TokenPath != "") {
		v.add(p+".oauth2", "scopeParam and tokenPath are only for type oauth2 (a sign-in in the browser)")
	}
	if o.ScopeParam != "" && !paramName.MatchString(o.ScopeParam) {
		v.add(p+".oauth2.scopeParam", "%q is not a query parameter name (letters, digits, _ and -)", o.ScopeParam)
	}
	if o.TokenPath != "" && !dottedPath(o.TokenPath) {
		v.add(p+".oauth2.tokenPath", "%q is not a dotted path", o.TokenPath)
	}
	for i, name := range o.RedirectParams {
		if !used[name] {
			v.add(fmt.Sprintf("%s.oauth2.redirectParams[%d]", p, i), "%q is not a connection field of this method", name)
		}
	}
	a := o.AfterToken
	if a == nil {
		return
	}
	ap := p + ".oauth2.afterToken"
	switch a.Method {
	case "":
		a.Method = "GET"
	case "GET", "POST":
	default:
		v.add(ap+".method", "%q must be GET or POST", a.Method)
	}
	// The new access token goes to this URL: a fixed https address, never
	// one a user could fill.
	if u, err := url.Parse(a.URL); err != nil || u.Scheme != "https" || u.Host == "" || Templated(a.URL) {
		v.add(ap+".url", "%q must be an https URL without placeholders", a.URL)
	}
	if a.TokenFormat != "" && strings.Count(a.TokenFormat, "{value}") != 1 {
		v.add(ap+".tokenFormat", "%q must hold {value} once", a.TokenFormat)
	}
	if len(a.Select) == 0 {
		v.add(ap+".select", "names at least one connection field and the dotted path of its value")
	}
	for name, path := range a.Select {
		if !used[name] {
			v.add(ap+".select."+name, "%q is not a connection field of this method", name)
		}
		if path == "" {
			v.add(ap+".select."+name, "the dotted path is empty")
		}
		if slices.Contains(o.RedirectParams, name) {
			v.add(ap+".select."+name, "is already a redirect parameter")
		}
	}
	for path, val := range a.Match {
		if path == "" {
			v.add(ap+".match", "a dotted path is empty")
		}
		for _, ph := range placeholderRegex.FindAllStringSubmatch(val, -1) {
			if !used[ph[1]] {
				v.add(ap+".match."+path, "placeholder {%s} is not a connection field of this method", ph[1])
			}
		}
	}
}

// fieldIndex returns the index of connection field name, or -1.
func (c *Connector) fieldIndex(name string) int {
	return slices.IndexFunc(c.ConnectionFields, func(f ConnectionField) bool { return f.Name == name })
}
