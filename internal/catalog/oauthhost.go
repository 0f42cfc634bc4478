package catalog

import (
	"fmt"
	"net"
	"net/url"
	"strings"
)

// An OAuth URL with {field} placeholders (GitLab's {host}, Okta's
// {domain}, Zendesk's {subdomain}, Shopify's {shop}) is filled from what
// the user typed. The project's client secret goes to the token URL, so a
// filled URL must land on a host the connector's definition allows
// (oauth2.allowedHosts) or, when the operator configured hosts for the
// auth config, on one of those.

// OAuthURLError says why an OAuth URL could not be made from a template.
type OAuthURLError struct {
	// Field is the connection field that is missing, when one is.
	Field string
	// Host is the host the filled URL named, when it is not allowed.
	Host string
}

func (e *OAuthURLError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("the OAuth URL needs connection field %q", e.Field)
	}
	return fmt.Sprintf("OAuth host %q is not allowed", e.Host)
}

// Templated reports whether an OAuth URL has placeholders to fill.
func Templated(tmpl string) bool { return placeholderRegex.MatchString(tmpl) }

// OAuthURL fills the {field} placeholders of an OAuth URL template from a
// connection's fields. A URL without placeholders is returned as it is
// (its host is the definition's own); a filled one must be https, carry no
// user info, and have a host that matches one of hosts. The error is an
// *OAuthURLError for a missing field or a host that is not allowed.
func OAuthURL(tmpl string, fields map[string]string, hosts []string) (string, error) {
	if !Templated(tmpl) {
		return tmpl, nil
	}
	var missing string
	out := placeholderRegex.ReplaceAllStringFunc(tmpl, func(m string) string {
		name := placeholderRegex.FindStringSubmatch(m)[1]
		v, ok := fields[name]
		if !ok || v == "" {
			missing = name
		}
		return v
	})
	if missing != "" {
		return "", &OAuthURLError{Field: missing}
	}
	u, err := url.Parse(out)
	if err != nil || u.Scheme != "https" || u.User != nil || u.Host == "" || u.Opaque != "" {
		return "", &OAuthURLError{Host: hostOf(out)}
	}
	if !HostAllowed(u.Host, hosts) {
		return "", &OAuthURLError{Host: u.Host}
	}
	return out, nil
}

// hostOf is a best-effort host of a URL that did not parse cleanly, for
// the error message.
func hostOf(raw string) string {
	rest := strings.TrimPrefix(raw, "https://")
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// HostAllowed reports whether host (a URL's host, with a port when it has
// one) matches one of the patterns. A pattern is a host name, optionally
// with a port, or "*." and a domain, which matches every name under that
// domain (not the domain itself). A pattern without a port matches only
// the https default port. Names compare case-insensitively.
func HostAllowed(host string, patterns []string) bool {
	name, port := splitHostPort(host)
	if !plainHostName(name) {
		return false
	}
	for _, p := range patterns {
		pname, pport := splitHostPort(p)
		if pport != port {
			continue
		}
		if suffix, ok := strings.CutPrefix(pname, "*."); ok {
			if strings.HasSuffix(name, "."+suffix) {
				return true
			}
			continue
		}
		if name == pname {
			return true
		}
	}
	return false
}

// ValidHostPattern reports whether p is a pattern HostAllowed understands.
func ValidHostPattern(p string) bool {
	name, port := splitHostPort(p)
	if port == "" {
		return false
	}
	name = strings.TrimPrefix(name, "*.")
	return plainHostName(name) && strings.Trim(name, ".") == name && !strings.Contains(name, "..") && strings.Contains(name, ".")
}

// splitHostPort lowercases a host and splits off its port, "443" when it
// has none; a malformed port yields "".
func splitHostPort(h string) (name, port string) {
	h = strings.ToLower(h)
	if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.Contains(h[i:], "]") {
		name, port = h[:i], h[i+1:]
		if port == "" || strings.Trim(port, "0123456789") != "" || len(port) > 5 {
			return name, ""
		}
		return name, port
	}
	return h, "443"
}

// plainHostName reports whether name is a DNS name or an IPv4 address
// written plainly: letters, digits, dots and hyphens, nothing escaped.
func plainHostName(name string) bool {
	if name == "" {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '*') {
			return false
		}
	}
	if strings.Contains(name, "*") {
		return false
	}
	return net.ParseIP(name) != nil || !strings.HasSuffix(name, ".")
}
