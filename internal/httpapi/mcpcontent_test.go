package httpapi

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/session"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/upstream"
)

// pixel is a PNG an upstream tool answers with.
var pixel = []byte("\x89PNG\r\n\x1a\nnot-really-a-png")

// TestMCPServer_ImageAndOtherContentPassThrough: an upstream MCP tool that
// answers an image, audio, a resource link and an embedded resource beside
// text reaches the REST caller with every block (docs/execution.md), and
// the MCP caller of an endpoint with them in the result.
func TestMCPServer_ImageAndOtherContentPassThrough(t *testing.T) {
	t.Parallel()
	srv := mcp.NewServer(&mcp.Implementation{Name: "charts", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "draw", Description: "Draws a chart of the numbers and answers it as a PNG image.",
		InputSchema: json.RawMessage(`{"type":"object"}`), Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
		func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "here is the chart"},
				&mcp.ImageContent{Data: pixel, MIMEType: "image/png"},
				&mcp.AudioContent{Data: []byte("RIFF"), MIMEType: "audio/wav"},
				&mcp.ResourceLink{URI: "https://charts.example/c/1", Name: "chart-1", MIMEType: "image/png"},
				&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "notes"}},
			}}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	ts := httptest.NewTLSServer(h)
	t.Cleanup(ts.Close)

	f := setupWith(t, storeOpen, testCatalogFS, ts)
	ctx := context.Background()
	pool := x509.NewCertPool()
	pool.AddCert(ts.Certificate())
	client := netguard.New(netguard.Options{AllowLoopback: true, TLSConfig: &tls.Config{RootCAs: pool}}).Client()
	con, err := upstream.DiscoverMCP(ctx, client, ts.URL, nil, upstream.MCPOptions{ID: "charts", DataClass: "standard"})
	if err != nil {
		t.Fatal(err)
	}
	def, _ := json.Marshal(con)
	if err := f.store.PutProjectConnector(ctx, store.ProjectConnector{ProjectID: f.project.ID, ConnectorID: "charts", Origin: catalog.OriginMCP,
		Source: ts.URL, Definition: def}); err != nil {
		t.Fatal(err)
	}

	st, _, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"charts_draw","userId":"u1","input":{}}`)
	var got struct {
		Data struct {
			Content []map[string]any `json:"content"`
		} `json:"data"`
	}
	if st != 200 || json.Unmarshal([]byte(raw), &got) != nil || len(got.Data.Content) != 5 {
		t.Fatalf("execute: %d %s", st, raw)
	}
	c := got.Data.Content
	if c[0]["type"] != "text" || c[0]["text"] != "here is the chart" {
		t.Errorf("text block: %v", c[0])
	}
	if c[1]["type"] != "image" || c[1]["mimeType"] != "image/png" || c[1]["data"] != base64.StdEncoding.EncodeToString(pixel) {
		t.Errorf("image block: %v", c[1])
	}
	if c[2]["type"] != "audio" || c[2]["mimeType"] != "audio/wav" {
		t.Errorf("audio block: %v", c[2])
	}
	if c[3]["type"] != "resource_link" || c[3]["uri"] != "https://charts.example/c/1" {
		t.Errorf("resource link block: %v", c[3])
	}
	if r, _ := c[4]["resource"].(map[string]any); c[4]["type"] != "resource" || r["text"] != "notes" {
		t.Errorf("embedded resource block: %v", c[4])
	}

	// Through an MCP endpoint the image reaches the MCP client too.
	f.endpoint(t, session.EndpointRequest{Slug: "charts-tools", Connectors: []string{"charts"}})
	r := f.rpc(f.h, "/v1/mcp/charts-tools/u1", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"charts_draw","arguments":{}}}`)
	var call struct {
		Result struct {
			Content []map[string]any `json:"content"`
		} `json:"result"`
	}
	if r.status != 200 || json.Unmarshal(r.body, &call) != nil {
		t.Fatalf("MCP endpoint: %d %s", r.status, r.body)
	}
	var types []string
	for _, b := range call.Result.Content {
		types = append(types, b["type"].(string))
	}
	// The JSON text of the outcome first, then the blocks that are not text.
	if strings.Join(types, ",") != "text,image,audio,resource_link,resource" ||
		call.Result.Content[1]["data"] != base64.StdEncoding.EncodeToString(pixel) {
		t.Fatalf("MCP endpoint content %v: %s", types, r.body)
	}
}
