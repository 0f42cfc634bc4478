package httpapi

import (
	"context"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// The webhooks screen: an owner adds a webhook (its secret shown once, in
// the answer), sends a test event, sees it in the delivery log, retries
// it and deletes the webhook; a member sees the log but cannot add or
// delete; another project's webhook is not found; forms need the token.
func TestDashboard_Webhooks(t *testing.T) {
	t.Parallel()
	f := setup(t)
	page := "/dashboard/p/" + f.project.ID + "/webhooks"
	dashOperator(t, f, "owner@example.com", store.RoleOwner)
	dashOperator(t, f, "member@example.com", store.RoleMember)

	c := newDashClient(t, f.h)
	if r := c.do("GET", page, nil); r.status != 303 {
		t.Fatalf("signed out: %d", r.status)
	}
	c.signIn("owner@example.com", dashPassword)
	if r := c.do("GET", page, nil); r.status != 200 || !strings.Contains(string(r.body), "No webhooks yet") {
		t.Fatalf("empty: %d %s", r.status, r.body)
	}
	tok := c.csrf(page)
	form := url.Values{"csrf": {tok}, "url": {"http://hooks.example.com/sb"}, "events": {"trigger.fired", "approval.requested"}, "description": {"ops"}}
	if r := c.do("POST", page, form); r.status != 422 || !strings.Contains(string(r.body), "must use https") ||
		!strings.Contains(string(r.body), `value="http://hooks.example.com/sb"`) {
		t.Fatalf("http URL: %d %s", r.status, r.body)
	}
	form.Set("url", "https://hooks.example.com/sb")
	form.Del("csrf")
	if r := c.do("POST", page, form); r.status != 403 {
		t.Fatalf("no CSRF token: %d", r.status)
	}
	form.Set("csrf", tok)
	r := c.do("POST", page, form)
	secret := regexp.MustCompile(`whsec_[A-Za-z0-9+/=]+`).Find(r.body)
	if r.status != 200 || secret == nil || len(r.header.Values("Location")) != 0 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	if strings.Contains(strings.Join(r.header.Values("Set-Cookie"), ";"), string(secret)) {
		t.Fatal("the secret went into a cookie")
	}
	hooks, _ := f.store.ListWebhooks(context.Background(), f.project.ID)
	if len(hooks) != 1 || len(hooks[0].Events) != 2 || hooks[0].Description != "ops" {
		t.Fatalf("stored: %+v", hooks)
	}
	id := hooks[0].ID
	if r := c.do("GET", page, nil); strings.Contains(string(r.body), string(secret)) || !strings.Contains(string(r.body), "https://hooks.example.com/sb") {
		t.Fatalf("list shows the secret again, or not the webhook: %s", r.body)
	}

	// Test event, delivery log, retry.
	detail := page + "/" + id
	if r := c.do("GET", detail, nil); !strings.Contains(string(r.body), "No deliveries yet") {
		t.Fatalf("empty log: %s", r.body)
	}
	if r := c.do("POST", detail+"/test", url.Values{"csrf": {"bad"}}); r.status != 403 {
		t.Fatalf("test event, wrong token: %d", r.status)
	}
	if r := c.do("POST", detail+"/test", url.Values{"csrf": {tok}}); r.status != 303 {
		t.Fatalf("test event: %d %s", r.status, r.body)
	}
	r = c.do("GET", detail, nil)
	did := regexp.MustCompile(`/deliveries/([0-9a-f-]+)/retry`).FindSubmatch(r.body)
	if did == nil || !strings.Contains(string(r.body), "webhook.test") || !strings.Contains(string(r.body), "pending") {
		t.Fatalf("delivery log: %s", r.body)
	}
	// The receiver failed it for good; the operator retries.
	ctx := context.Background()
	if _, err := f.store.ClaimDeliveries(ctx, "w", 10, time.Minute); err != nil {
		t.Fatal(err)
	}
	if err := f.store.FinishAttempt(ctx, string(did[1]), "w", store.DeliveryFailed, 500, "the receiver answered HTTP 500; no attempts left", f.clock.Now()); err != nil {
		t.Fatal(err)
	}
	if r := c.do("GET", detail, nil); !strings.Contains(string(r.body), "HTTP 500") || !strings.Contains(string(r.body), ">failed<") {
		t.Fatalf("failed delivery: %s", r.body)
	}
	if r := c.do("POST", detail+"/deliveries/"+string(did[1])+"/retry", url.Values{"csrf": {tok}}); r.status != 303 {
		t.Fatalf("retry: %d %s", r.status, r.body)
	}
	if r := c.do("GET", detail, nil); !strings.Contains(string(r.body), "queued again") || !strings.Contains(string(r.body), ">pending<") {
		t.Fatalf("after retry: %s", r.body)
	}
	if r := c.do("POST", detail+"/deliveries/nope/retry", url.Values{"csrf": {tok}}); r.status != 404 {
		t.Fatalf("unknown delivery: %d", r.status)
	}

	// A member reads but does not manage.
	mc := newDashClient(t, f.h)
	mc.signIn("member@example.com", dashPassword)
	mp := mc.do("GET", page, nil)
	if mp.status != 200 || strings.Contains(string(mp.body), `action="`+page+`"`) || strings.Contains(string(mp.body), "/delete") {
		t.Fatalf("member page: %d %s", mp.status, mp.body)
	}
	mtok := mc.csrf(page)
	if r := mc.do("POST", page, form); r.status != 403 {
		t.Fatalf("member adds: %d", r.status)
	}
	if r := mc.do("POST", detail+"/delete", url.Values{"csrf": {mtok}}); r.status != 403 || !strings.Contains(string(r.body), "only an owner") {
		t.Fatalf("member deletes: %d %s", r.status, r.body)
	}

	// Another project's webhook.
	other, _ := f.store.CreateProject(context.Background(), "other")
	if r := c.do("GET", "/dashboard/p/"+other.ID+"/webhooks", nil); r.status != 404 {
		t.Fatalf("another project: %d", r.status)
	}
	foreign, err := f.srv.webhooks.Create(context.Background(), other.ID, "https://hooks.example.com/other", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if r := c.do("GET", page+"/"+foreign.ID, nil); r.status != 404 {
		t.Fatalf("another project's webhook: %d", r.status)
	}
	if r := c.do("POST", page+"/"+foreign.ID+"/test", url.Values{"csrf": {tok}}); r.status != 404 {
		t.Fatalf("test event to another project's webhook: %d", r.status)
	}

	if r := c.do("POST", detail+"/delete", url.Values{"csrf": {tok}}); r.status != 303 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	if hooks, _ := f.store.ListWebhooks(context.Background(), f.project.ID); len(hooks) != 0 {
		t.Fatalf("still there: %+v", hooks)
	}
}
