package connect

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"golang.org/x/oauth2"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// typedBeforeSignIn reports whether the user types connection field f
// before method m's sign-in: the method's accounts use it and neither the
// token nor the sign-in itself supplies it.
func typedBeforeSignIn(m *catalog.AuthMethod, f *catalog.ConnectionField) bool {
	return f.FromToken == "" && f.UsedBy(m.ID) && !m.Supplies(f.Name)
}

// oauthFields checks the connection fields a user typed before an OAuth
// sign-in (typedBeforeSignIn): each must be a string that matches its
// pattern; a field left out takes its default, and one without a default
// is required unless it only chooses among the sign-in's answers.
// Problems are VALIDATION_ERROR issues under "fields", as the page sent
// them.
func oauthFields(c *catalog.Connector, m *catalog.AuthMethod, in map[string]any) (map[string]string, error) {
	var issues apierr.Issues
	out := map[string]string{}
	reported := map[string]bool{}
	names := make([]string, 0, len(in))
	for name := range in {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		i := slices.IndexFunc(c.ConnectionFields, func(f catalog.ConnectionField) bool { return f.Name == name && typedBeforeSignIn(m, &f) })
		if i < 0 {
			issues.Add(apierr.IssueUnknownField, []any{"fields", name}, "is not a field of %s's sign-in", c.Name)
			continue
		}
		v, ok := in[name].(string)
		if !ok {
			issues.Add(apierr.IssueInvalidType, []any{"fields", name}, "must be a string")
			reported[name] = true
			continue
		}
		if v == "" {
			continue
		}
		if f := &c.ConnectionFields[i]; !f.Matches(v) {
			issues.Add(apierr.IssueInvalidValue, []any{"fields", name}, "does not look like a %s (for example %s)", f.Label, f.Example)
			reported[name] = true
			continue
		}
		out[name] = v
	}
	for _, f := range c.ConnectionFields {
		if _, ok := out[f.Name]; ok || !typedBeforeSignIn(m, &f) {
			continue
		}
		if f.Default != "" {
			out[f.Name] = f.Default
			continue
		}
		if !reported[f.Name] && !m.Chooses(f.Name) {
			issues.Add(apierr.IssueRequired, []any{"fields", f.Name}, "is required: %s", f.Label)
		}
	}
	if err := issues.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// oauthEndpoint fills a method's authorize and token URLs from an
// account's connection fields, and keeps a user-typed host to the hosts the
// auth config's client may be used with (account.OAuthHosts): the token
// exchange sends the project's client secret there. A host that is not
// allowed, or a missing field, is VALIDATION_ERROR under "fields".
func oauthEndpoint(c *catalog.Connector, ac store.AuthConfig, m *catalog.AuthMethod, fields map[string]string) (oauth2.Endpoint, error) {
	hosts := account.OAuthHosts(ac, m)
	authURL, err := catalog.OAuthURL(m.OAuth2.AuthorizeURL, fields, hosts)
	if err != nil {
		return oauth2.Endpoint{}, oauthURLError(c, m, ac, err)
	}
	tokenURL, err := catalog.OAuthURL(m.OAuth2.TokenURL, fields, hosts)
	if err != nil {
		return oauth2.Endpoint{}, oauthURLError(c, m, ac, err)
	}
	return oauth2.Endpoint{AuthURL: authURL, TokenURL: tokenURL}, nil
}

// oauthURLError says which field to fix when a filled OAuth URL is refused.
func oauthURLError(c *catalog.Connector, m *catalog.AuthMethod, ac store.AuthConfig, err error) error {
	var ue *catalog.OAuthURLError
	if !errors.As(err, &ue) {
		return err
	}
	if ue.Field != "" {
		return apierr.Validation(apierr.Issue{Code: apierr.IssueRequired, Path: []any{"fields", ue.Field}, Message: "is required to sign in to " + c.Name})
	}
	// Point at the field that makes the host: the first placeholder of the
	// URL that names a connection field.
	label, path := "host", []any{"fields"}
	for _, f := range c.ConnectionFields {
		if strings.Contains(m.OAuth2.AuthorizeURL, "{"+f.Name+"}") || strings.Contains(m.OAuth2.TokenURL, "{"+f.Name+"}") {
			label, path = f.Label, []any{"fields", f.Name}
			break
		}
	}
	return apierr.Validation(apierr.Issue{Code: apierr.IssueInvalidValue, Path: path, Message: fmt.Sprintf(
		"makes the sign-in address %s, which this project's %s client may not be used with (allowed: %s); check the %s, or ask the project's administrator to allow that host",
		ue.Host, c.Name, strings.Join(account.OAuthHosts(ac, m), ", "), label)})
}
