package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

func quotaTests() map[string]func(*testing.T, Opener) {
	return map[string]func(*testing.T, Opener){
		"Quota_CRUDMovesToolsVersion":          testQuotaCRUD,
		"Quota_CountStopsAtLimitPerWindow":     testQuotaCount,
		"Quota_RefusedCallCountsNowhere":       testQuotaTakeBack,
		"Redaction_RulesReplaceAndMoveVersion": testRedactionRules,
		"Quota_CleanupDropsEndedWindowsOnly":   testQuotaCleanup,
		"Quota_OtherProjectCannotTouchIt":      testQuotaOtherProject,
	}
}

func testQuotaCRUD(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	v0 := toolsVersion(t, s, p.ID)
	q, err := s.CreateQuota(ctx, store.Quota{ProjectID: p.ID, Period: 3600, Limit: 10, PerUser: true, ConnectorID: "github"})
	if err != nil || q.ID == "" {
		t.Fatalf("create: %+v %v", q, err)
	}
	v1 := toolsVersion(t, s, p.ID)
	if v1 == v0 {
		t.Fatal("creating a quota did not move tools_version")
	}
	got, err := s.GetQuota(ctx, p.ID, q.ID)
	if err != nil || got != q {
		t.Fatalf("get: %+v %v, want %+v", got, err, q)
	}
	up, err := s.UpdateQuota(ctx, p.ID, q.ID, 60, 3)
	if err != nil || up.Period != 60 || up.Limit != 3 || up.ConnectorID != "github" || !up.PerUser {
		t.Fatalf("update: %+v %v", up, err)
	}
	if toolsVersion(t, s, p.ID) == v1 {
		t.Fatal("updating a quota did not move tools_version")
	}
	list, err := s.ListQuotas(ctx, p.ID)
	if err != nil || len(list) != 1 || list[0] != up {
		t.Fatalf("list: %+v %v", list, err)
	}
	if err := s.DeleteQuota(ctx, p.ID, q.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteQuota(ctx, p.ID, q.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if _, err := s.UpdateQuota(ctx, p.ID, q.ID, 60, 1); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("update of a deleted quota: %v", err)
	}
	if list, _ := s.ListQuotas(ctx, p.ID); len(list) != 0 {
		t.Fatalf("deleted quota listed: %+v", list)
	}
}

func hit(q store.Quota, subject string, at time.Time) store.QuotaHit {
	p := int64(q.Period) * 1000
	start := at.UnixMilli() - at.UnixMilli()%p
	return store.QuotaHit{QuotaID: q.ID, Subject: subject, Period: q.Period, WindowStart: start, WindowEnd: start + p, Limit: q.Limit}
}

func testQuotaCount(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	q, _ := s.CreateQuota(ctx, store.Quota{ProjectID: p.ID, Period: 60, Limit: 3})
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i := 1; i <= 5; i++ {
		refused, err := s.CountQuotaCalls(ctx, []store.QuotaHit{hit(q, "", now)})
		if err != nil {
			t.Fatal(err)
		}
		if want := i > 3; (len(refused) > 0) != want {
			t.Fatalf("call %d: refused %v", i, refused)
		}
	}
	h := hit(q, "", now)
	if n, _ := s.QuotaCalls(ctx, q.ID, "", 60, h.WindowStart); n != 3 {
		t.Fatalf("count %d, want 3 (refused calls are not counted)", n)
	}
	// Another subject and the next window start afresh.
	if refused, _ := s.CountQuotaCalls(ctx, []store.QuotaHit{hit(q, "alice", now)}); len(refused) != 0 {
		t.Fatal("another subject shared the count")
	}
	if refused, _ := s.CountQuotaCalls(ctx, []store.QuotaHit{hit(q, "", now.Add(time.Minute))}); len(refused) != 0 {
		t.Fatal("the next window shared the count")
	}
	// A raised limit applies to the window in progress.
	h.Limit = 4
	if refused, _ := s.CountQuotaCalls(ctx, []store.QuotaHit{h}); len(refused) != 0 {
		t.Fatal("a raised limit was not applied")
	}
}

func testQuotaTakeBack(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	wide, _ := s.CreateQuota(ctx, store.Quota{ProjectID: p.ID, Period: 3600, Limit: 100})
	narrow, _ := s.CreateQuota(ctx, store.Quota{ProjectID: p.ID, Period: 60, Limit: 1, ToolID: "github_create_issue"})
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	hits := []store.QuotaHit{hit(wide, "", now), hit(narrow, "", now)}
	slices.SortFunc(hits, func(a, b store.QuotaHit) int {
		if a.QuotaID < b.QuotaID {
			return -1
		}
		return 1
	})
	if refused, err := s.CountQuotaCalls(ctx, hits); err != nil || len(refused) != 0 {
		t.Fatalf("first call: %v %v", refused, err)
	}
	refused, err := s.CountQuotaCalls(ctx, hits)
	if err != nil || len(refused) != 1 || hits[refused[0]].QuotaID != narrow.ID {
		t.Fatalf("second call: refused %v, err %v", refused, err)
	}
	if n, _ := s.QuotaCalls(ctx, wide.ID, "", 3600, hit(wide, "", now).WindowStart); n != 1 {
		t.Fatalf("the wide quota counts %d calls, want 1: a refused call must count nowhere", n)
	}
}

func testQuotaCleanup(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, clock.Now)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	q, _ := s.CreateQuota(ctx, store.Quota{ProjectID: p.ID, Period: 60, Limit: 5})
	old := hit(q, "", clock.Now())
	if _, err := s.CountQuotaCalls(ctx, []store.QuotaHit{old}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(2 * time.Minute)
	cur := hit(q, "", clock.Now())
	if _, err := s.CountQuotaCalls(ctx, []store.QuotaHit{cur}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Cleanup(ctx); err != nil {
		t.Fatal(err)
	}
	if n, _ := s.QuotaCalls(ctx, q.ID, "", 60, old.WindowStart); n != 0 {
		t.Fatal("an ended window's count survived cleanup")
	}
	if n, _ := s.QuotaCalls(ctx, q.ID, "", 60, cur.WindowStart); n != 1 {
		t.Fatal("cleanup removed the current window's count")
	}
}

func testQuotaOtherProject(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	other, _ := s.CreateProject(ctx, "other")
	q, _ := s.CreateQuota(ctx, store.Quota{ProjectID: p.ID, Period: 60, Limit: 5})
	if _, err := s.GetQuota(ctx, other.ID, q.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another project read the quota: %v", err)
	}
	if err := s.DeleteQuota(ctx, other.ID, q.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another project deleted the quota: %v", err)
	}
	if _, err := s.CreateQuota(ctx, store.Quota{ProjectID: "no-such-project", Period: 60, Limit: 5}); err == nil {
		t.Fatal("a quota of no project was stored")
	}
}

func testRedactionRules(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	if raw, err := s.RedactionRules(ctx, p.ID); err != nil || raw != nil {
		t.Fatalf("fresh project: %s %v", raw, err)
	}
	v0 := toolsVersion(t, s, p.ID)
	if err := s.SetRedactionRules(ctx, p.ID, []byte(`{"detectors":["email"]}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.SetRedactionRules(ctx, p.ID, []byte(`{"detectors":["card"]}`)); err != nil {
		t.Fatal(err)
	}
	if raw, _ := s.RedactionRules(ctx, p.ID); string(raw) != `{"detectors":["card"]}` {
		t.Fatalf("rules not replaced: %s", raw)
	}
	v1 := toolsVersion(t, s, p.ID)
	if v1 < v0+2 {
		t.Fatalf("tools_version %d -> %d over two changes", v0, v1)
	}
	if err := s.SetRedactionRules(ctx, p.ID, nil); err != nil {
		t.Fatal(err)
	}
	if raw, _ := s.RedactionRules(ctx, p.ID); raw != nil || toolsVersion(t, s, p.ID) == v1 {
		t.Fatalf("removal: %s", raw)
	}
}
