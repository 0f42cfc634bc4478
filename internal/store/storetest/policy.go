package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

func policyTests() map[string]func(*testing.T, Opener) {
	return map[string]func(*testing.T, Opener){
		"Policy_CRUDMovesVersion":              testPolicyCRUD,
		"Policy_VersionReadWithKey":            testPolicyVersionWithKey,
		"Approval_DecideOnceUseOnce":           testApprovalDecideUse,
		"Approval_ExpiredCannotBeDecided":      testApprovalExpiry,
		"Approval_ConcurrentUseOnlyOneWins":    testApprovalConcurrentUse,
		"Approval_ListFiltersAndPages":         testApprovalList,
		"Approval_EventEnqueuedForSubscribers": testApprovalEvent,
		"Approval_CleanupAfter30Days":          testApprovalCleanup,
	}
}

func policyVersion(t *testing.T, s *store.Store, projectID string) int64 {
	t.Helper()
	kp, err := s.ProjectVersions(context.Background(), projectID)
	if err != nil {
		t.Fatal(err)
	}
	return kp.PoliciesVersion
}

// testPolicyCRUD: every change to a rule or the default moves the
// project's policies version, and LoadPolicies reads rules by priority.
func testPolicyCRUD(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	other, _ := s.CreateProject(ctx, "other")
	v0 := policyVersion(t, s, p.ID)
	late, err := s.CreatePolicy(ctx, store.PolicyRule{ProjectID: p.ID, Priority: 20, Spec: []byte(`{"decision":"deny"}`)})
	if err != nil {
		t.Fatal(err)
	}
	early, err := s.CreatePolicy(ctx, store.PolicyRule{ProjectID: p.ID, Endpoint: "ep", Priority: 10, Spec: []byte(`{"decision":"ask"}`)})
	if err != nil {
		t.Fatal(err)
	}
	v1 := policyVersion(t, s, p.ID)
	if v1 != v0+2 {
		t.Fatalf("version %d after two creates from %d", v1, v0)
	}
	pr, err := s.LoadPolicies(ctx, p.ID)
	if err != nil || pr.Version != v1 || pr.Default != "allow" || len(pr.Rules) != 2 || pr.Rules[0].ID != early.ID || pr.Rules[1].ID != late.ID {
		t.Fatalf("load: %+v %v", pr, err)
	}
	if pr.Rules[0].Endpoint != "ep" || string(pr.Rules[0].Spec) != `{"decision":"ask"}` {
		t.Fatalf("rule read back: %+v", pr.Rules[0])
	}
	if got, _ := s.LoadPolicies(ctx, other.ID); len(got.Rules) != 0 {
		t.Fatalf("another project's rules: %+v", got)
	}
	late.Priority, late.Spec = 5, []byte(`{"decision":"allow"}`)
	if err := s.UpdatePolicy(ctx, late); err != nil {
		t.Fatal(err)
	}
	if err := s.SetPolicyDefault(ctx, p.ID, "deny"); err != nil {
		t.Fatal(err)
	}
	pr, _ = s.LoadPolicies(ctx, p.ID)
	if pr.Default != "deny" || pr.Rules[0].ID != late.ID || pr.Version != v1+2 {
		t.Fatalf("after update and default: %+v", pr)
	}
	if err := s.DeletePolicy(ctx, other.ID, late.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("delete through another project: %v", err)
	}
	if err := s.DeletePolicy(ctx, p.ID, late.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetPolicy(ctx, p.ID, late.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleted rule: %v", err)
	}
	if policyVersion(t, s, p.ID) != v1+3 {
		t.Fatal("delete did not move the version")
	}
	if _, err := s.CreatePolicy(ctx, store.PolicyRule{ProjectID: "nope", Priority: 1, Spec: []byte(`{}`)}); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("rule of an unknown project: %v", err)
	}
}

// testPolicyVersionWithKey: the API key lookup reads the policies
// version, so a cached tenant sees a rule change on its next request.
func testPolicyVersionWithKey(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	_, nk := newKey(t, p.ID)
	if _, err := s.CreateAPIKey(ctx, nk); err != nil {
		t.Fatal(err)
	}
	before, err := s.ProjectForKey(ctx, nk.Hash)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreatePolicy(ctx, store.PolicyRule{ProjectID: p.ID, Priority: 1, Spec: []byte(`{"decision":"deny"}`)}); err != nil {
		t.Fatal(err)
	}
	after, err := s.ProjectForKey(ctx, nk.Hash)
	if err != nil || after.PoliciesVersion <= before.PoliciesVersion {
		t.Fatalf("policies version %d then %d (%v)", before.PoliciesVersion, after.PoliciesVersion, err)
	}
}

