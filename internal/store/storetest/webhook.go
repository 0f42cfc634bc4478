package storetest

import (
	"context"
	"errors"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

func webhookTests() map[string]func(*testing.T, Opener) {
	return map[string]func(*testing.T, Opener){
		"Webhooks_CreateGetListDisableDelete":    testWebhookLifecycle,
		"Deliveries_ClaimFinishRetryList":        testDeliveryLifecycle,
		"Deliveries_ParallelClaimersAreDisjoint": testDeliveryParallelClaims,
		"Deliveries_NameWhatCausedThem":          testDeliveryCauses,
	}
}

// hookFixture is a project with one account and one trigger on it, the
// parents every delivery needs.
type hookFixture struct {
	*connFixture
	trigger store.Trigger
}

func newHookFixture(t *testing.T, open Opener, now func() time.Time) *hookFixture {
	t.Helper()
	f := newConnFixture(t, open, now)
	c := f.create(t, "u1", "", false)
	tr, err := f.s.CreateTrigger(context.Background(), store.Trigger{ID: store.NewID(), ProjectID: f.project.ID, ConnectionID: c.ID,
		ConnectorID: "github", Event: "issue_opened", TokenHash: store.NewID()})
	if err != nil {
		t.Fatal(err)
	}
	return &hookFixture{connFixture: f, trigger: tr}
}

func (f *hookFixture) webhook(t *testing.T, events ...string) store.Webhook {
	t.Helper()
	w, err := f.s.CreateWebhook(context.Background(), store.Webhook{ID: store.NewID(), ProjectID: f.project.ID,
		URL: "https://hooks.example.com/" + store.NewID(), Events: events, Secret: []byte("sealed")})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// fire enqueues one delivery per subscribed webhook.
func (f *hookFixture) fire(t *testing.T) []string {
	t.Helper()
	ids, err := f.s.FireTrigger(context.Background(), f.trigger, "", "trigger.fired", store.EventCause{}, func() ([]byte, error) { return []byte(`{"n":1}`), nil })
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

func testWebhookLifecycle(t *testing.T, open Opener) {
	clock := NewClock()
	f := newHookFixture(t, open, clock.Now)
	ctx := context.Background()
	a := f.webhook(t, "trigger.fired")
	clock.Advance(time.Second)
	b, err := f.s.CreateWebhook(ctx, store.Webhook{ID: store.NewID(), ProjectID: f.project.ID, URL: "https://b.example.com/h",
		Events: []string{"trigger.fired", "other"}, Description: "second", Secret: []byte("sealed-b")})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := f.s.CreateProject(ctx, "other")
	if _, err := f.s.CreateWebhook(ctx, store.Webhook{ID: store.NewID(), ProjectID: other.ID, URL: "https://c.example.com/h",
		Events: []string{"trigger.fired"}, Secret: []byte("sealed-c")}); err != nil {
		t.Fatal(err)
	}
	got, err := f.s.GetWebhook(ctx, f.project.ID, b.ID)
	if err != nil || got.URL != b.URL || got.Description != "second" || !slices.Equal(got.Events, b.Events) ||
		string(got.Secret) != "sealed-b" || got.DisabledAt != nil || !got.CreatedAt.Equal(clock.Now()) {
		t.Fatalf("get: %+v %v", got, err)
	}
	if _, err := f.s.GetWebhook(ctx, other.ID, b.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another project's webhook: %v", err)
	}
	list, err := f.s.ListWebhooks(ctx, f.project.ID)
	if err != nil || len(list) != 2 || list[0].ID != a.ID || list[1].ID != b.ID {
		t.Fatalf("list: %+v %v", list, err)
	}
	if empty, err := f.s.ListWebhooks(ctx, store.NewID()); err != nil || empty == nil || len(empty) != 0 {
		t.Fatalf("list of no webhooks: %#v %v", empty, err)
	}

	// A disabled webhook keeps its first disable time and gets no deliveries.
	if err := f.s.DisableWebhook(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	disabledAt := clock.Now()
	clock.Advance(time.Minute)
	if err := f.s.DisableWebhook(ctx, a.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := f.s.GetWebhook(ctx, f.project.ID, a.ID); got.DisabledAt == nil || !got.DisabledAt.Equal(disabledAt) {
		t.Fatalf("disabled at %v, want %v", got.DisabledAt, disabledAt)
	}
	if ids := f.fire(t); len(ids) != 1 {
		t.Fatalf("fired into %d webhooks, want only the enabled one", len(ids))
	}
	if d, _ := f.s.ListDeliveries(ctx, f.project.ID, b.ID, 10); len(d) != 1 {
		t.Fatalf("enabled webhook has %d deliveries", len(d))
	}

	// Deleting a webhook deletes its deliveries.
	if err := f.s.DeleteWebhook(ctx, other.ID, b.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("delete from another project: %v", err)
	}
	if err := f.s.DeleteWebhook(ctx, f.project.ID, b.ID); err != nil {
		t.Fatal(err)
	}
	if err := f.s.DeleteWebhook(ctx, f.project.ID, b.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("delete twice: %v", err)
	}
	if n, err := f.s.CountDeliveries(ctx, store.DeliveryPending); err != nil || n != 0 {
		t.Fatalf("%d pending deliveries after the delete, err %v", n, err)
	}
}

func testDeliveryLifecycle(t *testing.T, open Opener) {
	clock := NewClock()
	f := newHookFixture(t, open, clock.Now)
	ctx := context.Background()
	w := f.webhook(t, "trigger.fired")
	first := f.fire(t)
	clock.Advance(time.Second)
	second := f.fire(t)

	// The oldest due delivery is claimed first; the order within one claim
	// is not promised (PostgreSQL's RETURNING follows no ORDER BY).
	claimed, err := f.s.ClaimDeliveries(ctx, "r1", 1, time.Minute)
	if err != nil || len(claimed) != 1 {
		t.Fatalf("claim: %d, %v", len(claimed), err)
	}
	rest, err := f.s.ClaimDeliveries(ctx, "r1", 10, time.Minute)
	if err != nil || len(rest) != 1 || rest[0].ID != second[0] {
		t.Fatalf("claim the rest: %+v, %v", rest, err)
	}
	claimed = append(claimed, rest...)
	d := claimed[0]
	if d.ID != first[0] || d.WebhookID != w.ID || d.EventType != "trigger.fired" || string(d.Payload) != `{"n":1}` ||
		d.Status != store.DeliveryPending || d.Attempts != 0 || d.LastStatus != nil {
		t.Fatalf("claimed: %+v", d)
	}
	if again, _ := f.s.ClaimDeliveries(ctx, "r2", 10, time.Minute); len(again) != 0 {
		t.Fatalf("a leased delivery was claimed again: %d", len(again))
	}

	// Only the owner finishes an attempt.
	if err := f.s.FinishAttempt(ctx, d.ID, "r2", store.DeliveryDelivered, 200, "", clock.Now()); err != nil {
		t.Fatal(err)
	}
	list, _ := f.s.ListDeliveries(ctx, f.project.ID, w.ID, 10)
	if len(list) != 2 || list[0].ID != second[0] || list[1].ID != first[0] || list[1].Attempts != 0 {
		t.Fatalf("after another owner's finish: %+v", list)
	}
	if err := f.s.FinishAttempt(ctx, d.ID, "r1", store.DeliveryDelivered, 200, "", clock.Now()); err != nil {
		t.Fatal(err)
	}
	// A failed attempt with a retry a minute later.
	if err := f.s.FinishAttempt(ctx, claimed[1].ID, "r1", store.DeliveryPending, 503, "upstream answered 503", clock.Now().Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	list, _ = f.s.ListDeliveries(ctx, f.project.ID, w.ID, 10)
	done, retry := list[1], list[0]
	if done.Status != store.DeliveryDelivered || done.Attempts != 1 || done.LastStatus == nil || *done.LastStatus != 200 ||
		done.LastAttemptAt == nil || !done.LastAttemptAt.Equal(clock.Now()) {
		t.Fatalf("delivered: %+v", done)
	}
	if retry.Status != store.DeliveryPending || retry.Attempts != 1 || *retry.LastStatus != 503 || retry.LastError != "upstream answered 503" ||
		!retry.NextAttemptAt.Equal(clock.Now().Add(time.Minute)) {
		t.Fatalf("retry: %+v", retry)
	}
	if n, _ := f.s.CountDeliveries(ctx, store.DeliveryDelivered); n != 1 {
		t.Fatalf("%d delivered", n)
	}
	if one, _ := f.s.ListDeliveries(ctx, f.project.ID, w.ID, 1); len(one) != 1 || one[0].ID != second[0] {
		t.Fatalf("limit 1: %+v", one)
	}

	// Not due yet, then due.
	if got, _ := f.s.ClaimDeliveries(ctx, "r1", 10, time.Minute); len(got) != 0 {
		t.Fatalf("claimed %d deliveries before they were due", len(got))
	}
	clock.Advance(time.Minute)
	if got, _ := f.s.ClaimDeliveries(ctx, "r1", 10, time.Minute); len(got) != 1 || got[0].ID != second[0] {
		t.Fatalf("due retry: %+v", got)
	}
	// A lease that ran out lets another owner claim it.
	clock.Advance(time.Minute + time.Millisecond)
	if got, _ := f.s.ClaimDeliveries(ctx, "r2", 10, time.Minute); len(got) != 1 || got[0].ID != second[0] {
		t.Fatalf("expired lease: %+v", got)
	}

	// Retry queues a finished delivery again, now.
	if err := f.s.RetryDelivery(ctx, f.project.ID, w.ID, first[0]); err != nil {
		t.Fatal(err)
	}
	if err := f.s.RetryDelivery(ctx, f.project.ID, w.ID, "no-such-delivery"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("retry unknown: %v", err)
	}
	if got, _ := f.s.ClaimDeliveries(ctx, "r3", 10, time.Minute); len(got) != 1 || got[0].ID != first[0] || got[0].Status != store.DeliveryPending {
		t.Fatalf("claim after retry: %+v", got)
	}
}

// testDeliveryParallelClaims: replicas claiming at once never claim the
// same delivery (SKIP LOCKED on PostgreSQL, the single writer on SQLite),
// and together they claim every due delivery.
func testDeliveryParallelClaims(t *testing.T, open Opener) {
	f := newHookFixture(t, open, nil)
	ctx := context.Background()
	for range 3 {
		f.webhook(t, "trigger.fired")
	}
	want := map[string]bool{}
	for range 40 {
		for _, id := range f.fire(t) {
			want[id] = true
		}
	}
	const claimers = 6
	got := make([][]string, claimers)
	var wg sync.WaitGroup
	for i := range claimers {
		wg.Go(func() {
			owner := "replica-" + string(rune('a'+i))
			for {
				ds, err := f.s.ClaimDeliveries(ctx, owner, 7, time.Hour)
				if err != nil {
					t.Errorf("%s: %v", owner, err)
					return
				}
				if len(ds) == 0 {
					return
				}
				for _, d := range ds {
					got[i] = append(got[i], d.ID)
				}
			}
		})
	}
	wg.Wait()
	seen := map[string]int{}
	for i, ids := range got {
		for _, id := range ids {
			if j, dup := seen[id]; dup {
				t.Fatalf("delivery %s claimed by claimers %d and %d", id, j, i)
			}
			seen[id] = i
		}
	}
	if len(seen) != len(want) {
		t.Fatalf("claimed %d deliveries, %d were due", len(seen), len(want))
	}
	for id := range want {
		if _, ok := seen[id]; !ok {
			t.Fatalf("delivery %s was never claimed", id)
		}
	}
}

// testDeliveryCauses: an approval's deliveries name the held call (log
// record, request), a firing's name the trigger and the event; the cause
// survives a claim and an attempt, and DeliveriesCausedBy finds a
// record's deliveries within its project only.
func testDeliveryCauses(t *testing.T, open Opener) {
	f := newHookFixture(t, open, nil)
	ctx := context.Background()
	w := f.webhook(t, "trigger.fired", "approval.requested")
	logID := store.NewID()
	held := store.EventCause{LogID: logID, RequestID: "req-held"}
	approvalIDs, err := f.s.CreateApproval(ctx, newApproval(time.Now(), f.project.ID, "u", "t", "h", time.Hour), "approval.requested", held, noPayload)
	if err != nil || len(approvalIDs) != 1 {
		t.Fatalf("approval: %v %v", approvalIDs, err)
	}
	// FireTrigger sets the trigger itself, whatever the caller passed.
	fired := store.EventCause{TriggerID: "not-this-one", EventID: "evt_1", ProviderEventID: "gh-delivery-1"}
	firedIDs, err := f.s.FireTrigger(ctx, f.trigger, "", "trigger.fired", fired, func() ([]byte, error) { return []byte(`{"n":1}`), nil })
	if err != nil || len(firedIDs) != 1 {
		t.Fatalf("fire: %v %v", firedIDs, err)
	}
	// A firing without a provider id leaves that field empty.
	if _, err := f.s.FireTrigger(ctx, f.trigger, "", "trigger.fired", store.EventCause{EventID: "evt_2"}, func() ([]byte, error) { return []byte(`{"n":2}`), nil }); err != nil {
		t.Fatal(err)
	}
	claimed, err := f.s.ClaimDeliveries(ctx, "owner", 10, time.Minute)
	if err != nil || len(claimed) != 3 {
		t.Fatalf("claim: %d %v", len(claimed), err)
	}
	for _, d := range claimed {
		if err := f.s.FinishAttempt(ctx, d.ID, "owner", store.DeliveryDelivered, 200, "", time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	list, err := f.s.ListDeliveries(ctx, f.project.ID, w.ID, 10)
	if err != nil || len(list) != 3 {
		t.Fatalf("list: %d %v", len(list), err)
	}
	byID := map[string]store.Delivery{}
	for _, d := range list {
		byID[d.ID] = d
	}
	if got := byID[approvalIDs[0]].Cause; got != held {
		t.Errorf("approval delivery cause %+v, want %+v", got, held)
	}
	want := store.EventCause{TriggerID: f.trigger.ID, EventID: "evt_1", ProviderEventID: "gh-delivery-1"}
	if got := byID[firedIDs[0]].Cause; got != want {
		t.Errorf("trigger delivery cause %+v, want %+v", got, want)
	}
	for _, d := range claimed {
		if d.ID == approvalIDs[0] && d.Cause != held {
			t.Errorf("claimed approval delivery cause %+v", d.Cause)
		}
	}

	caused, err := f.s.DeliveriesCausedBy(ctx, f.project.ID, []string{logID, store.NewID()})
	if err != nil || len(caused) != 1 || len(caused[logID]) != 1 || caused[logID][0].ID != approvalIDs[0] || caused[logID][0].WebhookID != w.ID {
		t.Fatalf("caused by the record: %+v %v", caused, err)
	}
	if caused, err := f.s.DeliveriesCausedBy(ctx, "another-project", []string{logID}); err != nil || len(caused) != 0 {
		t.Fatalf("another project sees %+v %v", caused, err)
	}
	if caused, err := f.s.DeliveriesCausedBy(ctx, f.project.ID, nil); err != nil || len(caused) != 0 {
		t.Fatalf("no ids: %+v %v", caused, err)
	}
}
