// Command mcp-client talks MCP (JSON-RPC over Streamable HTTP) to a
// Switchboard session's MCP URL, the way an agent framework's MCP client
// does: initialize, tools/list, then tools/call of switchboard_execute.
// It is plain HTTP so that every step is visible; in an application use an
// MCP SDK pointed at the same URL with the same Authorization header.
//
//	SWITCHBOARD_API_KEY=sb_... go run ./examples/mcp-client \
//	  -user ann -connector tasks -action tasks_list_tasks -input '{}'
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
	"strings"

	"github.com/switchboard-gw/switchboard/clients/go/switchboard"
)

func main() {
	user := flag.String("user", "default", "the end user the session acts for")
	connector := flag.String("connector", "tasks", "the connector the session may use")
	action := flag.String("action", "tasks_list_tasks", "the tool to run through switchboard_execute")
	input := flag.String("input", `{}`, "the tool's input")
	flag.Parse()
	key := os.Getenv("SWITCHBOARD_API_KEY")
	if key == "" {
		log.Fatal("SWITCHBOARD_API_KEY is not set")
	}
	base := os.Getenv("SWITCHBOARD_URL")
	if base == "" {
		base = switchboard.DefaultBaseURL
	}
	ctx := context.Background()
	sess, err := switchboard.New(key, switchboard.WithBaseURL(base)).CreateSession(ctx,
		switchboard.SessionRequest{UserID: *user, Connectors: []string{*connector}, TTLMinutes: 10})
	if err != nil {
		log.Fatal(err)
	}
	c := &mcpClient{url: sess.MCPURL, key: key}
	var init struct {
		ProtocolVersion string `json:"protocolVersion"`
		ServerInfo      struct{ Name, Version string }
	}
	if err := c.call(ctx, "initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]string{"name": "switchboard-example", "version": "1"},
	}, &init); err != nil {
		log.Fatal(err)
	}
	c.version = init.ProtocolVersion
	fmt.Printf("server: %s %s (protocol %s)\n", init.ServerInfo.Name, init.ServerInfo.Version, init.ProtocolVersion)
	if err := c.notify(ctx, "notifications/initialized"); err != nil {
		log.Fatal(err)
	}
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	if err := c.call(ctx, "tools/list", map[string]any{}, &list); err != nil {
		log.Fatal(err)
	}
	names := make([]string, len(list.Tools))
	for i, t := range list.Tools {
		names[i] = t.Name
	}
	fmt.Println("tools:", strings.Join(names, ", "))
	var result struct {
		IsError bool `json:"isError"`
		Content []struct{ Type, Text string }
	}
	if err := c.call(ctx, "tools/call", map[string]any{
		"name": "switchboard_execute", "arguments": map[string]any{"action": *action, "input": json.RawMessage(*input)},
	}, &result); err != nil {
		log.Fatal(err)
	}
	for _, part := range result.Content {
		if part.Type == "text" {
			fmt.Printf("result (isError=%v): %s\n", result.IsError, part.Text)
		}
	}
}

// mcpClient is the smallest Streamable HTTP client: one POST per message.
type mcpClient struct {
	url, key, version, session string
	nextID                     int
}

func (c *mcpClient) post(ctx context.Context, msg map[string]any) (*http.Response, error) {
	body, _ := json.Marshal(msg)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+c.key)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if c.version != "" {
		req.Header.Set("MCP-Protocol-Version", c.version)
	}
	if c.session != "" {
		req.Header.Set("Mcp-Session-Id", c.session)
	}
	resp, err := http.DefaultClient.Do(req)
	if err == nil && resp.Header.Get("Mcp-Session-Id") != "" {
		c.session = resp.Header.Get("Mcp-Session-Id")
	}
	return resp, err
}

// call sends a request and decodes its result into out.
func (c *mcpClient) call(ctx context.Context, method string, params, out any) error {
	c.nextID++
	resp, err := c.post(ctx, map[string]any{"jsonrpc": "2.0", "id": c.nextID, "method": method, "params": params})
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	// A server may answer as an event stream; the answer is its data line.
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		sc := bufio.NewScanner(bytes.NewReader(raw))
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				raw = []byte(d)
			}
		}
	}
	var msg struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(raw, &msg); err != nil {
		return fmt.Errorf("%s: HTTP %d: %s", method, resp.StatusCode, raw)
	}
	if msg.Error != nil {
		return fmt.Errorf("%s: JSON-RPC error %d: %s", method, msg.Error.Code, msg.Error.Message)
	}
	if msg.Result == nil {
		return errors.New(method + ": no result")
	}
	return json.Unmarshal(msg.Result, out)
}

// notify sends a notification (no id, no answer but 202).
func (c *mcpClient) notify(ctx context.Context, method string) error {
	resp, err := c.post(ctx, map[string]any{"jsonrpc": "2.0", "method": method})
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode >= 300 {
		return fmt.Errorf("%s: HTTP %d", method, resp.StatusCode)
	}
	return nil
}
