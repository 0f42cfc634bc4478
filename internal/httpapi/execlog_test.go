package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/execlog"
	"github.com/switchboard-gw/switchboard/internal/session"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// logCall sends a request with its own X-Request-Id (the key of its log
// record) and returns the answer.
func (f *fixture) logCall(t *testing.T, method, path, body, requestID string, hdr ...string) response {
	t.Helper()
	hdr = append([]string{"X-Request-Id", requestID, "Content-Type", "application/json"}, hdr...)
	return f.do(f.h, method, path, "Bearer "+f.key, body, hdr...)
}

// logsByRequest writes what is queued and returns the project's records
// (read through GET /v1/logs with key) by request id.
func (f *fixture) logsByRequest(t *testing.T, key string) map[string]map[string]any {
	t.Helper()
	f.srv.execlog.Flush(context.Background())
	r := f.do(f.h, "GET", "/v1/logs?limit=500", "Bearer "+key, "")
	if r.status != 200 {
		t.Fatalf("GET /v1/logs: %d %s", r.status, r.body)
	}
	var page struct {
		Data []map[string]any `json:"data"`
	}
	if err := json.Unmarshal(r.body, &page); err != nil {
		t.Fatal(err)
	}
	out := map[string]map[string]any{}
	for _, rec := range page.Data {
		id, _ := rec["requestId"].(string)
		if _, dup := out[id]; dup {
			t.Fatalf("two records for request %s", id)
		}
		out[id] = rec
	}
	return out
}

