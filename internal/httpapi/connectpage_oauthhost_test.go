package httpapi

import (
	"context"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// configByKey returns the id of the auth config keyed key that the link
// offers, with the fields the page shows for it.
func (f *fixture) configByKey(t *testing.T, token, key string) (string, []any) {
	t.Helper()
	st, m, raw := f.page("GET", "/api/connect/"+token, "")
	if st != 200 {
		t.Fatalf("view: %d %s", st, raw)
	}
	for _, c := range dataOf(m)["connectors"].([]any) {
		for _, cfg := range c.(map[string]any)["authConfigs"].([]any) {
			if cfg := cfg.(map[string]any); cfg["key"] == key {
				return cfg["id"].(string), cfg["fields"].([]any)
			}
		}
	}
	t.Fatalf("the link offers no config %s: %s", key, raw)
	return "", nil
}

// issueAt returns the message of the validation issue at path, or "".
func issueAt(m map[string]any, path ...string) string {
	e, _ := m["error"].(map[string]any)
	issues, _ := e["issues"].([]any)
	for _, is := range issues {
		is := is.(map[string]any)
		p, _ := is["path"].([]any)
		if len(p) != len(path) {
			continue
		}
		match := true
		for i := range p {
			match = match && p[i] == path[i]
		}
		if match {
			return is["message"].(string)
		}
	}
	return ""
}

// TestConnect_OAuthOnATypedHost: a connector whose OAuth URLs take the
// host the user types (GitLab, Okta, Zendesk, Shopify) sends the user to
// that host, but only to a host the definition allows or, when the
// operator set hosts on the auth config, to one of those; the code
// exchange goes to the same host and the account keeps it.
func TestConnect_OAuthOnATypedHost(t *testing.T) {
	t.Parallel()
	f, fake := setupConnect(t)
	ctx := context.Background()
	fakeHost := strings.TrimPrefix(fake.srv.URL, "https://")
	for _, c := range []struct {
		key   string
		hosts []string
	}{{"theta_cloud", nil}, {"theta_onprem", []string{fakeHost}}} {
		id := store.NewID()
		sealed, _ := f.srv.accounts.SealClientSecret(id, "eps-secret")
		if _, err := f.store.CreateAuthConfig(ctx, store.AuthConfig{ID: id, ProjectID: f.project.ID, ConnectorID: "theta", Key: c.key,
			AuthMethodID: "oauth2", AuthType: "oauth2", ClientID: "eps-client", ClientSecret: sealed, Hosts: c.hosts}); err != nil {
			t.Fatal(err)
		}
	}
	token := f.link(t, `{"userId":"ann","connectors":["theta"]}`)
	cloud, fields := f.configByKey(t, token, "theta_cloud")
	if len(fields) != 1 || fields[0].(map[string]any)["name"] != "host" {
		t.Fatalf("the page must ask for the host before signing in: %v", fields)
	}
	onprem, _ := f.configByKey(t, token, "theta_onprem")
	authorize := func(cfg, fields string) (int, map[string]any, string) {
		return f.page("POST", "/api/connect/"+token+"/authorize", `{"authConfigId":"`+cfg+`","fields":`+fields+`}`)
	}

	if st, m, raw := authorize(cloud, `{}`); st != 400 || errCode(m) != "VALIDATION_ERROR" || issueAt(m, "fields", "host") == "" {
		t.Fatalf("no host: %d %s", st, raw)
	}
	if st, m, raw := authorize(cloud, `{"host":"https://evil.example/"}`); st != 400 || issueAt(m, "fields", "host") == "" {
		t.Fatalf("not a host: %d %s", st, raw)
	}
	for _, host := range []string{"evil.example", "theta.test.evil.example", fakeHost} {
		st, m, raw := authorize(cloud, `{"host":"`+host+`"}`)
		if msg := issueAt(m, "fields", "host"); st != 400 || errCode(m) != "VALIDATION_ERROR" || !strings.Contains(msg, host) || !strings.Contains(msg, "*.theta.test") {
			t.Fatalf("host %s outside the definition's hosts: %d %s", host, st, raw)
		}
	}
	st, m, raw := authorize(cloud, `{"host":"acme.theta.test"}`)
	if st != 200 || !strings.HasPrefix(dataOf(m)["url"].(string), "https://acme.theta.test/oauth/authorize?") {
		t.Fatalf("allowed host: %d %s", st, raw)
	}
	// The operator's hosts replace the definition's.
	if st, _, raw := authorize(onprem, `{"host":"acme.theta.test"}`); st != 400 || !strings.Contains(raw, fakeHost) {
		t.Fatalf("a definition host on an operator-configured client: %d %s", st, raw)
	}
	authURL, cookie := f.authorize(t, token, `{"authConfigId":"`+onprem+`","fields":{"host":"`+fakeHost+`"}}`)
	if !strings.HasPrefix(authURL, fake.srv.URL+"/oauth/authorize?") {
		t.Fatalf("operator host: %s", authURL)
	}
	r := f.do(f.h, "GET", fake.approve(t, authURL, "theta-code"), "", "", "Cookie", cookie)
	if r.status != 200 || !strings.Contains(string(r.body), "Theta Git is connected") || fake.exchanges != 1 {
		t.Fatalf("callback: %d %s (%d exchanges)", r.status, r.body, fake.exchanges)
	}
	conns, _ := f.store.ListConnections(ctx, f.project.ID, "ann")
	if len(conns) != 1 || conns[0].Label == nil || *conns[0].Label != "octo" {
		t.Fatalf("stored: %+v", conns)
	}
	cred, err := f.srv.accounts.Open(conns[0])
	if err != nil || cred.Connection["host"] != fakeHost {
		t.Fatalf("the account keeps its host: %v %v", cred.Connection, err)
	}
	if st, _, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"theta_get_me","userId":"ann"}`); st != 200 || !strings.Contains(raw, "octo") {
		t.Fatalf("execute on the typed host: %d %s", st, raw)
	}
}
