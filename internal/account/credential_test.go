package account_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// testConnector has one auth method of every credential type and a
// connection field with a pattern, one with a default, one from the token.
func testConnector() *catalog.Connector {
	return &catalog.Connector{
		ID: "acme",
		AuthMethods: []catalog.AuthMethod{
			{ID: "key", Type: catalog.AuthAPIKey},
			{ID: "basic", Type: catalog.AuthBasic},
			{ID: "oauth", Type: catalog.AuthOAuth2},
			{ID: "cc", Type: catalog.AuthOAuth2ClientCredentials},
			{ID: "aws", Type: catalog.AuthAWSIAM},
			{ID: "custom", Type: catalog.AuthCustom, Fields: []catalog.CustomField{{Name: "token", Label: "Token"}, {Name: "team", Label: "Team"}}},
			{ID: "none", Type: catalog.AuthNone},
		},
		ConnectionFields: []catalog.ConnectionField{
			{Name: "shop", Label: "Shop name", Pattern: "[a-z0-9-]+", Example: "acme-store"},
			{Name: "region", Label: "Region", Default: "us"},
			{Name: "instanceUrl", Label: "Instance", FromToken: "instance_url"},
		},
	}
}

func TestParseCredential(t *testing.T) {
	t.Parallel()
	con := testConnector()
	type issue struct {
		code string
		path string
	}
	cases := []struct {
		name   string
		method string
		body   string
		want   func(account.Credential) bool
		scopes []string
		issues []issue
	}{
		{name: "api key", method: "key", body: `{"type":"api_key","apiKey":"sk_1","shop":"acme-1"}`,
			want: func(c account.Credential) bool {
				return c.APIKey == "sk_1" && c.Method == "key" && c.Connection["shop"] == "acme-1" && c.Connection["region"] == "us"
			}},
		{name: "default overridden", method: "key", body: `{"type":"api_key","apiKey":"k","shop":"s","region":"eu"}`,
			want: func(c account.Credential) bool { return c.Connection["region"] == "eu" }},
		{name: "not an object", method: "key", body: `"sk_1"`, issues: []issue{{apierr.IssueInvalidType, "credential"}}},
		{name: "null", method: "key", body: `null`, issues: []issue{{apierr.IssueInvalidType, "credential"}}},
		{name: "no type", method: "key", body: `{"apiKey":"k","shop":"s"}`, issues: []issue{{apierr.IssueRequired, "credential.type"}}},
		{name: "unknown type", method: "key", body: `{"type":"token"}`, issues: []issue{{apierr.IssueInvalidValue, "credential.type"}}},
		{name: "type of another method", method: "key", body: `{"type":"basic","username":"u","password":"p","shop":"s"}`,
			issues: []issue{{apierr.IssueInvalidValue, "credential.type"}}},
		{name: "api key missing", method: "key", body: `{"type":"api_key","shop":"s"}`, issues: []issue{{apierr.IssueRequired, "credential.apiKey"}}},
		{name: "api key empty", method: "key", body: `{"type":"api_key","apiKey":"","shop":"s"}`, issues: []issue{{apierr.IssueRequired, "credential.apiKey"}}},
		{name: "api key not a string", method: "key", body: `{"type":"api_key","apiKey":42,"shop":"s"}`, issues: []issue{{apierr.IssueInvalidType, "credential.apiKey"}}},
		{name: "field of another type", method: "key", body: `{"type":"api_key","apiKey":"k","password":"p","shop":"s"}`,
			issues: []issue{{apierr.IssueUnknownField, "credential.password"}}},
		{name: "connection field bad pattern", method: "key", body: `{"type":"api_key","apiKey":"k","shop":"Acme Store"}`,
			issues: []issue{{apierr.IssueInvalidValue, "credential.shop"}}},
		{name: "connection field missing", method: "key", body: `{"type":"api_key","apiKey":"k"}`, issues: []issue{{apierr.IssueRequired, "credential.shop"}}},
		{name: "connection field not a string", method: "key", body: `{"type":"api_key","apiKey":"k","shop":1}`, issues: []issue{{apierr.IssueInvalidType, "credential.shop"}}},
		{name: "basic", method: "basic", body: `{"type":"basic","username":"ann","password":"pw","shop":"s"}`,
			want: func(c account.Credential) bool { return c.Username == "ann" && c.Password == "pw" }},
		{name: "basic without password", method: "basic", body: `{"type":"basic","username":"ann","shop":"s"}`,
			issues: []issue{{apierr.IssueRequired, "credential.password"}}},
		{name: "oauth2 with scopes and expiry", method: "oauth", body: `{"type":"oauth2","accessToken":"at","refreshToken":"rt","expiresAt":"2030-01-02T03:04:05Z","scopes":["repo","user"],"shop":"s"}`,
			want: func(c account.Credential) bool {
				return c.AccessToken == "at" && c.RefreshToken == "rt" && c.Expiry.Year() == 2030
			}, scopes: []string{"repo", "user"}},
		{name: "oauth2 bad expiry and scopes", method: "oauth", body: `{"type":"oauth2","accessToken":"at","expiresAt":"tomorrow","scopes":"repo","shop":"s"}`,
			issues: []issue{{apierr.IssueInvalidType, "credential.expiresAt"}, {apierr.IssueInvalidType, "credential.scopes"}}},
		{name: "client credentials", method: "cc", body: `{"type":"oauth2_client_credentials","clientId":"id","clientSecret":"cs","shop":"s"}`,
			want: func(c account.Credential) bool { return c.ClientID == "id" && c.ClientSecret == "cs" }},
		{name: "client credentials without secret", method: "cc", body: `{"type":"oauth2_client_credentials","clientId":"id","shop":"s"}`,
			issues: []issue{{apierr.IssueRequired, "credential.clientSecret"}}},
		{name: "aws", method: "aws", body: `{"type":"aws_iam","accessKeyId":"AKIA","secretAccessKey":"sec","shop":"s","region":"eu-west-1"}`,
			want: func(c account.Credential) bool {
				// "region" is the connector's connection field here, so it lands there.
				return c.AccessKeyID == "AKIA" && c.SecretAccessKey == "sec" && c.Connection["region"] == "eu-west-1"
			}},
		{name: "custom", method: "custom", body: `{"type":"custom","fields":{"token":"t","team":"x"},"shop":"s"}`,
			want: func(c account.Credential) bool { return c.Fields["token"] == "t" && c.Fields["team"] == "x" }},
		{name: "custom missing and unknown field", method: "custom", body: `{"type":"custom","fields":{"token":"t","org":"o"},"shop":"s"}`,
			issues: []issue{{apierr.IssueRequired, "credential.fields.team"}, {apierr.IssueUnknownField, "credential.fields.org"}}},
		{name: "custom fields not strings", method: "custom", body: `{"type":"custom","fields":{"token":1},"shop":"s"}`,
			issues: []issue{{apierr.IssueInvalidType, "credential.fields"}}},
		{name: "none", method: "none", body: `{"type":"none","shop":"s"}`, want: func(c account.Credential) bool { return c.Type == "none" }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cred, scopes, err := account.ParseCredential(json.RawMessage(c.body), con, con.AuthMethod(c.method), "credential")
			if c.issues == nil {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if !c.want(cred) || !slices.Equal(scopes, c.scopes) {
					t.Fatalf("parsed %#v (fields hidden), scopes %v", cred.Connection, scopes)
				}
				return
			}
			e, ok := apierr.As(err)
			if !ok || e.Code != apierr.ValidationError || e.HTTPStatus() != 400 {
				t.Fatalf("err %v, want VALIDATION_ERROR", err)
			}
			var got []issue
			for _, is := range e.Issues {
				got = append(got, issue{is.Code, apierr.PathString(is.Path)})
				if is.Message == "" {
					t.Errorf("issue %v has no message", is.Path)
				}
			}
			for _, w := range c.issues {
				if !slices.Contains(got, w) {
					t.Errorf("issues %v lack %v", got, w)
				}
			}
			if len(got) != len(c.issues) {
				t.Errorf("issues %v, want %v", got, c.issues)
			}
		})
	}
}

