package sdk

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/clients/go/switchboard"
)

// delivery is one request the in-process webhook receiver got.
type delivery struct {
	header http.Header
	body   []byte
}

// goScenario drives the Go client through the same surface the other
// SDKs' tests cover: catalog, connections, execute, sessions in both tool
// formats, typed errors, connect links, and a trigger.fired delivery
// verified with VerifyWebhook.
func goScenario(t *testing.T, s *stack, p project) {
	ctx := context.Background()
	c := switchboard.New(p.key, switchboard.WithBaseURL(s.base))

	conns, err := c.ListConnectors(ctx, switchboard.ListParams{Query: "fake task tracker"})
	found := false
	for _, cn := range conns.Data {
		found = found || cn.ID == "tasks" && cn.AuthMethods[0].Type == "api_key"
	}
	mustf(t, err == nil && found, "ListConnectors: %+v %v", conns, err)
	tools, err := c.ListTools(ctx, switchboard.ListParams{ConnectorID: "tasks"})
	mustf(t, err == nil && len(tools.Data) == 3 && len(tools.Data[0].InputSchema) > 0, "ListTools: %+v %v", tools, err)

	acct, err := c.CreateConnection(ctx, switchboard.CreateConnectionRequest{ConnectorID: "tasks", UserID: "gopher",
		Credential: switchboard.APIKeyCredential(providerKey, nil)})
	mustf(t, err == nil && acct.Status == "active" && acct.IsDefault, "CreateConnection: %+v %v", acct, err)
	_, err = c.CreateConnection(ctx, switchboard.CreateConnectionRequest{ConnectorID: "tasks", UserID: "gopher", Name: "default",
		Credential: switchboard.APIKeyCredential(providerKey, nil)})
	mustf(t, switchboard.IsCode(err, switchboard.CodeConflict), "a duplicate name: %v, want CONFLICT", err)

	res, err := c.ExecuteTool(ctx, switchboard.ExecuteRequest{ToolID: p.tools["create"], UserID: "gopher", Input: map[string]any{"title": "from Go"}})
	var task struct{ ID, Title string }
	mustf(t, err == nil && json.Unmarshal(res, &task) == nil && task.Title == "from Go", "ExecuteTool: %s %v", res, err)
	_, err = c.ExecuteTool(ctx, switchboard.ExecuteRequest{ToolID: p.tools["get"], UserID: "nobody", Input: map[string]any{"id": task.ID}})
	mustf(t, switchboard.IsCode(err, switchboard.CodeMissingConnection), "a user without an account: %v", err)

	sess, err := c.CreateSession(ctx, switchboard.SessionRequest{UserID: "gopher", Connectors: []string{"tasks"}})
	mustf(t, err == nil && sess.ActionCount == 3 && strings.HasSuffix(sess.MCPURL, "/v1/sessions/"+sess.ID+"/mcp"), "CreateSession: %+v %v", sess, err)
	plain, err := c.ListSessionTools(ctx, sess.ID, "")
	mustf(t, err == nil && len(plain.Tools) >= 2 && plain.Tools[0].Strict == nil, "ListSessionTools: %+v %v", plain, err)
	strict, err := c.ListSessionTools(ctx, sess.ID, switchboard.FormatOpenAIStrict)
	mustf(t, err == nil && len(strict.Tools) == len(plain.Tools), "openai-strict: %+v %v", strict, err)
	fns := switchboard.OpenAITools(strict.Tools)
	mustf(t, fns[0].Type == "function" && fns[0].Function.Strict != nil && *fns[0].Function.Strict, "OpenAITools: %+v", fns[0])
	out, err := c.CallSessionTool(ctx, sess.ID, "switchboard_execute", json.RawMessage(`{"action":"`+p.tools["get"]+`","input":{"id":"`+task.ID+`"}}`))
	mustf(t, err == nil && out.OK && strings.Contains(string(out.Result), "from Go"), "CallSessionTool: %+v %v", out, err)
	out, err = c.CallSessionTool(ctx, sess.ID, "switchboard_execute", json.RawMessage(`{"action":"github_get_issue","input":{}}`))
	mustf(t, err == nil && !out.OK && out.Error.Code != "", "an action out of scope: %+v %v", out, err)
	_, err = c.CallSessionTool(ctx, sess.ID, "no_such_tool", nil)
	mustf(t, switchboard.IsCode(err, switchboard.CodeToolNotFound), "an unknown tool: %v", err)
	_, err = c.GetSession(ctx, "00000000-0000-4000-8000-000000000000")
	mustf(t, switchboard.IsCode(err, switchboard.CodeSessionNotFound), "an unknown session: %v", err)
	_, err = switchboard.New("sb_"+strings.Repeat("0", 64), switchboard.WithBaseURL(s.base)).ListTriggers(ctx)
	mustf(t, switchboard.IsCode(err, switchboard.CodeUnauthorized), "a wrong key: %v", err)

	link, err := c.CreateConnectLink(ctx, switchboard.ConnectLinkRequest{UserID: "gopher", Connectors: []string{"tasks"}})
	mustf(t, err == nil && strings.HasPrefix(link.URL, s.base+"/connect/"), "CreateConnectLink: %+v %v", link, err)
	_, err = c.CreateConnectLink(ctx, switchboard.ConnectLinkRequest{UserID: "gopher", ExpiresInMinutes: 1})
	var apiErr *switchboard.Error
	mustf(t, errors.As(err, &apiErr) && apiErr.Code == switchboard.CodeValidationError && len(apiErr.Issues) > 0, "a too short link: %#v", err)

	// A trigger.fired delivery, verified.
	got := make(chan delivery, 4)
	recv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- delivery{r.Header.Clone(), b}
	}))
	defer recv.Close()
	hook, err := c.CreateWebhook(ctx, recv.URL+"/hook", "go scenario")
	mustf(t, err == nil && strings.HasPrefix(hook.Secret, "whsec_"), "CreateWebhook: %+v %v", hook, err)
	gh, err := c.CreateConnection(ctx, switchboard.CreateConnectionRequest{ConnectorID: "github", UserID: "gopher", AuthConfig: "github_api_key",
		Credential: switchboard.APIKeyCredential("ghp_gopher", nil)})
	mustf(t, err == nil, "github account: %v", err)
	trig, err := c.CreateTrigger(ctx, switchboard.TriggerRequest{ConnectionID: gh.ID, Event: "github_issue_opened", Secret: "gh-secret",
		Config: map[string]any{"owner": "acme", "repo": "app"}})
	mustf(t, err == nil && trig.URL != "", "CreateTrigger: %+v %v", trig, err)
	if st := postGitHubEvent(t, trig.URL, "gh-secret", `{"action":"opened","issue":{"number":7,"title":"from Go"}}`); st != 200 {
		t.Fatalf("ingress answered %d", st)
	}
	select {
	case d := <-got:
		ev, err := switchboard.VerifyWebhook(hook.Secret, d.header, d.body, time.Now(), 0)
		mustf(t, err == nil && ev.Type == "trigger.fired" && ev.Data.TriggerID == trig.ID && *ev.Data.UserID == "gopher", "VerifyWebhook: %+v %v", ev, err)
		_, err = switchboard.VerifyWebhook(hook.Secret, d.header, bytes.Replace(d.body, []byte("from Go"), []byte("from Gx"), 1), time.Now(), 0)
		mustf(t, errors.Is(err, switchboard.ErrWebhookSignature), "a changed body verified: %v", err)
	case <-time.After(30 * time.Second):
		t.Fatal("no trigger.fired delivery in 30s")
	}
	list, err := c.ListTriggers(ctx)
	mustf(t, err == nil && len(list) == 1 && list[0].FireCount == 1, "ListTriggers: %+v %v", list, err)
	_, err = c.DeleteTrigger(ctx, trig.ID)
	mustf(t, err == nil, "DeleteTrigger: %v", err)
	_, err = c.DeleteWebhook(ctx, hook.ID)
	mustf(t, err == nil, "DeleteWebhook: %v", err)
	gone, err := c.DeleteConnection(ctx, acct.ID)
	mustf(t, err == nil && gone.Erased, "DeleteConnection: %+v %v", gone, err)
}

// postGitHubEvent delivers a GitHub "issue opened" event signed with
// secret to a trigger's ingress URL and returns the status.
func postGitHubEvent(t *testing.T, url, secret, body string) int {
	t.Helper()
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(body))
	var id [8]byte
	_, _ = rand.Read(id[:])
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-GitHub-Event", "issues")
	req.Header.Set("X-GitHub-Delivery", hex.EncodeToString(id[:]))
	req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}