func newApproval(at time.Time, projectID, user, tool, hash string, ttl time.Duration) store.Approval {
	now := time.UnixMilli(at.UnixMilli()).UTC()
	return store.Approval{ID: store.NewID(), ProjectID: projectID, ToolKey: tool, ConnectorID: "github", UserID: user,
		Input: []byte(`{"a":1}`), InputHash: hash, RuleID: "r1", Status: store.ApprovalPending, LinkHash: "link-" + store.NewID(),
		CreatedAt: now, ExpiresAt: now.Add(ttl)}
}

func noPayload() ([]byte, error) { return []byte(`{}`), nil }

// testApprovalDecideUse: a pending approval is decided once; an approved
// one is spent once; the link is forgotten with the decision.
func testApprovalDecideUse(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	other, _ := s.CreateProject(ctx, "other")
	a := newApproval(time.Now(), p.ID, "u1", "github_create_issue", "h1", time.Hour)
	if _, err := s.CreateApproval(ctx, a, "approval.requested", store.EventCause{}, noPayload); err != nil {
		t.Fatal(err)
	}
	if got, err := s.ApprovalByLink(ctx, a.LinkHash); err != nil || got.ID != a.ID {
		t.Fatalf("by link: %+v %v", got, err)
	}
	if got, err := s.LatestApproval(ctx, p.ID, "u1", "github_create_issue", "h1"); err != nil || got.ID != a.ID || got.Status != store.ApprovalPending {
		t.Fatalf("latest: %+v %v", got, err)
	}
	if _, err := s.LatestApproval(ctx, p.ID, "u2", "github_create_issue", "h1"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another user's call matched: %v", err)
	}
	if ok, err := s.UseApproval(ctx, p.ID, a.ID); ok || err != nil {
		t.Fatalf("a pending approval was spent: %v %v", ok, err)
	}
	if _, err := s.DecideApproval(ctx, other.ID, a.ID, store.ApprovalApproved, "x"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("decided through another project: %v", err)
	}
	got, err := s.DecideApproval(ctx, p.ID, a.ID, store.ApprovalApproved, "alice")
	if err != nil || got.Status != store.ApprovalApproved || got.DecidedBy != "alice" || got.DecidedAt == nil || got.LinkHash != "" {
		t.Fatalf("approve: %+v %v", got, err)
	}
	if _, err := s.DecideApproval(ctx, p.ID, a.ID, store.ApprovalDenied, "bob"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("second decision: %v", err)
	}
	if _, err := s.ApprovalByLink(ctx, a.LinkHash); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("the link outlived the decision: %v", err)
	}
	if ok, err := s.UseApproval(ctx, p.ID, a.ID); !ok || err != nil {
		t.Fatalf("use: %v %v", ok, err)
	}
	if ok, _ := s.UseApproval(ctx, p.ID, a.ID); ok {
		t.Fatal("an approval was spent twice")
	}
	if got, _ := s.GetApproval(ctx, p.ID, a.ID); got.Status != store.ApprovalUsed || got.UsedAt == nil {
		t.Fatalf("after use: %+v", got)
	}
}

// testApprovalExpiry: past its expiry an approval can be neither decided
// nor spent, and reads as expired.
func testApprovalExpiry(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, clock.Now)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	a := newApproval(clock.Now(), p.ID, "u1", "t", "h", time.Minute)
	b := newApproval(clock.Now(), p.ID, "u1", "t", "h2", time.Minute)
	for _, x := range []store.Approval{a, b} {
		if _, err := s.CreateApproval(ctx, x, "approval.requested", store.EventCause{}, noPayload); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.DecideApproval(ctx, p.ID, b.ID, store.ApprovalApproved, "x"); err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Minute)
	if _, err := s.DecideApproval(ctx, p.ID, a.ID, store.ApprovalApproved, "x"); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("decided after expiry: %v", err)
	}
	if ok, _ := s.UseApproval(ctx, p.ID, b.ID); ok {
		t.Fatal("spent after expiry")
	}
	got, _ := s.GetApproval(ctx, p.ID, a.ID)
	if got.StatusAt(clock.Now()) != store.ApprovalExpired {
		t.Fatalf("status %s", got.StatusAt(clock.Now()))
	}
}

