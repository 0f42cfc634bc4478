package httpapi

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

// sessionFor creates a delta account for user and a session of it, and
// returns the session's path.
func (f *fixture) sessionFor(t *testing.T, user string) string {
	t.Helper()
	cred := fmt.Sprintf(`{"type":"api_key","apiKey":"delta-secret-key","host":%q}`, f.providerHost)
	if code, _, raw := f.json("POST", "/v1/connections", `{"connectorId":"delta","userId":"`+user+`","credential":`+cred+`}`); code != 200 {
		t.Fatalf("connection: %d %s", code, raw)
	}
	code, m, raw := f.json("POST", "/v1/sessions", `{"userId":"`+user+`","connectors":["delta"]}`)
	if code != 201 {
		t.Fatalf("session: %d %s", code, raw)
	}
	return "/v1/sessions/" + dataOf(m)["id"].(string)
}

// refusalOf decodes a session tool answer that must be a refusal.
func refusalOf(t *testing.T, r response) map[string]any {
	t.Helper()
	var out struct {
		OK    bool           `json:"ok"`
		Error map[string]any `json:"error"`
	}
	if r.status != 200 || json.Unmarshal(r.body, &out) != nil || out.OK || out.Error == nil {
		t.Fatalf("not a refusal: %d %s", r.status, r.body)
	}
	return out.Error
}

// mcpToolResult decodes a tools/call answer's structured content.
func mcpToolResult(t *testing.T, r response) (map[string]any, bool) {
	t.Helper()
	var out struct {
		Result struct {
			StructuredContent map[string]any `json:"structuredContent"`
			IsError           bool           `json:"isError"`
		} `json:"result"`
	}
	if r.status != 200 || json.Unmarshal(r.body, &out) != nil || out.Result.StructuredContent == nil {
		t.Fatalf("not a tool result: %d %s", r.status, r.body)
	}
	return out.Result.StructuredContent, out.Result.IsError
}

