// Package account owns connections (accounts): the credential each one
// holds, sealed at rest, its lifecycle (create, rename, rotate, default,
// delete), auth configs, global-account permissions, and the rules that
// pick the account a call runs with (docs/connections.md).
package account

import (
	"encoding/json"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// Credential is what a connection stores, sealed. It never prints or logs
// its values; it is encoded to JSON only to be sealed.
type Credential struct {
	Type string `json:"type"`
	// Method is the id of the connector auth method the credential is for.
	Method string `json:"method,omitempty"`
	// api_key
	APIKey string `json:"apiKey,omitempty"`
	// basic
	Username string `json:"username,omitempty"`
	Password string `json:"password,omitempty"`
	// oauth2
	AccessToken  string    `json:"accessToken,omitempty"`
	RefreshToken string    `json:"refreshToken,omitempty"`
	TokenType    string    `json:"tokenType,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	// oauth2_client_credentials
	ClientID     string `json:"clientId,omitempty"`
	ClientSecret string `json:"clientSecret,omitempty"`
	// aws_iam
	AccessKeyID     string `json:"accessKeyId,omitempty"`
	SecretAccessKey string `json:"secretAccessKey,omitempty"`
	SessionToken    string `json:"sessionToken,omitempty"`
	Region          string `json:"region,omitempty"`
	// oauth2_jwt_bearer, google_service_account, github_app: the key that
	// signs assertions, the issuer (consumer key, service account e-mail,
	// GitHub App id), the subject (user to act as), the key id, and a
	// GitHub App's installation id (grant.go).
	PrivateKey     string `json:"privateKey,omitempty"`
	PrivateKeyID   string `json:"privateKeyId,omitempty"`
	Issuer         string `json:"issuer,omitempty"`
	Subject        string `json:"subject,omitempty"`
	InstallationID string `json:"installationId,omitempty"`
	// custom: the auth method's named fields.
	Fields map[string]string `json:"fields,omitempty"`
	// Connection holds the connector's connection fields (shop, subdomain, ...).
	Connection map[string]string `json:"connection,omitempty"`
}

// LogValue keeps credentials out of logs.
func (Credential) LogValue() slog.Value { return slog.StringValue("[redacted credential]") }

// String keeps credentials out of fmt output.
func (Credential) String() string { return "[redacted credential]" }

// GoString keeps credentials out of %#v output.
func (Credential) GoString() string { return "[redacted credential]" }

// credentialFields lists, per type, the request fields and whether each is
// required. Connection fields and "type" are always allowed.
var credentialFields = map[string]map[string]bool{
	catalog.AuthAPIKey:                  {"apiKey": true},
	catalog.AuthBasic:                   {"username": true, "password": true},
	catalog.AuthOAuth2:                  {"accessToken": true, "refreshToken": false, "tokenType": false, "expiresAt": false, "scopes": false},
	catalog.AuthOAuth2ClientCredentials: {"clientId": true, "clientSecret": true, "scopes": false},
	catalog.AuthAWSIAM:                  {"accessKeyId": true, "secretAccessKey": true, "sessionToken": false, "region": false},
	catalog.AuthCustom:                  {"fields": true},
	catalog.AuthNone:                    {},
	catalog.AuthJWTBearer:               {"clientId": true, "username": true, "privateKey": true},
	catalog.AuthServiceAccount:          {"serviceAccountKey": true, "subject": false},
	catalog.AuthGitHubApp:               {"appId": true, "installationId": true, "privateKey": true},
}

// ParseCredential checks a credential object from a request against the
// connector and the auth method it is for: the type must match the method,
// every field must be known and of the right type, required fields must be
// present, and connection fields must match their patterns. path prefixes
// every issue ("credential"). It returns the credential and the scopes the
// caller declared.
func ParseCredential(raw json.RawMessage, con *catalog.Connector, method *catalog.AuthMethod, path string) (Credential, []string, error) {
	var issues apierr.Issues
	at := func(field string) []any { return []any{path, field} }
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		issues.Add(apierr.IssueInvalidType, []any{path}, "must be an object with a type")
		return Credential{}, nil, issues.Err()
	}
	c := Credential{Method: method.ID}
	if err := json.Unmarshal(obj["type"], &c.Type); err != nil || c.Type == "" {
		issues.Add(apierr.IssueRequired, at("type"), "is required: one of oauth2, oauth2_client_credentials, api_key, basic, aws_iam, custom, none, oauth2_jwt_bearer, google_service_account, github_app")
		return Credential{}, nil, issues.Err()
	}
	allowed, known := credentialFields[c.Type]
	if !known {
		issues.Add(apierr.IssueInvalidValue, at("type"), "%q is not a credential type", c.Type)
		return Credential{}, nil, issues.Err()
	}
	if c.Type != method.Type {
		issues.Add(apierr.IssueInvalidValue, at("type"), "is %s, but auth method %s of %s takes %s", c.Type, method.ID, con.ID, method.Type)
		return Credential{}, nil, issues.Err()
	}
	connFields := map[string]catalog.ConnectionField{}
	for _, f := range con.ConnectionFields {
		connFields[f.Name] = f
	}
	usedBy := func(f catalog.ConnectionField) bool { return f.UsedBy(method.ID) }
	var scopes []string
	str := func(name string, dst *string) {
		if err := json.Unmarshal(obj[name], dst); err != nil {
			issues.Add(apierr.IssueInvalidType, at(name), "must be a string")
		} else if *dst == "" && allowed[name] {
			issues.Add(apierr.IssueRequired, at(name), "must not be empty")
		}
	}
	names := make([]string, 0, len(obj))
	for name := range obj {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if name == "type" {
			continue
		}
		if f, ok := connFields[name]; ok {
			if !usedBy(f) {
				issues.Add(apierr.IssueUnknownField, at(name), "is not used by auth method %s of %s (only by %s)", method.ID, con.ID, strings.Join(f.AuthMethods, ", "))
				continue
			}
			var v string
			if err := json.Unmarshal(obj[name], &v); err != nil {
				issues.Add(apierr.IssueInvalidType, at(name), "must be a string")
				continue
			}
			if !f.Matches(v) {
				issues.Add(apierr.IssueInvalidValue, at(name), "does not look like a %s (for example %s)", f.Label, f.Example)
				continue
			}
			if c.Connection == nil {
				c.Connection = map[string]string{}
			}
			c.Connection[name] = v
			continue
		}
		if _, ok := allowed[name]; !ok {
			issues.Add(apierr.IssueUnknownField, at(name), "is not a field of a %s credential", c.Type)
			continue
		}
		switch name {
		case "apiKey":
			str(name, &c.APIKey)
		case "username":
			if c.Type == catalog.AuthJWTBearer {
				str(name, &c.Subject)
			} else {
				str(name, &c.Username)
			}
		case "password":
			str(name, &c.Password)
		case "accessToken":
			str(name, &c.AccessToken)
		case "refreshToken":
			str(name, &c.RefreshToken)
		case "tokenType":
			str(name, &c.TokenType)
		case "clientId":
			if c.Type == catalog.AuthJWTBearer {
				str(name, &c.Issuer)
			} else {
				str(name, &c.ClientID)
			}
		case "clientSecret":
			str(name, &c.ClientSecret)
		case "accessKeyId":
			str(name, &c.AccessKeyID)
		case "secretAccessKey":
			str(name, &c.SecretAccessKey)
		case "sessionToken":
			str(name, &c.SessionToken)
		case "region":
			str(name, &c.Region)
		case "expiresAt":
			if err := json.Unmarshal(obj[name], &c.Expiry); err != nil {
				issues.Add(apierr.IssueInvalidType, at(name), "must be an ISO 8601 timestamp")
			}
		case "scopes":
			if err := json.Unmarshal(obj[name], &scopes); err != nil {
				issues.Add(apierr.IssueInvalidType, at(name), "must be an array of strings")
			}
		case "privateKey", "appId", "installationId", "serviceAccountKey", "subject":
			parseGrantField(&c, method, name, obj[name], at(name), &issues)
		case "fields":
			if err := json.Unmarshal(obj[name], &c.Fields); err != nil {
				c.Fields = nil
				issues.Add(apierr.IssueInvalidType, at(name), "must be an object of strings")
			}
		}
	}
	for name, required := range allowed {
		if _, ok := obj[name]; required && !ok {
			issues.Add(apierr.IssueRequired, at(name), "is required for a %s credential", c.Type)
		}
	}
	// A fields object that is not one already has its issue; naming each of
	// its fields "required" as well would mislead.
	if c.Type == catalog.AuthCustom && (c.Fields != nil || obj["fields"] == nil) {
		for _, f := range method.Fields {
			if _, ok := c.Fields[f.Name]; !ok {
				issues.Add(apierr.IssueRequired, []any{path, "fields", f.Name}, "is required (%s)", f.Label)
			}
		}
		for name := range c.Fields {
			if !slices.ContainsFunc(method.Fields, func(f catalog.CustomField) bool { return f.Name == name }) {
				issues.Add(apierr.IssueUnknownField, []any{path, "fields", name}, "is not a field of auth method %s", method.ID)
			}
		}
	}
	for _, f := range con.ConnectionFields {
		// A field the caller gave, even a bad one, already has its issue.
		// A field that only chooses among a sign-in's answers (a Jira site
		// for OAuth) may be left out.
		if _, given := obj[f.Name]; given || f.FromToken != "" || !usedBy(f) || method.Chooses(f.Name) {
			continue
		}
		if f.Default != "" {
			if c.Connection == nil {
				c.Connection = map[string]string{}
			}
			c.Connection[f.Name] = f.Default
			continue
		}
		if method.Supplies(f.Name) {
			issues.Add(apierr.IssueRequired, at(f.Name), "is required: %s (a sign-in through a connect link reads it from the provider; a credential stored through the API must give it)", f.Label)
			continue
		}
		issues.Add(apierr.IssueRequired, at(f.Name), "is required: %s", f.Label)
	}
	if err := issues.Err(); err != nil {
		return Credential{}, nil, err
	}
	return c, scopes, nil
}

// Secrets returns the credential's secret values (keys, passwords, tokens,
// private keys, custom fields), for the execution log to redact wherever
// they appear in a stored payload.
func (c Credential) Secrets() []string {
	out := []string{c.APIKey, c.Password, c.AccessToken, c.RefreshToken, c.ClientSecret, c.SecretAccessKey,
		c.SessionToken, c.PrivateKey}
	for _, v := range c.Fields {
		out = append(out, v)
	}
	return out
}
