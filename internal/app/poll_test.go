package app

import (
	"context"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
	"time"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
	"github.com/switchboard-gw/switchboard/internal/trigger"
	"github.com/switchboard-gw/switchboard/internal/webhook"
)

const pollConnector = `
id: feedly
name: Feedly
description: A provider without webhooks, for the application's poll trigger test.
category: productivity
api: {baseUrl: "https://{host}/api"}
connectionFields: [{name: host, label: Host}]
authMethods: [{id: api_key, type: api_key, name: API key, apiKey: {in: header, name: X-Api-Key}}]
tools:
  - id: feedly_list_posts
    name: List posts
    description: Lists the posts of the feed, for the application's poll trigger test.
    effect: read
    inputSchema: {type: object, properties: {}, additionalProperties: false}
    request: {method: GET, path: /posts}
triggers:
  - id: feedly_post_published
    name: Post published
    description: Fires for each post published in the feed.
    kind: poll
    poll:
      method: GET
      path: /posts
      query: {since: "{cursor}"}
      items: posts
      id: id
      cursor: {type: timestamp, field: at}
      interval: 1m
`

// TestRun_PollTrigger_FiresThroughTheRunningApplication: the application's
// poller, started by Run, calls the provider with the account's key and
// queues trigger.fired for a new item, once.
func TestRun_PollTrigger_FiresThroughTheRunningApplication(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	now := time.Date(2026, 5, 6, 7, 8, 9, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	var posts []map[string]any
	provider := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("X-Api-Key") != "feed-key" {
			w.WriteHeader(401)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]any{"posts": posts})
	}))
	t.Cleanup(provider.Close)
	pool := x509.NewCertPool()
	pool.AddCert(provider.Certificate())
	cat := fstest.MapFS{"connectors/feedly.yaml": {Data: []byte(pollConnector)}, "logos/feedly.svg": {Data: []byte("<svg/>")}}
	a, err := New(context.Background(), testConfig(t), Options{CatalogFS: cat, AllowLoopback: true, RootCAs: pool, Now: clock})
	if err != nil {
		t.Fatal(err)
	}
	a.Poller.Tick = 20 * time.Millisecond
	ctx := context.Background()
	p, err := a.Store.CreateProject(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	hook, err := a.Store.CreateWebhook(ctx, store.Webhook{ID: store.NewID(), ProjectID: p.ID, URL: "https://hooks.invalid/x",
		Events: []string{webhook.EventTriggerFired}, Secret: []byte("sealed")})
	if err != nil {
		t.Fatal(err)
	}
	tn := tenant.Tenant{ProjectID: p.ID, Catalog: a.Catalog}
	raw, _ := json.Marshal(map[string]any{"type": "api_key", "apiKey": "feed-key", "host": strings.TrimPrefix(provider.URL, "https://")})
	conn, err := a.Accounts.Create(ctx, tn, account.CreateRequest{ConnectorID: "feedly", UserID: "u1", Credential: raw})
	if err != nil {
		t.Fatal(err)
	}
	tr, err := a.Triggers.Create(ctx, tn, trigger.CreateRequest{ConnectionID: conn.ID, Event: "feedly_post_published"})
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	posts = []map[string]any{{"id": "old", "at": now.Add(-time.Hour).Format(time.RFC3339)}}
	mu.Unlock()

	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- a.Run(runCtx) }()
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(10 * time.Second); !ok(); time.Sleep(20 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	polled := func() bool {
		st, err := a.Store.GetPollState(ctx, tr.ID)
		return err == nil && st.LastPolledAt != nil
	}
	waitFor("the first poll", polled)
	mu.Lock()
	posts = append(posts, map[string]any{"id": "new", "at": now.Add(time.Second).Format(time.RFC3339)})
	now = now.Add(time.Minute)
	mu.Unlock()
	fired := func() []string {
		ds, _ := a.Store.ListDeliveries(ctx, p.ID, hook.ID, 100)
		var ids []string
		for _, d := range ds {
			var ev webhook.Event
			_ = json.Unmarshal(d.Payload, &ev)
			var item map[string]any
			_ = json.Unmarshal(ev.Data.Payload, &item)
			ids = append(ids, fmt.Sprint(ev.Data.Event, "/", item["id"]))
		}
		return ids
	}
	waitFor("the new post's event", func() bool { return len(fired()) > 0 })
	// Another minute: the same answer fires nothing more.
	mu.Lock()
	now = now.Add(time.Minute)
	mu.Unlock()
	waitFor("the third poll", func() bool {
		st, err := a.Store.GetPollState(ctx, tr.ID)
		return err == nil && st.LastPolledAt != nil && st.LastPolledAt.Equal(clock())
	})
	got := fired()
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	if len(got) != 1 || got[0] != "feedly_post_published/new" {
		t.Fatalf("fired %v", got)
	}
}