// testApprovalConcurrentUse: of many calls racing to spend one approval,
// exactly one runs.
func testApprovalConcurrentUse(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	a := newApproval(time.Now(), p.ID, "u1", "t", "h", time.Hour)
	if _, err := s.CreateApproval(ctx, a, "approval.requested", store.EventCause{}, noPayload); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DecideApproval(ctx, p.ID, a.ID, store.ApprovalApproved, "x"); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	wins := 0
	for range 8 {
		wg.Go(func() {
			ok, err := s.UseApproval(ctx, p.ID, a.ID)
			if err != nil {
				t.Error(err)
			}
			if ok {
				mu.Lock()
				wins++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("%d calls spent one approval", wins)
	}
}

// testApprovalList: newest first, filtered by status, user and tool, in
// pages that continue after a given approval.
func testApprovalList(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, clock.Now)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	var ids []string
	for i := range 5 {
		user := "u1"
		if i == 4 {
			user = "u2"
		}
		a := newApproval(clock.Now(), p.ID, user, "t", "h", time.Hour)
		if _, err := s.CreateApproval(ctx, a, "approval.requested", store.EventCause{}, noPayload); err != nil {
			t.Fatal(err)
		}
		ids = append(ids, a.ID)
		clock.Advance(time.Second)
	}
	if _, err := s.DecideApproval(ctx, p.ID, ids[0], store.ApprovalDenied, "x"); err != nil {
		t.Fatal(err)
	}
	page, err := s.ListApprovals(ctx, p.ID, store.ApprovalFilter{UserID: "u1", Limit: 2})
	if err != nil || len(page) != 2 || page[0].ID != ids[3] || page[1].ID != ids[2] {
		t.Fatalf("first page: %v %v", page, err)
	}
	page, _ = s.ListApprovals(ctx, p.ID, store.ApprovalFilter{UserID: "u1", Limit: 2, After: page[1].ID})
	if len(page) != 2 || page[0].ID != ids[1] || page[1].ID != ids[0] {
		t.Fatalf("second page: %v", page)
	}
	if got, _ := s.ListApprovals(ctx, p.ID, store.ApprovalFilter{Status: store.ApprovalDenied}); len(got) != 1 || got[0].ID != ids[0] {
		t.Fatalf("denied: %v", got)
	}
	if got, _ := s.ListApprovals(ctx, p.ID, store.ApprovalFilter{Status: store.ApprovalPending}); len(got) != 4 {
		t.Fatalf("pending: %d", len(got))
	}
	clock.Advance(2 * time.Hour)
	if got, _ := s.ListApprovals(ctx, p.ID, store.ApprovalFilter{Status: store.ApprovalExpired}); len(got) != 4 {
		t.Fatalf("expired: %d", len(got))
	}
	if got, _ := s.ListApprovals(ctx, p.ID, store.ApprovalFilter{Status: store.ApprovalPending}); len(got) != 0 {
		t.Fatalf("pending after expiry: %d", len(got))
	}
	if got, _ := s.ListApprovals(ctx, p.ID, store.ApprovalFilter{ToolID: "other"}); len(got) != 0 {
		t.Fatalf("tool filter: %d", len(got))
	}
}

// testApprovalEvent: creating an approval enqueues its event for the
// project's webhooks subscribed to approval.requested, and only those.
func testApprovalEvent(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	sub, err := s.CreateWebhook(ctx, store.Webhook{ID: store.NewID(), ProjectID: p.ID, URL: "https://hooks.example.com/a",
		Events: []string{"trigger.fired", "approval.requested"}, Secret: []byte("sealed")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateWebhook(ctx, store.Webhook{ID: store.NewID(), ProjectID: p.ID, URL: "https://hooks.example.com/b",
		Events: []string{"trigger.fired"}, Secret: []byte("sealed")}); err != nil {
		t.Fatal(err)
	}
	ids, err := s.CreateApproval(ctx, newApproval(time.Now(), p.ID, "u", "t", "h", time.Hour), "approval.requested", store.EventCause{},
		func() ([]byte, error) { return []byte(`{"type":"approval.requested"}`), nil })
	if err != nil || len(ids) != 1 {
		t.Fatalf("deliveries %v %v", ids, err)
	}
	list, err := s.ListDeliveries(ctx, p.ID, sub.ID, 10)
	if err != nil || len(list) != 1 || list[0].EventType != "approval.requested" || string(list[0].Payload) != `{"type":"approval.requested"}` {
		t.Fatalf("delivery: %+v %v", list, err)
	}
}

// testApprovalCleanup: approvals go 30 days after their expiry, not before.
func testApprovalCleanup(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, clock.Now)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	a := newApproval(clock.Now(), p.ID, "u", "t", "h", time.Minute)
	if _, err := s.CreateApproval(ctx, a, "approval.requested", store.EventCause{}, noPayload); err != nil {
		t.Fatal(err)
	}
	clock.Advance(29 * 24 * time.Hour)
	if _, err := s.Cleanup(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetApproval(ctx, p.ID, a.ID); err != nil {
		t.Fatalf("removed before 30 days: %v", err)
	}
	clock.Advance(2 * 24 * time.Hour)
	if _, err := s.Cleanup(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetApproval(ctx, p.ID, a.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("kept past 30 days: %v", err)
	}
}
