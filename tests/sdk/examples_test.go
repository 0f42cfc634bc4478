package sdk

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/clients/go/switchboard"
)

// examplesScenario runs each program under examples/ against the stack as
// its README says, and checks what it prints or serves.
func examplesScenario(t *testing.T, s *stack, p project) {
	ctx := context.Background()
	c := switchboard.New(p.key, switchboard.WithBaseURL(s.base))
	env := append(s.sdkEnv(p), "SWITCHBOARD_URL="+s.base, "SWITCHBOARD_API_KEY="+p.key)
	_, err := c.CreateConnection(ctx, switchboard.CreateConnectionRequest{ConnectorID: "tasks", UserID: "ann",
		Credential: switchboard.APIKeyCredential(providerKey, nil)})
	mustf(t, err == nil, "ann's account: %v", err)

	t.Run("FunctionCalling", func(t *testing.T) {
		out := run(t, s.root, env, filepath.Join(s.bin, "function-calling"),
			"-user", "ann", "-connector", "tasks", "-ask", "create a task", "-input", `{"title":"Water the plants"}`)
		t.Logf("function-calling printed:\n%s", out)
		for _, want := range []string{"model calls switchboard_search_actions", "model calls switchboard_execute", "answer: Done: ", "Water the plants"} {
			mustf(t, strings.Contains(out, want), "no %q in:\n%s", want, out)
		}
		out = run(t, s.root, env, filepath.Join(s.bin, "function-calling"), "-user", "bob", "-connector", "tasks", "-ask", "create a task")
		mustf(t, strings.Contains(out, "answer: Please connect your account first: "+s.base+"/connect/"), "a user without an account:\n%s", out)
	})

	t.Run("MCPClient", func(t *testing.T) {
		out := run(t, s.root, env, filepath.Join(s.bin, "mcp-client"), "-user", "ann", "-connector", "tasks", "-action", p.tools["list"], "-input", "{}")
		t.Logf("mcp-client printed:\n%s", out)
		for _, want := range []string{"server: switchboard", "tools: switchboard_search_actions", "switchboard_execute", "result (isError=false): ", "Water the plants"} {
			mustf(t, strings.Contains(out, want), "no %q in:\n%s", want, out)
		}
	})

	t.Run("WebhookReceiver", func(t *testing.T) {
		recv := startIn(t, filepath.Join(s.bin, "webhook-receiver"), env, "-addr", "127.0.0.1:0", "-register", "-max-events", "1")
		recv.waitLine(t, "registered webhook ")
		gh, err := c.CreateConnection(ctx, switchboard.CreateConnectionRequest{ConnectorID: "github", UserID: "ann", AuthConfig: "github_api_key",
			Credential: switchboard.APIKeyCredential("ghp_ann", nil)})
		mustf(t, err == nil, "github account: %v", err)
		trig, err := c.CreateTrigger(ctx, switchboard.TriggerRequest{ConnectionID: gh.ID, Event: "github_issue_opened", Secret: "gh-example",
			Config: map[string]any{"owner": "acme", "repo": "app"}})
		mustf(t, err == nil, "trigger: %v", err)
		mustf(t, postGitHubEvent(t, trig.URL, "gh-example", `{"action":"opened","issue":{"number":9,"title":"from the example"}}`) == 200, "ingress refused the event")
		line := recv.waitLine(t, "verified ")
		mustf(t, strings.HasPrefix(line, "verified trigger.fired github_issue_opened trigger="+trig.ID+" user=ann payload=") &&
			strings.Contains(line, "from the example"), "receiver printed %q", line)
		recv.waitLine(t, "removed webhook ")
		hooks, err := c.ListWebhooks(ctx)
		mustf(t, err == nil && len(hooks) == 0, "webhooks left: %+v %v", hooks, err)
	})

	t.Run("ConnectLinks", func(t *testing.T) {
		app := startIn(t, filepath.Join(s.bin, "connect-links"), env, "-addr", "127.0.0.1:0", "-connectors", "tasks")
		url := strings.TrimPrefix(app.waitLine(t, "listening on "), "listening on ")
		noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := noRedirect.Get(url + "/connect?user=carol")
		mustf(t, err == nil, "GET /connect: %v", err)
		resp.Body.Close()
		loc := resp.Header.Get("Location")
		mustf(t, resp.StatusCode == http.StatusSeeOther && strings.HasPrefix(loc, s.base+"/connect/"), "GET /connect: %d %q", resp.StatusCode, loc)
		page, err := http.Get(loc)
		mustf(t, err == nil && page.StatusCode == 200, "the hosted page: %v", err)
		page.Body.Close()
		resp, err = http.Get(url + "/accounts?user=ann")
		mustf(t, err == nil, "GET /accounts: %v", err)
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var accts []struct{ Connector, Name, Status string }
		mustf(t, json.Unmarshal(raw, &accts) == nil && len(accts) == 2 && accts[0].Connector == "tasks" && accts[0].Status == "active", "accounts: %s", raw)
	})
}
