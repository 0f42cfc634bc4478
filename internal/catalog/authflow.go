package catalog

import (
	"slices"
	"strings"
)

// BaseURLFor returns the base URL of an account of auth method methodID:
// the method's own base URL where it has one, else api.baseUrl.
func (c *Connector) BaseURLFor(methodID string) string {
	if m := c.AuthMethod(methodID); m != nil && m.BaseURL != "" {
		return m.BaseURL
	}
	return c.API.BaseURL
}

// UsedBy reports whether accounts of auth method methodID use the field.
func (f *ConnectionField) UsedBy(methodID string) bool {
	return len(f.AuthMethods) == 0 || slices.Contains(f.AuthMethods, methodID)
}

// Supplies reports whether the method's OAuth sign-in supplies the
// connection field name itself (a redirect parameter or a value of the
// after-token call), so that the user never types it.
func (m *AuthMethod) Supplies(name string) bool {
	if m.Type != AuthOAuth2 || m.OAuth2 == nil {
		return false
	}
	if slices.Contains(m.OAuth2.RedirectParams, name) {
		return true
	}
	if a := m.OAuth2.AfterToken; a != nil {
		_, ok := a.Select[name]
		return ok
	}
	return false
}

// Chooses reports whether the connection field name only helps the
// method's sign-in choose among the answers of its after-token call (a
// Jira site among the sites the user granted): the user may leave it empty.
func (m *AuthMethod) Chooses(name string) bool {
	if m.Type != AuthOAuth2 || m.OAuth2 == nil || m.OAuth2.AfterToken == nil {
		return false
	}
	for _, v := range m.OAuth2.AfterToken.Match {
		if strings.Contains(v, "{"+name+"}") {
			return true
		}
	}
	return false
}

// FillTemplate replaces {field} placeholders with the fields' values and
// reports whether every placeholder had a non-empty value.
func FillTemplate(tmpl string, fields map[string]string) (string, bool) {
	if !strings.Contains(tmpl, "{") {
		return tmpl, true
	}
	complete := true
	out := placeholderRegex.ReplaceAllStringFunc(tmpl, func(m string) string {
		v := fields[placeholderRegex.FindStringSubmatch(m)[1]]
		if v == "" {
			complete = false
		}
		return v
	})
	return out, complete
}
