package httpapi

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/session"
)

// mcpCallFixture is a fixture with a delta account for user u1, a session
// (meta tools with delta_get_task pinned) and the two delta endpoints.
func mcpCallFixture(t *testing.T) (f *fixture, sessionPath string) {
	t.Helper()
	f = setup(t)
	if _, _, raw := f.json("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","userId":"u1","credential":{"type":"api_key","apiKey":"delta-secret-key","host":%q}}`, f.providerHost)); !strings.Contains(raw, `"data"`) {
		t.Fatal(raw)
	}
	_, m, _ := f.json("POST", "/v1/sessions", `{"userId":"u1","connectors":["delta"],"pinned":["delta_get_task"]}`)
	f.endpoint(t, session.EndpointRequest{Slug: "delta-tools", Connectors: []string{"delta"}, Mode: session.ModeTools})
	f.endpoint(t, session.EndpointRequest{Slug: "delta-meta", Connectors: []string{"delta"}, Mode: session.ModeMeta})
	return f, "/v1/sessions/" + dataOf(m)["id"].(string) + "/mcp"
}

// connectLink matches the token of a connect link.
var connectLink = regexp.MustCompile(`/connect/[A-Za-z0-9_-]+`)

// TestMCPToolsCall_DirectPathAnswersAsTheSDK sends the same tools/call
// requests through the direct path and through the go-sdk, and compares
// the answers: status, content type and the decoded JSON-RPC response (a
// plain-text answer byte for byte). It also checks which requests the
// direct path took, so the comparison is not of the SDK with itself.
func TestMCPToolsCall_DirectPathAnswersAsTheSDK(t *testing.T) {
	t.Parallel()
	f, sessionPath := mcpCallFixture(t)
	call := func(id, params string) string {
		return `{"jsonrpc":"2.0","id":` + id + `,"method":"tools/call","params":` + params + `}`
	}
	newCall := func(name, args, meta string) string {
		return `{"_meta":{` + meta + `},"name":"` + name + `","arguments":` + args + `}`
	}
	newTriple := `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{},` +
		`"io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"}`
	newMeta := newCall("delta_get_task", `{"id":"2"}`, newTriple)
	newHeaders := func(name string) []string { return []string{"Mcp-Method", "tools/call", "Mcp-Name", name} }
	cases := []struct {
		name, path, version, body string
		direct                    bool
		header                    []string
	}{
		{"meta execute", sessionPath, "2025-06-18", call("1", `{"name":"switchboard_execute","arguments":{"action":"delta_get_task","input":{"id":"2"}}}`), true, nil},
		{"pinned tool, string id", sessionPath, "2025-03-26", call(`"req-1"`, `{"name":"delta_get_task","arguments":{"id":"2"}}`), true, nil},
		{"no protocol version", sessionPath, "", call("2", `{"name":"delta_get_task","arguments":{"id":"2"}}`), true, nil},
		{"2025-11-25", sessionPath, "2025-11-25", call("2", `{"name":"delta_get_task","arguments":{"id":"2"}}`), true, nil},
		{"tool error (provider 500)", sessionPath, "2025-06-18", call("3", `{"name":"delta_get_task","arguments":{"id":"broken"}}`), true, nil},
		{"refusal: not in scope", sessionPath, "2025-06-18", call("4", `{"name":"switchboard_execute","arguments":{"action":"beta_create_invoice","input":{}}}`), true, nil},
		{"refusal: no action", sessionPath, "2025-06-18", call("5", `{"name":"switchboard_execute","arguments":{}}`), true, nil},
		{"unknown tool", sessionPath, "2025-06-18", call("6", `{"name":"nope","arguments":{}}`), true, nil},
		{"empty tool name", sessionPath, "2025-06-18", call("6", `{"name":""}`), true, nil},
		{"invalid arguments", sessionPath, "2025-06-18", call("7", `{"name":"delta_get_task","arguments":{"id":5,"extra":true}}`), true, nil},
		{"arguments absent", sessionPath, "2025-06-18", call("8", `{"name":"delta_get_task"}`), true, nil},
		{"arguments null", sessionPath, "2025-06-18", call("8", `{"name":"switchboard_list_accounts","arguments":null}`), true, nil},
		{"arguments a number", sessionPath, "2025-06-18", call("9", `{"name":"delta_get_task","arguments":5}`), true, nil},
		{"arguments a string, meta tool", sessionPath, "2025-06-18", call("9", `{"name":"switchboard_execute","arguments":"x"}`), true, nil},
		{"arguments an array", sessionPath, "2025-06-18", call("9", `{"name":"switchboard_execute","arguments":[1]}`), true, nil},
		{"escapes in the answer", sessionPath, "2025-06-18", call("10", `{"name":"delta_get_task","arguments":{"id":"a<b>&\"\u2028é"}}`), true, nil},
		{"negative id", sessionPath, "2025-06-18", call("-11", `{"name":"delta_get_task","arguments":{"id":"2"}}`), true, nil},
		{"endpoint tools mode", "/v1/mcp/delta-tools/u1", "2025-06-18", call("12", `{"name":"delta_create_task","arguments":{"title":"t"}}`), true, nil},
		{"endpoint tools mode, invalid", "/v1/mcp/delta-tools/u1", "2025-06-18", call("12", `{"name":"delta_create_task","arguments":{"title":""}}`), true, nil},
		{"endpoint tools mode, no account", "/v1/mcp/delta-tools/u2", "2025-06-18", call("12", `{"name":"delta_get_task","arguments":{"id":"2"}}`), true, nil},
		{"endpoint meta mode", "/v1/mcp/delta-meta/u1", "2025-06-18", call("13", `{"name":"switchboard_execute","arguments":{"action":"delta_get_task","input":{"id":"2"}}}`), true, nil},
		// What the direct path leaves to the SDK.
		{"missing params", sessionPath, "2025-06-18", `{"jsonrpc":"2.0","id":20,"method":"tools/call"}`, false, nil},
		{"params null", sessionPath, "2025-06-18", call("21", `null`), false, nil},
		{"params an array", sessionPath, "2025-06-18", call("22", `[]`), false, nil},
		{"name not a string", sessionPath, "2025-06-18", call("23", `{"name":5}`), false, nil},
		{"name in another case", sessionPath, "2025-06-18", call("24", `{"Name":"delta_get_task","arguments":{"id":"2"}}`), false, nil},
		{"notification without id", sessionPath, "2025-06-18", `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"delta_get_task","arguments":{"id":"2"}}}`, false, nil},
		{"null id", sessionPath, "2025-06-18", call("null", `{"name":"delta_get_task","arguments":{"id":"2"}}`), false, nil},
		{"fractional id", sessionPath, "2025-06-18", call("1.5", `{"name":"delta_get_task","arguments":{"id":"2"}}`), false, nil},
		{"_meta with a progress token", sessionPath, "2025-06-18", call("25", `{"_meta":{"progressToken":"p"},"name":"delta_get_task","arguments":{"id":"2"}}`), false, nil},
		{"an extra member", sessionPath, "2025-06-18", `{"jsonrpc":"2.0","id":26,"method":"tools/call","params":{"name":"delta_get_task","arguments":{"id":"2"}},"x":1}`, false, nil},
		// 2026-07-28: the per-request _meta and the Mcp-Method and Mcp-Name
		// headers in their plain form are answered directly…
		{"protocol 2026-07-28", sessionPath, "2026-07-28", call("27", newMeta), true, newHeaders("delta_get_task")},
		{"2026-07-28 without clientInfo", sessionPath, "2026-07-28", call("27", newCall("delta_get_task", `{"id":"2"}`,
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}}`)), true, newHeaders("delta_get_task")},
		{"2026-07-28 tool error", sessionPath, "2026-07-28", call("27", newCall("delta_get_task", `{"id":"broken"}`, newTriple)), true, newHeaders("delta_get_task")},
		{"2026-07-28 refusal", sessionPath, "2026-07-28", call("27", newCall("switchboard_execute", `{"action":"beta_create_invoice","input":{}}`, newTriple)), true, newHeaders("switchboard_execute")},
		{"2026-07-28 invalid arguments", sessionPath, "2026-07-28", call("27", newCall("delta_get_task", `{"id":5}`, newTriple)), true, newHeaders("delta_get_task")},
		{"2026-07-28 endpoint", "/v1/mcp/delta-tools/u1", "2026-07-28", call(`"e"`, newCall("delta_create_task", `{"title":"t"}`, newTriple)), true, newHeaders("delta_create_task")},
		// …and everything else goes to the SDK.
		{"2026-07-28 unknown tool (HTTP 400)", sessionPath, "2026-07-28", call("28", newCall("nope", `{}`, newTriple)), false, newHeaders("nope")},
		{"2026-07-28 without _meta", sessionPath, "2026-07-28", call("28", `{"name":"delta_get_task","arguments":{"id":"2"}}`), false, newHeaders("delta_get_task")},
		{"2026-07-28 without Mcp-Name", sessionPath, "2026-07-28", call("28", newMeta), false, []string{"Mcp-Method", "tools/call"}},
		{"2026-07-28 Mcp-Name of another tool", sessionPath, "2026-07-28", call("28", newMeta), false, newHeaders("delta_create_task")},
		{"2026-07-28 without Mcp-Method", sessionPath, "2026-07-28", call("28", newMeta), false, []string{"Mcp-Name", "delta_get_task"}},
		{"2026-07-28 _meta of another version", sessionPath, "2026-07-28", call("28", newCall("delta_get_task", `{"id":"2"}`,
			`"io.modelcontextprotocol/protocolVersion":"2025-11-25","io.modelcontextprotocol/clientCapabilities":{}`)), false, newHeaders("delta_get_task")},
		{"2026-07-28 _meta on an older version", sessionPath, "2025-11-25", call("28", newMeta), false, newHeaders("delta_get_task")},
		{"2026-07-28 without capabilities", sessionPath, "2026-07-28", call("28", newCall("delta_get_task", `{"id":"2"}`,
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28"`)), false, newHeaders("delta_get_task")},
		{"2026-07-28 malformed capabilities", sessionPath, "2026-07-28", call("28", newCall("delta_get_task", `{"id":"2"}`,
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":"yes"}}`)), false, newHeaders("delta_get_task")},
		{"2026-07-28 capabilities as a list", sessionPath, "2026-07-28", call("28", newCall("delta_get_task", `{"id":"2"}`,
			`"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":[]`)), false, newHeaders("delta_get_task")},
		{"2026-07-28 malformed clientInfo", sessionPath, "2026-07-28", call("28", newCall("delta_get_task", `{"id":"2"}`,
			newTriple[:strings.LastIndex(newTriple, ",")]+`,"io.modelcontextprotocol/clientInfo":"me"`)), false, newHeaders("delta_get_task")},
		{"2026-07-28 a log level", sessionPath, "2026-07-28", call("28", newCall("delta_get_task", `{"id":"2"}`,
			newTriple+`,"io.modelcontextprotocol/logLevel":"debug"`)), false, newHeaders("delta_get_task")},
		{"unsupported protocol", sessionPath, "1999-01-01", call("29", `{"name":"delta_get_task","arguments":{"id":"2"}}`), false, nil},
		{"Last-Event-ID", sessionPath, "2025-06-18", call("30", `{"name":"delta_get_task","arguments":{"id":"2"}}`), false, []string{"Last-Event-ID", "x_1"}},
		{"Accept without an event stream", sessionPath, "2025-06-18", call("31", `{"name":"delta_get_task","arguments":{"id":"2"}}`), false, []string{"Accept", "application/json, text/event-streams"}},
	}
	send := func(path, version, body string, header []string) response {
		h := []string{"Content-Type", "application/json", "Accept", "application/json, text/event-stream"}
		if version != "" {
			h = append(h, "Mcp-Protocol-Version", version)
		}
		return f.do(f.h, "POST", path, "Bearer "+f.key, body, append(h, header...)...)
	}
	for _, c := range cases {
		f.srv.mcp.SetDirectCalls(true)
		before := f.srv.mcp.DirectCalls()
		direct := send(c.path, c.version, c.body, c.header)
		if took := f.srv.mcp.DirectCalls() > before; took != c.direct {
			t.Errorf("%s: answered directly %v, want %v", c.name, took, c.direct)
		}
		f.srv.mcp.SetDirectCalls(false)
		before = f.srv.mcp.DirectCalls()
		sdk := send(c.path, c.version, c.body, c.header)
		if f.srv.mcp.DirectCalls() != before {
			t.Fatalf("%s: answered directly with direct calls off", c.name)
		}
		if direct.status != sdk.status || direct.header.Get("Content-Type") != sdk.header.Get("Content-Type") {
			t.Errorf("%s: direct %d %q, SDK %d %q", c.name, direct.status, direct.header.Get("Content-Type"), sdk.status, sdk.header.Get("Content-Type"))
		}
		// A refusal's connect link is fresh on every call.
		direct.body = connectLink.ReplaceAll(direct.body, []byte("/connect/LINK"))
		sdk.body = connectLink.ReplaceAll(sdk.body, []byte("/connect/LINK"))
		var d, s any
		if json.Unmarshal(direct.body, &d) != nil || json.Unmarshal(sdk.body, &s) != nil {
			if !bytes.Equal(direct.body, sdk.body) {
				t.Errorf("%s: direct %q, SDK %q", c.name, direct.body, sdk.body)
			}
			continue
		}
		if !reflect.DeepEqual(d, s) {
			t.Errorf("%s:\ndirect %s\nSDK    %s", c.name, direct.body, sdk.body)
		}
		if c.direct && direct.header.Get("Cache-Control") != sdk.header.Get("Cache-Control") {
			t.Errorf("%s: Cache-Control %q, SDK %q", c.name, direct.header.Get("Cache-Control"), sdk.header.Get("Cache-Control"))
		}
	}
}

// TestMCPToolsCall_LargeChunkedBodyReachesTheSDKWhole checks that a body
// too large for the direct path, sent without a length, reaches the SDK
// whole: the part read ahead is not lost.
func TestMCPToolsCall_LargeChunkedBodyReachesTheSDKWhole(t *testing.T) {
	t.Parallel()
	f, sessionPath := mcpCallFixture(t)
	title := strings.Repeat("x", 1<<20)
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"switchboard_execute","arguments":{"action":"delta_create_task","input":{"title":"` + title + `"}}}}`
	req := httptest.NewRequest("POST", sessionPath, nil)
	req.Body = io.NopCloser(strings.NewReader(body))
	req.ContentLength = -1 // chunked: no length to check before reading
	req.Header.Set("Authorization", "Bearer "+f.key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	var out struct {
		Result struct {
			IsError           bool `json:"isError"`
			StructuredContent struct {
				Result struct {
					Body string `json:"body"`
				} `json:"result"`
			} `json:"structuredContent"`
		} `json:"result"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &out); err != nil || out.Result.IsError {
		t.Fatalf("%d %.300s", rec.Code, rec.Body.Bytes())
	}
	if !strings.Contains(out.Result.StructuredContent.Result.Body, title) {
		t.Fatalf("the provider got a body of %d bytes", len(out.Result.StructuredContent.Result.Body))
	}
}
