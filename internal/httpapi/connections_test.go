package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// secrets stored by the connection tests; none may appear in a response or a log line.
var storedSecrets = []string{"delta-secret-key", "rotated-secret-key", "pw-hunter2", "global-secret-key"}

func (f *fixture) json(method, path, body string) (int, map[string]any, string) {
	f.t.Helper()
	r := f.do(f.h, method, path, "Bearer "+f.key, body)
	var m map[string]any
	_ = json.Unmarshal(r.body, &m)
	return r.status, m, string(r.body)
}

func errCode(m map[string]any) string {
	e, _ := m["error"].(map[string]any)
	c, _ := e["code"].(string)
	return c
}

func dataOf(m map[string]any) map[string]any {
	d, _ := m["data"].(map[string]any)
	return d
}

// TestConnectionsAndExecute_Scenario drives connections, execute and proxy
// through the real router, on SQLite and on PostgreSQL, and then scans every
// response and log line for the secrets it stored.
func TestConnectionsAndExecute_Scenario(t *testing.T) {
	t.Parallel()
	onBothDatabases(t, connectionScenario)
}

func connectionScenario(t *testing.T, f *fixture) {
	var responses strings.Builder
	call := func(method, path, body string, wantStatus int, wantCode string) map[string]any {
		t.Helper()
		status, m, raw := f.json(method, path, body)
		responses.WriteString(raw)
		if status != wantStatus || errCode(m) != wantCode {
			t.Fatalf("%s %s %s: %d %s, want %d %s", method, path, body, status, raw, wantStatus, wantCode)
		}
		return m
	}
	host := f.providerHost
	cred := fmt.Sprintf(`{"type":"api_key","apiKey":"delta-secret-key","host":%q}`, host)

	// Validation of POST /v1/connections.
	call("POST", "/v1/connections", `not json`, 400, "VALIDATION_ERROR")
	m := call("POST", "/v1/connections", `{"connectorId":"nope","credential":{"type":"api_key"}}`, 400, "VALIDATION_ERROR")
	if issues := m["error"].(map[string]any)["issues"].([]any); len(issues) != 2 {
		t.Fatalf("want issues for connectorId and userId: %v", issues)
	}
	call("POST", "/v1/connections", `{"connectorId":"delta","userId":"u1","credential":{"type":"api_key","apiKey":"k","host":"h","extra":1}}`, 400, "VALIDATION_ERROR")
	call("POST", "/v1/connections", `{"connectorId":"delta","userId":"u1","credential":{"type":"api_key","host":"h"}}`, 400, "VALIDATION_ERROR")
	call("POST", "/v1/connections", `{"connectorId":"delta","userId":"u1","credential":{"type":"oauth2","accessToken":"x","host":"h"}}`, 400, "VALIDATION_ERROR")
	call("POST", "/v1/connections", `{"connectorId":"delta","userId":"u1","global":true,"credential":`+cred+`}`, 400, "VALIDATION_ERROR")
	call("POST", "/v1/connections", `{"connectorId":"delta","userId":"u1","authConfig":"nope","credential":`+cred+`}`, 400, "VALIDATION_ERROR")
	call("POST", "/v1/connections", `{"connectorId":"delta","userId":"u1","name":"`+strings.Repeat("n", 65)+`","credential":`+cred+`}`, 400, "VALIDATION_ERROR")

	// Execute before any account: MISSING_CONNECTION.
	call("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","input":{"id":"1"}}`, 400, "MISSING_CONNECTION")

	first := dataOf(call("POST", "/v1/connections", `{"connectorId":"delta","userId":"u1","credential":`+cred+`}`, 200, ""))
	if first["name"] != "default" || first["isDefault"] != true || first["status"] != "active" || first["global"] != false || first["userId"] != "u1" {
		t.Fatalf("first account: %v", first)
	}
	second := dataOf(call("POST", "/v1/connections", `{"connectorId":"delta","userId":"u1","credential":`+cred+`}`, 200, ""))
	if second["name"] != "default-2" || second["isDefault"] != false {
		t.Fatalf("second account: %v", second)
	}
	call("POST", "/v1/connections", `{"connectorId":"delta","userId":"u1","name":"default","credential":`+cred+`}`, 409, "CONFLICT")
	pw := dataOf(call("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","userId":"u1","name":"work","credential":{"type":"basic","username":"ann","password":"pw-hunter2","host":%q}}`, host), 200, ""))
	global := dataOf(call("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","global":true,"credential":{"type":"api_key","apiKey":"global-secret-key","host":%q}}`, host), 200, ""))
	if global["userId"] != nil || global["global"] != true || global["isDefault"] != false {
		t.Fatalf("global account: %v", global)
	}

	// Listing: the user's accounts and the global one, oldest first, no credential.
	call("GET", "/v1/connections", "", 400, "VALIDATION_ERROR")
	list := call("GET", "/v1/connections?userId=u1", "", 200, "")["data"].([]any)
	if len(list) != 4 || list[0].(map[string]any)["id"] != first["id"] || list[3].(map[string]any)["global"] != true {
		t.Fatalf("list: %v", list)
	}
	item := list[0].(map[string]any)
	for _, k := range []string{"authConfigId", "scopes", "lastUsedAt", "createdAt", "label", "revision"} {
		if _, ok := item[k]; !ok {
			t.Fatalf("connection item lacks %s: %v", k, item)
		}
	}
	if other := call("GET", "/v1/connections?userId=u2", "", 200, "")["data"].([]any); len(other) != 1 {
		t.Fatalf("u2 sees %d accounts, want only the global one", len(other))
	}

	// Execute.
	got := call("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","input":{"id":"7"}}`, 200, "")
	if dataOf(got)["path"] != "/v1/tasks/7" {
		t.Fatalf("execute: %v", got)
	}
	call("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","input":{}}`, 400, "VALIDATION_ERROR")
	call("POST", "/v1/tools/execute", `{"userId":"u1"}`, 400, "VALIDATION_ERROR")
	call("POST", "/v1/tools/execute", `{"toolId":"nope_tool","userId":"u1"}`, 404, "TOOL_NOT_FOUND")
	call("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","connectionId":"not-a-uuid","input":{"id":"1"}}`, 400, "VALIDATION_ERROR")
	call("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","connectionId":"`+store.NewID()+`","input":{"id":"1"}}`, 400, "CONNECTION_NOT_FOUND")
	m = call("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","input":{"id":"missing"}}`, 400, "EXECUTION_ERROR")
	if up := m["error"].(map[string]any)["upstream"].(map[string]any); up["status"] != float64(404) || !strings.Contains(up["body"].(string), "no such task") {
		t.Fatalf("upstream: %v", up)
	}
	call("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","input":{"id":"broken"}}`, 502, "UPSTREAM_ERROR")
	// The basic account answers 401 from the provider: EXECUTION_ERROR, not a leak of the password.
	call("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","connectionId":"`+pw["id"].(string)+`","input":{"id":"1"}}`, 400, "EXECUTION_ERROR")
	// Global accounts: not used for a user without permission.
	call("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u2","allowGlobalAccounts":true,"input":{"id":"1"}}`, 403, "ACTION_DISABLED")
	call("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u2","input":{"id":"1"}}`, 400, "MISSING_CONNECTION")
	call("POST", "/v1/tools/proxy", `{"connectorId":"delta","userId":"u2","endpoint":"/tasks/1","allowGlobalAccounts":true}`, 403, "ACTION_DISABLED")

	// Proxy.
	call("POST", "/v1/tools/proxy", `{"connectorId":"delta","userId":"u1","endpoint":"/tasks/3","method":"POST","body":{"a":1},"query":{"q":"x"}}`, 200, "")
	call("POST", "/v1/tools/proxy", `{"connectorId":"delta","userId":"u1","endpoint":"//evil.example/x"}`, 403, "FORBIDDEN_ENDPOINT")
	call("POST", "/v1/tools/proxy", `{"connectorId":"beta","userId":"u1","endpoint":"/x"}`, 403, "FORBIDDEN_ENDPOINT")
	call("POST", "/v1/tools/proxy", `{"connectorId":"delta","userId":"u1","endpoint":"/tasks/broken"}`, 502, "UPSTREAM_ERROR")
	call("POST", "/v1/tools/proxy", `{"connectorId":"delta","userId":"u1","endpoint":"/tasks/missing"}`, 502, "UPSTREAM_ERROR")
	call("POST", "/v1/tools/proxy", `{"connectorId":"delta","endpoint":"/x","method":"TRACE"}`, 400, "VALIDATION_ERROR")

	// Rename, rotate, default, delete.
	id1, id2 := first["id"].(string), second["id"].(string)
	call("PATCH", "/v1/connections/"+id2, `{"name":"default"}`, 409, "NAME_TAKEN")
	if d := dataOf(call("PATCH", "/v1/connections/"+id2, `{"name":"backup"}`, 200, "")); d["name"] != "backup" || d["id"] != id2 {
		t.Fatalf("rename: %v", d)
	}
	call("PATCH", "/v1/connections/"+id1, `{}`, 400, "VALIDATION_ERROR")
	rot := fmt.Sprintf(`{"type":"api_key","apiKey":"rotated-secret-key","host":%q}`, host)
	// expectedRevision is optional (TestConnectionRotate_ExpectedRevisionOptional); a wrong type is not.
	call("PATCH", "/v1/connections/"+id1, `{"credential":`+rot+`,"expectedRevision":"one"}`, 400, "VALIDATION_ERROR")
	if err := f.store.SetConnectionStatus(context.Background(), id1, 1, store.StatusReauthRequired); err != nil {
		t.Fatal(err)
	}
	call("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","input":{"id":"1"}}`, 400, "REAUTH_REQUIRED")
	if d := dataOf(call("PATCH", "/v1/connections/"+id1, `{"credential":`+rot+`,"expectedRevision":1}`, 200, "")); d["revision"] != float64(2) {
		t.Fatalf("rotate: %v", d)
	}
	call("PATCH", "/v1/connections/"+id1, `{"credential":`+rot+`,"expectedRevision":1}`, 409, "CONFLICT")
	list = call("GET", "/v1/connections?userId=u1", "", 200, "")["data"].([]any)
	if list[0].(map[string]any)["status"] != "active" {
		t.Fatalf("rotation did not reactivate: %v", list[0])
	}
	call("POST", "/v1/connections/"+global["id"].(string)+"/default", "", 400, "VALIDATION_ERROR")
	if d := dataOf(call("POST", "/v1/connections/"+id2+"/default", "", 200, "")); d["isDefault"] != true || d["connectorId"] != "delta" {
		t.Fatalf("default: %v", d)
	}
	if d := dataOf(call("DELETE", "/v1/connections/"+id2, "", 200, "")); d["erased"] != true {
		t.Fatalf("delete: %v", d)
	}
	list = call("GET", "/v1/connections?userId=u1", "", 200, "")["data"].([]any)
	if list[0].(map[string]any)["id"] != id1 || list[0].(map[string]any)["isDefault"] != true {
		t.Fatalf("the next account did not become the default: %v", list[0])
	}
	for _, p := range []string{"/v1/connections/" + id2, "/v1/connections/" + store.NewID() + "/default"} {
		method := "DELETE"
		if strings.HasSuffix(p, "/default") {
			method = "POST"
		}
		call(method, p, "", 404, "CONNECTION_NOT_FOUND")
	}
	call("PATCH", "/v1/connections/"+id2, `{"name":"x"}`, 404, "CONNECTION_NOT_FOUND")

	// Another project's key sees none of it.
	other, _ := f.store.CreateProject(context.Background(), "other")
	otherKey := newProjectKey(t, f, other.ID)
	r := f.do(f.h, "DELETE", "/v1/connections/"+id1, "Bearer "+otherKey, "")
	responses.Write(r.body)
	if r.status != 404 || errorCode(t, r) != "CONNECTION_NOT_FOUND" {
		t.Fatalf("another project deleted it: %d %s", r.status, r.body)
	}

	all := responses.String() + f.logs.String()
	for _, s := range storedSecrets {
		if strings.Contains(all, s) {
			t.Errorf("secret %q appears in a response or log line", s)
		}
	}
}

// TestConnectionCreate_ParallelUnnamed_AllSucceed: 50 parallel creates of a
// user's first accounts, none named, on both databases: every one is stored
// under its own next free name (PostgreSQL once answered most with 409).
func TestConnectionCreate_ParallelUnnamed_AllSucceed(t *testing.T) {
	t.Parallel()
	onBothDatabases(t, func(t *testing.T, f *fixture) {
		body := fmt.Sprintf(`{"connectorId":"delta","userId":"u1","credential":{"type":"api_key","apiKey":"delta-secret-key","host":%q}}`, f.providerHost)
		const n = 50
		var wg sync.WaitGroup
		answers := make([]response, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				answers[i] = f.do(f.h, "POST", "/v1/connections", "Bearer "+f.key, body)
			}()
		}
		wg.Wait()
		names := map[string]bool{}
		for _, r := range answers {
			if r.status != 200 {
				t.Fatalf("create: %d %s", r.status, r.body)
			}
			names[dataOf(decodeMap(r.body))["name"].(string)] = true
		}
		if len(names) != n || !names["default"] || !names[fmt.Sprintf("default-%d", n)] {
			t.Fatalf("names: %v", names)
		}
	})
}