// TestCredential_NeverPrinted: fmt and slog show no credential value.
func TestCredential_NeverPrinted(t *testing.T) {
	t.Parallel()
	c := account.Credential{Type: "api_key", APIKey: "sk_live_secret", Password: "hunter2", AccessToken: "at_secret",
		Fields: map[string]string{"token": "field_secret"}}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "credential", c)
	out := fmt.Sprintf("%v %+v %#v %s", c, c, c, c) + buf.String()
	for _, secret := range []string{"sk_live_secret", "hunter2", "at_secret", "field_secret"} {
		if strings.Contains(out, secret) {
			t.Fatalf("%q printed: %s", secret, out)
		}
	}
}

func TestToolAllowed(t *testing.T) {
	t.Parallel()
	cases := []struct {
		patterns []string
		tool     string
		want     bool
	}{
		{nil, "github_create_issue", false},
		{[]string{"github_create_issue"}, "github_create_issue", true},
		{[]string{"github_create_issue"}, "github_create_issue_comment", false},
		{[]string{"github_*"}, "github_create_issue", true},
		{[]string{"github_*"}, "gitlab_create_issue", false},
		{[]string{"*"}, "anything", true},
		{[]string{"slack_*", "github_list_repos"}, "github_list_repos", true},
	}
	for _, c := range cases {
		if got := account.ToolAllowed(c.patterns, c.tool); got != c.want {
			t.Errorf("ToolAllowed(%v, %q) = %v", c.patterns, c.tool, got)
		}
	}
}

