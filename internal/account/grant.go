package account

import (
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"regexp"
	"strconv"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// The fields of the key-holding credentials (oauth2_jwt_bearer,
// google_service_account, github_app; docs/auth-methods.md). A key that
// cannot be used is refused when it is stored, with a message that says
// what is wrong and never repeats the key.

var (
	digits      = regexp.MustCompile(`^[0-9]{1,20}$`)
	githubAppID = regexp.MustCompile(`^([0-9]{1,20}|Iv[0-9A-Za-z.]{1,40})$`)
)

// serviceAccountKey is the JSON key file Google issues for a service account.
type serviceAccountKey struct {
	Type         string `json:"type"`
	ClientEmail  string `json:"client_email"`
	PrivateKey   string `json:"private_key"`
	PrivateKeyID string `json:"private_key_id"`
	TokenURI     string `json:"token_uri"`
}

// parseGrantField reads one field of a key-holding credential into c.
func parseGrantField(c *Credential, method *catalog.AuthMethod, name string, raw json.RawMessage, path []any, issues *apierr.Issues) {
	switch name {
	case "privateKey":
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			issues.Add(apierr.IssueInvalidType, path, "must be a string: the PEM private key")
			return
		}
		key, ok := rsaKey(s)
		if !ok {
			issues.Add(apierr.IssueInvalidValue, path, "is not a PEM-encoded RSA private key (a block that begins -----BEGIN PRIVATE KEY----- or -----BEGIN RSA PRIVATE KEY-----)")
			return
		}
		c.PrivateKey = key
	case "appId":
		s, ok := idString(raw)
		if !ok || !githubAppID.MatchString(s) {
			issues.Add(apierr.IssueInvalidValue, path, "must be the GitHub App's numeric app id or its client id (Iv…), from the app's settings page")
			return
		}
		c.Issuer = s
	case "installationId":
		s, ok := idString(raw)
		if !ok || !digits.MatchString(s) {
			issues.Add(apierr.IssueInvalidValue, path, "must be the numeric installation id (the number at the end of the installation's settings URL)")
			return
		}
		c.InstallationID = s
	case "subject":
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			issues.Add(apierr.IssueInvalidType, path, "must be a string: the e-mail address of the user to act as")
			return
		}
		s = strings.TrimSpace(s)
		if s != "" && !strings.Contains(s, "@") {
			issues.Add(apierr.IssueInvalidValue, path, "must be the e-mail address of a user in the service account's Google Workspace domain, or left out")
			return
		}
		c.Subject = s
	case "serviceAccountKey":
		parseServiceAccountKey(c, method, raw, path, issues)
	}
}

// parseServiceAccountKey reads a service account's JSON key, given as the
// key file's object or as a string holding it (a pasted or uploaded file).
func parseServiceAccountKey(c *Credential, method *catalog.AuthMethod, raw json.RawMessage, path []any, issues *apierr.Issues) {
	var text string
	if json.Unmarshal(raw, &text) == nil {
		raw = json.RawMessage(text)
	}
	var k serviceAccountKey
	if err := json.Unmarshal(raw, &k); err != nil {
		issues.Add(apierr.IssueInvalidValue, path, "must be the service account's JSON key file (an object with client_email and private_key), as Google Cloud console downloads it")
		return
	}
	switch {
	case k.Type != "service_account":
		issues.Add(apierr.IssueInvalidValue, path, "is not a service account key: its type must be service_account (create a JSON key under IAM → Service accounts → Keys)")
		return
	case k.ClientEmail == "":
		issues.Add(apierr.IssueInvalidValue, path, "has no client_email")
		return
	}
	key, ok := rsaKey(k.PrivateKey)
	if !ok {
		issues.Add(apierr.IssueInvalidValue, path, "has no usable private_key (a PEM RSA private key); download a new JSON key")
		return
	}
	// The assertion goes to the method's token endpoint only; a key file
	// naming another one is not for this provider.
	if k.TokenURI != "" && method.OAuth2 != nil && k.TokenURI != method.OAuth2.TokenURL {
		issues.Add(apierr.IssueInvalidValue, path, "names token_uri %q, but auth method %s gets tokens from %s", k.TokenURI, method.ID, method.OAuth2.TokenURL)
		return
	}
	c.Issuer, c.PrivateKey, c.PrivateKeyID = k.ClientEmail, key, k.PrivateKeyID
}

// rsaKey returns a PEM RSA private key (PKCS #1 or PKCS #8) as one PEM
// block, reporting whether it is one. Keys pasted from a JSON file with
// their line breaks written as \n are accepted too.
func rsaKey(s string) (string, bool) {
	s = strings.TrimSpace(strings.ReplaceAll(s, `\n`, "\n"))
	block, _ := pem.Decode([]byte(s))
	if block == nil {
		return "", false
	}
	switch block.Type {
	case "RSA PRIVATE KEY":
		if _, err := x509.ParsePKCS1PrivateKey(block.Bytes); err != nil {
			return "", false
		}
	case "PRIVATE KEY":
		k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
		if err != nil {
			return "", false
		}
		if _, ok := k.(*rsa.PrivateKey); !ok {
			return "", false
		}
	default:
		return "", false
	}
	return string(pem.EncodeToMemory(block)), true
}

// idString reads an id given as a JSON string or number.
func idString(raw json.RawMessage) (string, bool) {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return strings.TrimSpace(s), true
	}
	var n json.Number
	if json.Unmarshal(raw, &n) == nil {
		if _, err := strconv.ParseUint(n.String(), 10, 64); err == nil {
			return n.String(), true
		}
	}
	return "", false
}