func mcpCall(name, args string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"` + name + `","arguments":` + args + `}}`
}

// TestQuota_RESTSessionAndMCP_RefusedOverTheLimit: a per-user connector
// quota answers direct REST calls with 429 RATE_LIMITED and Retry-After,
// and session calls (REST and MCP) with a rate_limited refusal carrying
// retryAfter; other users keep their own count, the next window admits
// again, and a deleted quota no longer limits.
func TestQuota_RESTSessionAndMCP_RefusedOverTheLimit(t *testing.T) {
	t.Parallel()
	onBothDatabases(t, func(t *testing.T, f *fixture) {
		sess := f.sessionFor(t, "u1")
		f.sessionFor(t, "u2")
		code, m, raw := f.json("POST", "/v1/quotas", `{"window":"minute","limit":3,"perUser":true,"connectorId":"delta"}`)
		q := dataOf(m)
		if code != 201 || q["window"] != "minute" || q["limit"] != 3.0 || q["perUser"] != true || q["connectorId"] != "delta" || q["userId"] != nil {
			t.Fatalf("create: %d %s", code, raw)
		}
		if code, m, _ := f.json("GET", "/v1/quotas", ""); code != 200 || len(m["data"].([]any)) != 1 {
			t.Fatalf("list: %d %v", code, m)
		}
		exec := func(user, id string) response {
			return f.do(f.h, "POST", "/v1/tools/execute", "Bearer "+f.key,
				`{"toolId":"delta_get_task","userId":"`+user+`","input":{"id":"`+id+`"}}`, "Content-Type", "application/json")
		}
		for i := range 2 {
			if r := exec("u1", "7"); r.status != 200 {
				t.Fatalf("call %d: %d %s", i, r.status, r.body)
			}
		}
		// The session's call over REST is the third and last in the window.
		if r := f.do(f.h, "POST", sess+"/tools/switchboard_execute", "Bearer "+f.key,
			`{"arguments":{"action":"delta_get_task","input":{"id":"7"}}}`, "Content-Type", "application/json"); !strings.Contains(string(r.body), `"ok":true`) {
			t.Fatalf("third call: %d %s", r.status, r.body)
		}
		r := exec("u1", "7")
		if r.status != 429 || errorCode(t, r) != "RATE_LIMITED" || r.header.Get("Retry-After") != "55" {
			t.Fatalf("over the limit: %d %v %s", r.status, r.header, r.body)
		}
		if !strings.Contains(string(r.body), "3 calls per minute for each user on delta") {
			t.Errorf("the message does not name the limit: %s", r.body)
		}
		ref := refusalOf(t, f.do(f.h, "POST", sess+"/tools/switchboard_execute", "Bearer "+f.key,
			`{"arguments":{"action":"delta_get_task","input":{"id":"7"}}}`, "Content-Type", "application/json"))
		if ref["code"] != "rate_limited" || ref["retryAfter"] != 55.0 || ref["connector"] != "delta" {
			t.Fatalf("session refusal: %v", ref)
		}
		out, isErr := mcpToolResult(t, f.rpc(f.h, sess+"/mcp", mcpCall("switchboard_execute", `{"action":"delta_get_task","input":{"id":"7"}}`)))
		if e, _ := out["error"].(map[string]any); !isErr || e["code"] != "rate_limited" || e["retryAfter"] != 55.0 {
			t.Fatalf("MCP refusal: %v", out)
		}
		if r := exec("u2", "7"); r.status != 200 {
			t.Fatalf("another user shared the count: %d %s", r.status, r.body)
		}
		f.clock.Advance(55 * time.Second)
		if r := exec("u1", "7"); r.status != 200 {
			t.Fatalf("next window: %d %s", r.status, r.body)
		}
		if code, _, raw := f.json("DELETE", "/v1/quotas/"+q["id"].(string), ""); code != 200 {
			t.Fatalf("delete: %d %s", code, raw)
		}
		for range 4 {
			if r := exec("u1", "7"); r.status != 200 {
				t.Fatalf("a deleted quota still limits: %d %s", r.status, r.body)
			}
		}
	})
}

// TestQuota_ProviderRateLimit_SurfacedAndCounted: a provider's 429 keeps
// its Retry-After on REST, becomes a rate_limited refusal with the
// provider's delay in a session, and counts against the quota.
func TestQuota_ProviderRateLimit_SurfacedAndCounted(t *testing.T) {
	t.Parallel()
	f := setup(t)
	sess := f.sessionFor(t, "u1")
	if code, _, raw := f.json("POST", "/v1/quotas", `{"window":"hour","limit":2,"userId":"u1","toolId":"delta_get_task"}`); code != 201 {
		t.Fatalf("create: %d %s", code, raw)
	}
	r := f.do(f.h, "POST", "/v1/tools/execute", "Bearer "+f.key, `{"toolId":"delta_get_task","userId":"u1","input":{"id":"limited"}}`,
		"Content-Type", "application/json")
	if r.status != 400 || errorCode(t, r) != "EXECUTION_ERROR" || r.header.Get("Retry-After") != "30" || !strings.Contains(string(r.body), `"status":429`) {
		t.Fatalf("provider 429 over REST: %d %v %s", r.status, r.header, r.body)
	}
	ref := refusalOf(t, f.do(f.h, "POST", sess+"/tools/switchboard_execute", "Bearer "+f.key,
		`{"arguments":{"action":"delta_get_task","input":{"id":"limited"}}}`, "Content-Type", "application/json"))
	up, _ := ref["upstream"].(map[string]any)
	if ref["code"] != "rate_limited" || ref["retryAfter"] != 30.0 || up["status"] != 429.0 {
		t.Fatalf("provider 429 in a session: %v", ref)
	}
	// Both provider refusals counted: the hour's two calls are spent.
	ref = refusalOf(t, f.do(f.h, "POST", sess+"/tools/switchboard_execute", "Bearer "+f.key,
		`{"arguments":{"action":"delta_get_task","input":{"id":"7"}}}`, "Content-Type", "application/json"))
	if ref["code"] != "rate_limited" || ref["upstream"] != nil || ref["retryAfter"] != 3355.0 {
		t.Fatalf("quota after the provider's refusals: %v", ref)
	}
	// The quota names one tool: another tool of the connector is not limited.
	r = f.do(f.h, "POST", "/v1/tools/execute", "Bearer "+f.key, `{"toolId":"delta_create_task","userId":"u1","input":{"title":"x"}}`,
		"Content-Type", "application/json")
	if r.status != 200 {
		t.Fatalf("another tool: %d %s", r.status, r.body)
	}
}

func TestQuota_BadRequestsRefused(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, body := range []string{
		`{}`,
		`{"window":"week","limit":1}`,
		`{"window":"hour","limit":0}`,
		`{"window":"hour","limit":1,"connectorId":"nope"}`,
		`{"window":"hour","limit":1,"toolId":"nope_*"}`,
	} {
		if code, m, raw := f.json("POST", "/v1/quotas", body); code != 400 || errCode(m) != "VALIDATION_ERROR" {
			t.Errorf("%s: %d %s", body, code, raw)
		}
	}
	if code, m, _ := f.json("GET", "/v1/quotas/nope", ""); code != 404 || errCode(m) != "NOT_FOUND" {
		t.Errorf("unknown quota: %d %v", code, m)
	}
	_, m, _ := f.json("POST", "/v1/quotas", `{"window":"hour","limit":5}`)
	id := dataOf(m)["id"].(string)
	if code, m, raw := f.json("PATCH", "/v1/quotas/"+id, `{"window":"day","limit":50}`); code != 200 || dataOf(m)["window"] != "day" || dataOf(m)["limit"] != 50.0 {
		t.Fatalf("patch: %d %s", code, raw)
	}
	if code, _, raw := f.json("PATCH", "/v1/quotas/"+id, `{"window":"day","limit":50,"perUser":true}`); code != 400 {
		t.Fatalf("patch of a filter: %d %s", code, raw)
	}
}