func TestExecLog_EveryEntryPathAndOutcome(t *testing.T) {
	t.Parallel()
	onBothDatabases(t, func(t *testing.T, f *fixture) {
		ctx := context.Background()
		cred := fmt.Sprintf(`{"type":"api_key","apiKey":"delta-secret-key","host":%q}`, f.providerHost)
		_, conn, _ := f.json("POST", "/v1/connections", `{"connectorId":"delta","userId":"u1","credential":`+cred+`}`)
		connID := dataOf(conn)["id"].(string)
		if code, _, body := f.json("POST", "/v1/connections", `{"connectorId":"delta","global":true,"credential":`+cred+`}`); code != 200 {
			t.Fatalf("global account: %d %s", code, body)
		}

		call := func(id, method, path, body string, status int) {
			t.Helper()
			if r := f.logCall(t, method, path, body, id); r.status != status {
				t.Fatalf("%s: %d, want %d: %s", id, r.status, status, r.body)
			}
		}
		exec := func(id, input string, status int, extra ...string) {
			t.Helper()
			body := `{"toolId":"delta_get_task","userId":"u1","input":` + input + strings.Join(extra, "") + `}`
			call(id, "POST", "/v1/tools/execute", body, status)
		}
		exec("exec-ok", `{"id":"7"}`, 200)
		exec("exec-invalid", `{}`, 400)
		call("exec-no-tool", "POST", "/v1/tools/execute", `{"userId":"u1"}`, 400)
		call("exec-disabled", "POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u2","allowGlobalAccounts":true,"input":{"id":"7"}}`, 403)
		exec("exec-4xx", `{"id":"missing"}`, 400)
		exec("exec-5xx", `{"id":"broken"}`, 502)
		// A provider that does not answer before the caller gives up.
		slow := httptest.NewRequest("POST", "/v1/tools/execute", strings.NewReader(`{"toolId":"delta_get_task","userId":"u1","input":{"id":"slow"}}`))
		slow.Header.Set("Authorization", "Bearer "+f.key)
		slow.Header.Set("X-Request-Id", "exec-timeout")
		tctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		defer cancel()
		rec := httptest.NewRecorder()
		f.h.ServeHTTP(rec, slow.WithContext(tctx))
		if rec.Code != 502 {
			t.Fatalf("timeout: %d %s", rec.Code, rec.Body)
		}
		call("proxy-ok", "POST", "/v1/tools/proxy", `{"connectorId":"delta","userId":"u1","endpoint":"/tasks/3?secret=x","method":"POST","body":{"a":1}}`, 200)
		call("proxy-forbidden", "POST", "/v1/tools/proxy", `{"connectorId":"delta","userId":"u1","endpoint":"//evil.example/x"}`, 403)

		// A session over REST and MCP, both MCP paths.
		_, ss, _ := f.json("POST", "/v1/sessions", `{"userId":"u1","connectors":["delta"],"pinned":["delta_get_task"],"policy":{"allowProxy":true,"readOnly":true}}`)
		sid := dataOf(ss)["id"].(string)
		sessionTool := func(id, name, args string) {
			t.Helper()
			call(id, "POST", "/v1/sessions/"+sid+"/tools/"+name, `{"arguments":`+args+`}`, 200)
		}
		sessionTool("session-ok", "delta_get_task", `{"id":"7"}`)
		sessionTool("session-search", session.MetaSearch, `{"queries":["task"]}`)
		sessionTool("session-meta-5xx", session.MetaExecute, `{"action":"delta_get_task","input":{"id":"broken"}}`)
		sessionTool("session-read-only", session.MetaExecute, `{"action":"delta_create_task","input":{"title":"x"}}`)
		sessionTool("session-proxy", session.MetaProxy, `{"connector":"delta","endpoint":"/tasks/9?page=2"}`)
		call("session-unknown", "POST", "/v1/sessions/"+sid+"/tools/nope", `{}`, 404)

		mcpCall := func(id, path, args string) {
			t.Helper()
			r := f.rpc(f.h, path, `{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"delta_get_task","arguments":`+args+`}}`,
				"X-Request-Id", id)
			if r.status != 200 || !strings.Contains(string(r.body), `"result"`) {
				t.Fatalf("%s: %d %s", id, r.status, r.body)
			}
		}
		f.endpoint(t, session.EndpointRequest{Slug: "delta-tools", Connectors: []string{"delta"}, Mode: session.ModeTools})
		ep, err := f.store.EndpointBySlug(ctx, "delta-tools")
		if err != nil {
			t.Fatal(err)
		}
		direct := f.srv.mcp.DirectCalls()
		mcpCall("session-mcp-direct", "/v1/sessions/"+sid+"/mcp", `{"id":"7"}`)
		mcpCall("endpoint-mcp-direct", "/v1/mcp/delta-tools/u1", `{"id":"missing"}`)
		if f.srv.mcp.DirectCalls() != direct+2 {
			t.Fatal("the direct calls did not take the direct path")
		}
		f.srv.mcp.SetDirectCalls(false)
		mcpCall("session-mcp-sdk", "/v1/sessions/"+sid+"/mcp", `{"id":"7"}`)
		mcpCall("endpoint-mcp-sdk", "/v1/mcp/delta-tools/u1", `{"id":"7"}`)
		if f.srv.mcp.DirectCalls() != direct+2 {
			t.Fatal("the SDK calls took the direct path")
		}

		logs := f.logsByRequest(t, f.key)
		type want struct {
			tool, outcome string
			status        any // float64 or nil
			conn          bool
			via           string // "", "session", "endpoint"
		}
		for id, w := range map[string]want{
			"exec-ok":             {"delta_get_task", "ok", float64(200), true, ""},
			"exec-invalid":        {"delta_get_task", "VALIDATION_ERROR", nil, false, ""},
			"exec-no-tool":        {"", "VALIDATION_ERROR", nil, false, ""},
			"exec-disabled":       {"delta_get_task", "ACTION_DISABLED", nil, false, ""},
			"exec-4xx":            {"delta_get_task", "EXECUTION_ERROR", float64(404), true, ""},
			"exec-5xx":            {"delta_get_task", "UPSTREAM_ERROR", float64(500), true, ""},
			"exec-timeout":        {"delta_get_task", "UPSTREAM_ERROR", nil, true, ""},
			"proxy-ok":            {"POST /tasks/3", "ok", float64(200), true, ""},
			"proxy-forbidden":     {"GET //evil.example/x", "FORBIDDEN_ENDPOINT", nil, true, ""},
			"session-ok":          {"delta_get_task", "ok", float64(200), true, "session"},
			"session-meta-5xx":    {"delta_get_task", "upstream_error", float64(500), true, "session"},
			"session-read-only":   {"delta_create_task", "read_only", nil, false, "session"},
			"session-proxy":       {"GET /tasks/9", "ok", float64(200), true, "session"},
			"session-unknown":     {"nope", "TOOL_NOT_FOUND", nil, false, "session"},
			"session-mcp-direct":  {"delta_get_task", "ok", float64(200), true, "session"},
			"session-mcp-sdk":     {"delta_get_task", "ok", float64(200), true, "session"},
			"endpoint-mcp-direct": {"delta_get_task", "execution_error", float64(404), true, "endpoint"},
			"endpoint-mcp-sdk":    {"delta_get_task", "ok", float64(200), true, "endpoint"},
		} {
			r, ok := logs[id]
			if !ok {
				t.Errorf("%s: no log record", id)
				continue
			}
			tool, _ := r["tool"].(string)
			if tool != w.tool || r["outcome"] != w.outcome || r["providerStatus"] != w.status {
				t.Errorf("%s: tool %q outcome %v status %v; want %q %q %v", id, tool, r["outcome"], r["providerStatus"], w.tool, w.outcome, w.status)
			}
			if (r["connectionId"] == connID) != w.conn {
				t.Errorf("%s: connectionId %v, want it set: %v", id, r["connectionId"], w.conn)
			}
			if r["apiKeyId"] != f.keyID || r["userId"] != map[bool]string{true: "u2", false: "u1"}[id == "exec-disabled"] {
				t.Errorf("%s: key %v user %v", id, r["apiKeyId"], r["userId"])
			}
			// Every call names its connector but a missing or unknown tool.
			if (id != "exec-no-tool" && id != "session-unknown") != (r["connectorId"] == "delta") {
				t.Errorf("%s: connectorId %v", id, r["connectorId"])
			}
			gotVia := ""
			switch {
			case r["sessionId"] == sid && r["endpointId"] == nil:
				gotVia = "session"
			case r["endpointId"] == ep.ID && r["sessionId"] == nil:
				gotVia = "endpoint"
			case r["sessionId"] != nil || r["endpointId"] != nil:
				gotVia = "both"
			}
			if gotVia != w.via {
				t.Errorf("%s: via %q (session %v, endpoint %v), want %q", id, gotVia, r["sessionId"], r["endpointId"], w.via)
			}
			total, provider := r["durationMs"].(float64), r["providerMs"].(float64)
			if total <= 0 || provider < 0 || provider > total {
				t.Errorf("%s: duration %v ms, provider %v ms", id, total, provider)
			}
			if w.status != nil && provider == 0 {
				t.Errorf("%s: a provider answered but no provider time", id)
			}
			if _, has := r["input"]; has {
				t.Errorf("%s: input stored without the project's opt-in", id)
			}
		}
		if r := logs["exec-timeout"]; r["providerMs"].(float64) < 250 {
			t.Errorf("timeout: provider time %v ms, want about 300", r["providerMs"])
		}
		if _, ok := logs["session-search"]; ok {
			t.Error("searching for actions was recorded as a call")
		}

		// Pages of 4 walk the whole list, newest first.
		var walked []string
		next := ""
		for {
			path := "/v1/logs?limit=4"
			if next != "" {
				path += "&cursor=" + url.QueryEscape(next)
			}
			r := f.do(f.h, "GET", path, "Bearer "+f.key, "")
			var page struct {
				Data []struct {
					ID        string    `json:"id"`
					CreatedAt time.Time `json:"createdAt"`
				} `json:"data"`
				NextCursor *string `json:"nextCursor"`
			}
			if r.status != 200 || json.Unmarshal(r.body, &page) != nil || len(page.Data) > 4 {
				t.Fatalf("page: %d %s", r.status, r.body)
			}
			for _, d := range page.Data {
				walked = append(walked, d.ID)
			}
			if page.NextCursor == nil {
				break
			}
			next = *page.NextCursor
		}
		if len(walked) != len(logs) || len(slices.Compact(slices.Sorted(slices.Values(walked)))) != len(logs) {
			t.Fatalf("pages walked %d records (%d distinct), the list has %d", len(walked), len(slices.Compact(slices.Sorted(slices.Values(walked)))), len(logs))
		}

		// Filters, and the validation of every parameter.
		for q, n := range map[string]int{
			"userId=u2":              1,
			"outcome=UPSTREAM_ERROR": 2,
			"toolId=" + url.QueryEscape("POST /tasks/3"):            1,
			"connectorId=delta&outcome=ok":                          7,
			"since=2000-01-01T00:00:00Z&until=2001-01-01T00:00:00Z": 0,
		} {
			r := f.do(f.h, "GET", "/v1/logs?"+q, "Bearer "+f.key, "")
			var page struct{ Data []any }
			if r.status != 200 || json.Unmarshal(r.body, &page) != nil || len(page.Data) != n {
				t.Errorf("%s: %d records (status %d), want %d", q, len(page.Data), r.status, n)
			}
		}
		for _, q := range []string{"limit=0", "limit=501", "cursor=abc", "since=yesterday", "until=2026-13-01T00:00:00Z",
			"since=2026-02-01T00:00:00Z&until=2026-01-01T00:00:00Z", "userId=" + strings.Repeat("u", 257)} {
			r := f.do(f.h, "GET", "/v1/logs?"+q, "Bearer "+f.key, "")
			if r.status != 400 || errorCode(t, r) != "VALIDATION_ERROR" {
				t.Errorf("%s: %d %s", q, r.status, r.body)
			}
		}
		one := logs["exec-ok"]["id"].(string)
		if r := f.do(f.h, "GET", "/v1/logs/"+one, "Bearer "+f.key, ""); r.status != 200 || !strings.Contains(string(r.body), `"requestId":"exec-ok"`) {
			t.Fatalf("GET one: %d %s", r.status, r.body)
		}
	})
}

func TestExecLog_ProjectsNeverSeeEachOthersRecords(t *testing.T) {
	t.Parallel()
	onBothDatabases(t, func(t *testing.T, f *fixture) {
		ctx := context.Background()
		other, _ := f.store.CreateProject(ctx, "other")
		otherKey, hash, hint, _ := apikey.Generate()
		if _, err := f.store.CreateAPIKey(ctx, store.NewAPIKey{ProjectID: other.ID, Name: "o", Hash: hash, Hint: hint}); err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			f.logCall(t, "POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","input":{"id":"7"}}`, fmt.Sprint("a", i))
		}
		mine := f.logsByRequest(t, f.key)
		if len(mine) != 3 {
			t.Fatalf("project A has %d records", len(mine))
		}
		if theirs := f.logsByRequest(t, otherKey); len(theirs) != 0 {
			t.Fatalf("project B sees %d of A's records", len(theirs))
		}
		id := mine["a0"]["id"].(string)
		if r := f.do(f.h, "GET", "/v1/logs/"+id, "Bearer "+otherKey, ""); r.status != 404 || errorCode(t, r) != "NOT_FOUND" {
			t.Fatalf("B reading A's record: %d %s", r.status, r.body)
		}
		r := f.do(f.h, "GET", "/v1/logs?limit=1", "Bearer "+f.key, "")
		var page struct{ NextCursor string }
		_ = json.Unmarshal(r.body, &page)
		if r := f.do(f.h, "GET", "/v1/logs?cursor="+url.QueryEscape(page.NextCursor), "Bearer "+otherKey, ""); r.status != 400 {
			t.Fatalf("B continuing A's cursor: %d %s", r.status, r.body)
		}
		for _, filter := range []string{"userId=u1", "toolId=delta_get_task", "outcome=ok"} {
			if r := f.do(f.h, "GET", "/v1/logs?"+filter, "Bearer "+otherKey, ""); !strings.Contains(string(r.body), `"data":[]`) {
				t.Fatalf("B filtering %s: %s", filter, r.body)
			}
		}
	})
}

