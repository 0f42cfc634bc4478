package httpapi

import (
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/session"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
)

// TestMalformedText_BothDatabasesAnswerAlike drives every route family with
// NUL characters and invalid UTF-8 in JSON strings (top level and nested),
// query values and path values. PostgreSQL cannot store either in a text
// column, SQLite can: both must answer the same 400 VALIDATION_ERROR naming
// the field, or 404 for an id in the path, and never 500.
func TestMalformedText_BothDatabasesAnswerAlike(t *testing.T) {
	t.Parallel()
	for name, open := range map[string]database{"sqlite": sqliteDB, "postgres": postgresDB} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if name == "postgres" {
				storetest.PostgresURL(t)
			}
			malformedTextScenario(t, setupOn(t, open))
		})
	}
}

// textCase is one request and the answer it must get. code is the error
// code of a REST envelope, "" for an answer without one (JSON-RPC, ingress);
// issue is the JSON path the first issue must point at.
type textCase struct {
	method, path, body string
	status             int
	code               string
	issue              string
}

func malformedTextScenario(t *testing.T, f *fixture) {
	bearer := "Bearer " + f.key
	cred := fmt.Sprintf(`{"type":"api_key","apiKey":"delta-secret-key","host":%q}`, f.providerHost)
	_, m, raw := f.json("POST", "/v1/connections", `{"connectorId":"delta","userId":"u1","credential":`+cred+`}`)
	connID, _ := dataOf(m)["id"].(string)
	if connID == "" {
		t.Fatalf("connection: %s", raw)
	}
	_, m, raw = f.json("POST", "/v1/sessions", `{"userId":"u1","connectors":["delta"],"policy":{"allowDisconnect":true}}`)
	sessID, _ := dataOf(m)["id"].(string)
	if sessID == "" {
		t.Fatalf("session: %s", raw)
	}
	f.endpoint(t, session.EndpointRequest{Slug: "delta-tools", Connectors: []string{"delta"}, Mode: session.ModeTools})
	token := f.link(t, `{"userId":"u1"}`)
	_, m, raw = f.json("POST", "/v1/webhooks", `{"url":"https://hooks.example.com/h"}`)
	hookID, _ := dataOf(m)["id"].(string)
	if hookID == "" {
		t.Fatalf("webhook: %s", raw)
	}
	_, m, raw = f.json("POST", "/v1/triggers", `{"connectionId":"`+connID+`","event":"delta_task_created","secret":"gh-secret"}`)
	hookURL, _ := dataOf(m)["url"].(string)
	if hookURL == "" {
		t.Fatalf("trigger: %s", raw)
	}
	ingressPath := strings.TrimPrefix(hookURL, "http://sb.test")

	// bad holds the two kinds of text PostgreSQL refuses, as a JSON string
	// body (an escape for NUL, a raw byte for invalid UTF-8) and as a
	// percent-escaped path or query value.
	bad := []struct{ name, json, escaped string }{
		{"nul", `a\u0000b`, "a%00b"},
		{"invalid utf-8", "a\xffb", "a%FFb"},
	}
	for _, b := range bad {
		j, e := b.json, b.escaped
		cases := []textCase{
			// JSON bodies: top-level strings, nested strings, map keys and values.
			{"POST", "/v1/connections", `{"connectorId":"delta","userId":"` + j + `","credential":` + cred + `}`, 400, "VALIDATION_ERROR", `["userId"]`},
			{"POST", "/v1/connections", `{"connectorId":"delta","userId":"u1","name":"` + j + `","credential":` + cred + `}`, 400, "VALIDATION_ERROR", `["name"]`},
			{"POST", "/v1/connections", `{"connectorId":"delta","userId":"u1","credential":{"type":"api_key","apiKey":"k","host":"` + j + `"}}`, 400, "VALIDATION_ERROR", `["credential","host"]`},
			{"PATCH", "/v1/connections/" + connID, `{"name":"` + j + `"}`, 400, "VALIDATION_ERROR", `["name"]`},
			{"GET", "/v1/connections?userId=" + e, "", 400, "VALIDATION_ERROR", `["userId"]`},
			{"POST", "/v1/sessions", `{"userId":"` + j + `"}`, 400, "VALIDATION_ERROR", `["userId"]`},
			{"POST", "/v1/sessions", `{"userId":"u1","connectors":["delta","` + j + `"]}`, 400, "VALIDATION_ERROR", `["connectors",1]`},
			{"POST", "/v1/sessions", `{"userId":"u1","accounts":{"delta":"` + j + `"}}`, 400, "VALIDATION_ERROR", `["accounts","delta"]`},
			{"POST", "/v1/sessions", `{"userId":"u1","accounts":{"` + j + `":"x"}}`, 400, "VALIDATION_ERROR", `["accounts"]`},
			{"POST", "/v1/connect-links", `{"userId":"` + j + `"}`, 400, "VALIDATION_ERROR", `["userId"]`},
			{"POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"` + j + `","input":{"id":"1"}}`, 400, "VALIDATION_ERROR", `["userId"]`},
			{"POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","input":{"id":"` + j + `"}}`, 400, "VALIDATION_ERROR", `["input","id"]`},
			{"POST", "/v1/tools/proxy", `{"connectorId":"delta","userId":"` + j + `","endpoint":"/x"}`, 400, "VALIDATION_ERROR", `["userId"]`},
			{"POST", "/v1/triggers", `{"connectionId":"` + connID + `","event":"` + j + `","secret":"s"}`, 400, "VALIDATION_ERROR", `["event"]`},
			{"POST", "/v1/triggers", `{"connectionId":"` + connID + `","event":"delta_task_done","config":{"project":"` + j + `"}}`, 400, "VALIDATION_ERROR", `["config","project"]`},
			{"GET", "/v1/triggers?userId=" + e, "", 400, "VALIDATION_ERROR", `["userId"]`},
			{"POST", "/v1/webhooks", `{"url":"https://hooks.example.com/h","description":"` + j + `"}`, 400, "VALIDATION_ERROR", `["description"]`},
			{"POST", "/v1/sessions/" + sessID + "/tools/switchboard_disconnect_account", `{"arguments":{"connector":"delta","account":"` + j + `"}}`, 400, "VALIDATION_ERROR", `["arguments","account"]`},
			{"POST", "/api/connect/" + token + "/accounts", `{"authConfigId":"x","fields":{"apiKey":"` + j + `"}}`, 400, "VALIDATION_ERROR", `["fields","apiKey"]`},
			{"POST", "/api/connect/" + token + "/authorize", `{"authConfigId":"x","name":"` + j + `"}`, 400, "VALIDATION_ERROR", `["name"]`},
			{"PATCH", "/api/connect/" + token + "/connections/" + connID, `{"name":"` + j + `"}`, 400, "VALIDATION_ERROR", `["name"]`},
			// Query values.
			{"GET", "/v1/connectors?query=" + e, "", 400, "VALIDATION_ERROR", `["query"]`},
			{"GET", "/v1/tools?connectorId=" + e, "", 400, "VALIDATION_ERROR", `["connectorId"]`},
			{"GET", "/v1/sessions/" + sessID + "/tools?format=" + e, "", 400, "VALIDATION_ERROR", `["format"]`},
			{"GET", "/api/catalog?query=" + e, "", 400, "VALIDATION_ERROR", `["query"]`},
			{"GET", "/api/oauth/callback?state=" + e + "&code=c", "", 400, "VALIDATION_ERROR", `["state"]`},
			// Ids in the path: what an unknown id answers.
			{"PATCH", "/v1/connections/" + e, `{"name":"n"}`, 404, "CONNECTION_NOT_FOUND", ""},
			{"DELETE", "/v1/connections/" + e, "", 404, "CONNECTION_NOT_FOUND", ""},
			{"POST", "/v1/connections/" + e + "/default", "", 404, "CONNECTION_NOT_FOUND", ""},
			{"GET", "/v1/connectors/" + e, "", 404, "CONNECTOR_NOT_FOUND", ""},
			{"GET", "/v1/sessions/" + e, "", 404, "SESSION_NOT_FOUND", ""},
			{"GET", "/v1/sessions/" + e + "/tools", "", 404, "SESSION_NOT_FOUND", ""},
			{"POST", "/v1/sessions/" + e + "/tools/switchboard_list_accounts", `{"arguments":{}}`, 404, "SESSION_NOT_FOUND", ""},
			{"POST", "/v1/sessions/" + sessID + "/tools/" + e, `{"arguments":{}}`, 404, "TOOL_NOT_FOUND", ""},
			{"DELETE", "/v1/triggers/" + e, "", 404, "NOT_FOUND", ""},
			{"DELETE", "/v1/webhooks/" + e, "", 404, "NOT_FOUND", ""},
			{"GET", "/v1/webhooks/" + e + "/deliveries", "", 404, "NOT_FOUND", ""},
			{"POST", "/v1/webhooks/" + hookID + "/deliveries/" + e + "/retry", "", 404, "NOT_FOUND", ""},
			{"GET", "/api/catalog/" + e, "", 404, "NOT_FOUND", ""},
			{"GET", "/api/connect/" + e, "", 404, "NOT_FOUND", ""},
			{"POST", "/api/connect/" + e + "/accounts", `{"authConfigId":"x","fields":{}}`, 404, "NOT_FOUND", ""},
			{"GET", "/api/connect/" + e + "/connections", "", 404, "NOT_FOUND", ""},
			{"DELETE", "/api/connect/" + token + "/connections/" + e, "", 404, "NOT_FOUND", ""},
			{"GET", "/assets/projects/" + e + "/logo.svg", "", 404, "NOT_FOUND", ""},
			{"GET", "/assets/logos/" + e, "", 404, "NOT_FOUND", ""},
			// Ingress answers carry no body.
			{"POST", "/api/triggers/" + e, `{}`, 404, "", ""},
		}
		for _, c := range cases {
			t.Run(b.name+" "+c.method+" "+c.path, func(t *testing.T) {
				r := f.do(f.h, c.method, c.path, bearer, c.body, "Content-Type", "application/json")
				checkTextAnswer(t, r, c)
			})
		}

		// MCP routes answer JSON-RPC errors: 404 for an unknown slug or
		// session, 400 for a user id that is not text.
		for _, c := range []textCase{
			{"POST", "/v1/mcp/" + e + "/u1", listReq, 404, "", ""},
			{"POST", "/v1/mcp/delta-tools/" + e, listReq, 400, "", ""},
			{"POST", "/v1/mcp/delta-tools?user=" + e, listReq, 400, "", ""},
			{"POST", "/v1/sessions/" + e + "/mcp", listReq, 404, "", ""},
		} {
			t.Run(b.name+" MCP "+c.path, func(t *testing.T) {
				r := f.rpc(f.h, c.path, c.body)
				checkRPCError(t, r, c.status)
			})
		}
		mcpHost := f.srv.MCPHandler()
		for _, c := range []textCase{
			{"POST", "/delta-tools/" + e, listReq, 400, "", ""},
			{"POST", "/delta-tools?user=" + e, listReq, 400, "", ""},
		} {
			t.Run(b.name+" MCP host "+c.path, func(t *testing.T) {
				r := f.rpc(mcpHost, c.path, c.body)
				checkRPCError(t, r, c.status)
			})
		}
	}

	// A verified provider delivery whose body holds invalid UTF-8 is still
	// accepted and stored (as valid text), on both databases.
	event := []byte("{\"action\":\"created\",\"task\":{\"title\":\"a\xffb\"}}")
	if r := f.ingress(ingressPath, event, "X-Delta-Event", "task", "X-Hub-Signature-256", githubSign("gh-secret", event)); r.status != 200 {
		t.Fatalf("delivery with invalid UTF-8: %d", r.status)
	}
	nul := []byte(`{"action":"created","task":{"title":"a\u0000b"}}`)
	if r := f.ingress(ingressPath, nul, "X-Delta-Event", "task", "X-Hub-Signature-256", githubSign("gh-secret", nul)); r.status != 200 {
		t.Fatalf("delivery with a NUL escape: %d", r.status)
	}
	if strings.Contains(f.logs.String(), `"status":500`) {
		t.Fatalf("a request answered 500:\n%s", f.logs.String())
	}
}

func checkTextAnswer(t *testing.T, r response, c textCase) {
	t.Helper()
	if r.status != c.status {
		t.Fatalf("status %d, want %d: %s", r.status, c.status, r.body)
	}
	if c.code == "" {
		if len(r.body) != 0 {
			t.Fatalf("want no body, got %s", r.body)
		}
		return
	}
	var env struct {
		Error struct {
			Code   string `json:"code"`
			Issues []struct {
				Path    json.RawMessage `json:"path"`
				Message string          `json:"message"`
			} `json:"issues"`
		} `json:"error"`
	}
	if err := json.Unmarshal(r.body, &env); err != nil || env.Error.Code != c.code {
		t.Fatalf("code %q, want %s: %s", env.Error.Code, c.code, r.body)
	}
	if c.issue == "" {
		return
	}
	for _, is := range env.Error.Issues {
		if string(is.Path) == c.issue {
			if !strings.Contains(is.Message, "UTF-8") {
				t.Fatalf("issue at %s does not say what to fix: %q", c.issue, is.Message)
			}
			return
		}
	}
	t.Fatalf("no issue at %s: %s", c.issue, r.body)
}

func checkRPCError(t *testing.T, r response, status int) {
	t.Helper()
	var env struct {
		JSONRPC string          `json:"jsonrpc"`
		Error   json.RawMessage `json:"error"`
	}
	if r.status != status || json.Unmarshal(r.body, &env) != nil || env.JSONRPC != "2.0" || len(env.Error) == 0 {
		t.Fatalf("status %d, want %d with a JSON-RPC error: %s", r.status, status, r.body)
	}
}

// TestMalformedText_ValidTextStillPasses keeps the check from refusing
// what is fine: non-ASCII text, escaped backslashes before "u0000", and
// percent-escaped UTF-8 in query and path values.
func TestMalformedText_ValidTextStillPasses(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, body := range []string{
		`{"userId":"Zoë 日本"}`,
		`{"userId":"a\\u0000b"}`,
		`{"userId":"\u00e9\ud83d\ude00"}`,
	} {
		if st, _, raw := f.json("POST", "/v1/sessions", body); st != 201 {
			t.Errorf("%s: %d %s", body, st, raw)
		}
	}
	if st, _, raw := f.json("GET", "/v1/connections?userId="+url.QueryEscape("Zoë 日本"), ""); st != 200 {
		t.Errorf("query: %d %s", st, raw)
	}
	if st, m, raw := f.json("GET", "/v1/sessions/"+url.PathEscape("é"), ""); st != 404 || errCode(m) != "SESSION_NOT_FOUND" {
		t.Errorf("path: %d %s", st, raw)
	}
}

func TestFindBadText_PathsOfBadStrings(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in    string
		path  string // JSON of the path, "" for none
		inKey bool
	}{
		{`"plain"`, "", false},
		{`"a\\u0000b"`, "", false},
		{`"a\\\u0000b"`, `[]`, false},
		{`"a\u0000"`, `[]`, false},
		{"\"\xc3\"", `[]`, false},
		{`{"a":[1,true,null,"x",{"b":"\u0000"}]}`, `["a",4,"b"]`, false},
		{`{"a":"ok","k\u0000":1}`, `[]`, true},
		{`{"a":{"b\"c":["", "\u0000"]}}`, `["a","b\"c",1]`, false},
		{` [ -1.5e3 , "é" ] `, "", false},
	}
	for _, c := range cases {
		p, inKey, bad := findBadText([]byte(c.in))
		got := ""
		if bad {
			b, _ := json.Marshal(p)
			got = string(b)
		}
		if got != c.path || inKey != c.inKey {
			t.Errorf("%s: path %s key %v, want %s key %v", c.in, got, inKey, c.path, c.inKey)
		}
	}
}

func TestQueryMayHoldBadText(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]bool{
		"":                    false,
		"userId=u1&limit=10":  false,
		"q=a%20b%2Fc%7e":      false,
		"q=%00":               true,
		"q=%c3%a9":            true,
		"q=%FF":               true,
		"q=\xff":              true,
		"q=%0":                false,
		"q=%":                 false,
		"q=100%25&r=%09%1f%7": false,
	} {
		if got := queryMayHoldBadText(raw); got != want {
			t.Errorf("%q: %v, want %v", raw, got, want)
		}
	}
}