// TestParseCredential_FieldsPerAuthMethod: a connection field belongs to
// the auth methods it names; one an OAuth sign-in reads from the provider
// is still required of a credential stored through the API, and one that
// only chooses among the sign-in's answers may be left out.
func TestParseCredential_FieldsPerAuthMethod(t *testing.T) {
	t.Parallel()
	con := &catalog.Connector{
		ID: "atl",
		AuthMethods: []catalog.AuthMethod{
			{ID: "basic", Type: catalog.AuthBasic},
			{ID: "oauth2", Type: catalog.AuthOAuth2, OAuth2: &catalog.OAuth2{AfterToken: &catalog.AfterToken{
				Select: map[string]string{"cloudId": "id"}, Match: map[string]string{"url": "https://{site}.atl.test"}}}},
		},
		ConnectionFields: []catalog.ConnectionField{
			{Name: "site", Label: "Site"},
			{Name: "cloudId", Label: "Cloud id", AuthMethods: []string{"oauth2"}},
		},
	}
	cases := []struct {
		method, body string
		ok           bool
		issue        string // code and path
	}{
		{"oauth2", `{"type":"oauth2","accessToken":"t","cloudId":"c1"}`, true, ""},
		{"oauth2", `{"type":"oauth2","accessToken":"t","cloudId":"c1","site":"acme"}`, true, ""},
		{"oauth2", `{"type":"oauth2","accessToken":"t"}`, false, "required credential.cloudId"},
		{"basic", `{"type":"basic","username":"u","password":"p","site":"acme"}`, true, ""},
		{"basic", `{"type":"basic","username":"u","password":"p","site":"acme","cloudId":"c1"}`, false, "unrecognized_keys credential.cloudId"},
		{"basic", `{"type":"basic","username":"u","password":"p"}`, false, "required credential.site"},
	}
	for _, c := range cases {
		_, _, err := account.ParseCredential(json.RawMessage(c.body), con, con.AuthMethod(c.method), "credential")
		if c.ok {
			if err != nil {
				t.Errorf("%s %s: %v", c.method, c.body, err)
			}
			continue
		}
		e, ok := apierr.As(err)
		if !ok || len(e.Issues) != 1 || e.Issues[0].Code+" "+apierr.PathString(e.Issues[0].Path) != c.issue {
			t.Errorf("%s %s: err %v, want one issue %s", c.method, c.body, err, c.issue)
		}
	}
}