// TestExecLog_NoCredentialReachesTheTable scans every stored column of the
// log for the test accounts' secrets, with payloads off and on: a caller
// sending the account's key in an input, a provider echoing it, a password
// field and a field the project named.
func TestExecLog_NoCredentialReachesTheTable(t *testing.T) {
	t.Parallel()
	onBothDatabases(t, func(t *testing.T, f *fixture) {
		ctx := context.Background()
		const password = "pw-Basic-0123456789"
		keyCred := fmt.Sprintf(`{"type":"api_key","apiKey":"delta-secret-key","host":%q}`, f.providerHost)
		basicCred := fmt.Sprintf(`{"type":"basic","username":"ann","password":%q,"host":%q}`, password, f.providerHost)
		for _, c := range []string{
			`{"connectorId":"delta","userId":"u1","credential":` + keyCred + `}`,
			`{"connectorId":"delta","userId":"u3","credential":` + basicCred + `}`,
		} {
			if code, _, body := f.json("POST", "/v1/connections", c); code != 200 {
				t.Fatalf("account: %d %s", code, body)
			}
		}
		secrets := []string{"delta-secret-key", password, f.key, "123-45-6789"}
		run := func(prefix string) {
			t.Helper()
			// The proxy's provider echoes the body: the key comes back in the output.
			f.logCall(t, "POST", "/v1/tools/proxy", `{"connectorId":"delta","userId":"u1","endpoint":"/tasks","method":"POST",`+
				`"headers":{"X-Extra":"delta-secret-key"},"body":{"note":"delta-secret-key","password":"`+password+`","ssn":"123-45-6789","title":"visible"}}`, prefix+"proxy")
			f.logCall(t, "POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","input":{"id":"delta-secret-key"}}`, prefix+"exec")
			f.logCall(t, "POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u3","input":{"id":"`+password+`"}}`, prefix+"basic")
			f.srv.execlog.Flush(ctx)
		}
		scan := func() (rows int, payloads int) {
			t.Helper()
			recs, err := f.store.ListLogRecords(ctx, store.LogFilter{ProjectID: f.project.ID, Limit: 500})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range recs {
				text := fmt.Sprintf("%+v", r)
				if r.Input != nil {
					text += *r.Input
					payloads++
				}
				if r.Output != nil {
					text += *r.Output
				}
				for _, s := range secrets {
					if strings.Contains(text, s) {
						t.Fatalf("secret %q reached the log: %s", s, text)
					}
				}
			}
			return len(recs), payloads
		}

		run("off-")
		if n, p := scan(); n != 3 || p != 0 {
			t.Fatalf("payloads off: %d records, %d with payloads", n, p)
		}

		if err := f.store.SetLogSettings(ctx, f.project.ID, store.LogSettings{Payloads: true, Redact: []string{"ssn"}}); err != nil {
			t.Fatal(err)
		}
		f.srv.execlog.LoadSettings(ctx)
		run("on-")
		if n, p := scan(); n != 6 || p != 3 {
			t.Fatalf("payloads on: %d records, %d with payloads", n, p)
		}
		on := f.logsByRequest(t, f.key)["on-proxy"]
		in, _ := json.Marshal(on["input"])
		out, _ := json.Marshal(on["output"])
		if !strings.Contains(string(in), `"title":"visible"`) || !strings.Contains(string(in), `"ssn":"[redacted]"`) ||
			!strings.Contains(string(out), execlog.Redacted) || strings.Contains(string(in), "X-Extra") {
			t.Fatalf("payloads not stored as they should be:\ninput  %s\noutput %s", in, out)
		}
	})
}

func TestExecLog_FullQueue_CallsSucceedAndDropsAreCounted(t *testing.T) {
	t.Parallel()
	f := setup(t)
	cred := fmt.Sprintf(`{"type":"api_key","apiKey":"delta-secret-key","host":%q}`, f.providerHost)
	if code, _, body := f.json("POST", "/v1/connections", `{"connectorId":"delta","userId":"u1","credential":`+cred+`}`); code != 200 {
		t.Fatalf("account: %d %s", code, body)
	}
	f.srv.execlog = execlog.New(execlog.Options{Store: f.store, Queue: 1})
	for i := range 4 {
		if r := f.logCall(t, "POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","input":{"id":"7"}}`, fmt.Sprint("q", i)); r.status != 200 {
			t.Fatalf("call %d with a full log queue: %d %s", i, r.status, r.body)
		}
	}
	if d := f.srv.execlog.Dropped(); d != 3 {
		t.Fatalf("dropped %d, want 3", d)
	}
	if logs := f.logsByRequest(t, f.key); len(logs) != 1 || logs["q0"] == nil {
		t.Fatalf("records: %v", logs)
	}
}
