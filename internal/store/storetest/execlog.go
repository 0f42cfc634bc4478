package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

func execLogTests() map[string]func(*testing.T, Opener) {
	return map[string]func(*testing.T, Opener){
		"ExecLog_ListNewestFirstFilteredAndPaged": testExecLogList,
		"ExecLog_PruneRemovesOnlyPastRetention":   testExecLogPrune,
		"ExecLog_SettingsKeptBesideConnectPage":   testExecLogSettings,
		"ExecLog_PolicyDecisionKeptOrNull":        testExecLogPolicy,
	}
}

// testExecLogList: records come back newest first, within their project
// only, filtered by every field the API filters on, and pages continue
// exactly after the last record, also among records of the same
// millisecond.
func testExecLogList(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	base := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	input := `{"q":"milk"}`
	var rows []store.LogRecord
	for i := range 9 {
		r := store.LogRecord{
			ID: store.NewID(), ProjectID: "p-a", CreatedAt: base.Add(time.Duration(i/3) * time.Second),
			UserID: []string{"ann", "bob", "ann"}[i%3], ConnectorID: "delta", Tool: fmt.Sprintf("delta_t%d", i%2),
			Outcome: "ok", ProviderStatus: 200, TotalMicros: int64(1000 + i), ProviderMicros: int64(500 + i), RequestID: fmt.Sprint("r", i),
		}
		if i == 4 {
			r.Outcome, r.ProviderStatus, r.Input = "UPSTREAM_ERROR", 503, &input
		}
		rows = append(rows, r)
	}
	other := store.LogRecord{ID: store.NewID(), ProjectID: "p-b", CreatedAt: base, UserID: "ann", Tool: "delta_t0", Outcome: "ok"}
	if err := s.InsertLogRecords(ctx, append(slices.Clone(rows), other)); err != nil {
		t.Fatal(err)
	}

	all, err := s.ListLogRecords(ctx, store.LogFilter{ProjectID: "p-a", Limit: 100})
	if err != nil || len(all) != 9 {
		t.Fatalf("list: %d records, %v", len(all), err)
	}
	for i := 1; i < len(all); i++ {
		a, b := all[i-1], all[i]
		if a.CreatedAt.Before(b.CreatedAt) || (a.CreatedAt.Equal(b.CreatedAt) && a.ID < b.ID) {
			t.Fatalf("not newest first at %d: %v %s then %v %s", i, a.CreatedAt, a.ID, b.CreatedAt, b.ID)
		}
	}
	got := all[slices.IndexFunc(all, func(r store.LogRecord) bool { return r.ID == rows[4].ID })]
	if got.Outcome != "UPSTREAM_ERROR" || got.ProviderStatus != 503 || got.Input == nil || *got.Input != input || got.Output != nil ||
		got.TotalMicros != 1004 || got.ProviderMicros != 504 || got.RequestID != "r4" || !got.CreatedAt.Equal(rows[4].CreatedAt) {
		t.Fatalf("record not kept as written: %+v", got)
	}

	count := func(f store.LogFilter) int {
		t.Helper()
		f.ProjectID, f.Limit = "p-a", 100
		rs, err := s.ListLogRecords(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		return len(rs)
	}
	for name, c := range map[string]struct {
		f    store.LogFilter
		want int
	}{
		"user":          {store.LogFilter{UserID: "ann"}, 6},
		"tool":          {store.LogFilter{Tool: "delta_t1"}, 4},
		"connector":     {store.LogFilter{ConnectorID: "delta"}, 9},
		"other conn":    {store.LogFilter{ConnectorID: "gamma"}, 0},
		"outcome":       {store.LogFilter{Outcome: "UPSTREAM_ERROR"}, 1},
		"since":         {store.LogFilter{Since: base.Add(time.Second)}, 6},
		"until":         {store.LogFilter{Until: base.Add(time.Second)}, 3},
		"window + user": {store.LogFilter{Since: base.Add(time.Second), Until: base.Add(2 * time.Second), UserID: "bob"}, 1},
	} {
		if n := count(c.f); n != c.want {
			t.Errorf("%s: %d records, want %d", name, n, c.want)
		}
	}

	// Pages of 2 walk the same order with nothing repeated or skipped.
	var walked []string
	f := store.LogFilter{ProjectID: "p-a", Limit: 2}
	for {
		page, err := s.ListLogRecords(ctx, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page {
			walked = append(walked, r.ID)
		}
		if len(page) < 2 {
			break
		}
		last := page[len(page)-1]
		f.AfterAt, f.AfterID = last.CreatedAt.UnixMilli(), last.ID
	}
	var want []string
	for _, r := range all {
		want = append(want, r.ID)
	}
	if !slices.Equal(walked, want) {
		t.Fatalf("pages walked %v, want %v", walked, want)
	}

	// Another project's record is never listed nor found.
	if _, err := s.GetLogRecord(ctx, "p-a", other.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("another project's record: %v", err)
	}
	if r, err := s.GetLogRecord(ctx, "p-b", other.ID); err != nil || r.ID != other.ID {
		t.Fatalf("own record: %+v %v", r, err)
	}
	if n := count(store.LogFilter{UserID: "ann", Tool: "delta_t0", Until: base.Add(time.Millisecond)}); n != 2 {
		t.Fatalf("p-a records at base for ann/delta_t0: %d, want 2 (p-b's must not count)", n)
	}
}

// testExecLogPrune: records older than the retention go, in batches;
// newer ones stay.
func testExecLogPrune(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, clock.Now)
	ctx := context.Background()
	var rows []store.LogRecord
	for i := range 7 {
		rows = append(rows, store.LogRecord{ID: store.NewID(), ProjectID: "p", Outcome: "ok",
			CreatedAt: clock.Now().Add(-time.Duration(i) * 24 * time.Hour)})
	}
	if err := s.InsertLogRecords(ctx, rows); err != nil {
		t.Fatal(err)
	}
	// Keep three days: the records of days 4, 5 and 6 go (day 3 is exactly
	// at the edge and stays), two per statement.
	n, err := s.PruneLog(ctx, 3*24*time.Hour, 2)
	if err != nil || n != 3 {
		t.Fatalf("pruned %d, %v; want 3", n, err)
	}
	left, _ := s.ListLogRecords(ctx, store.LogFilter{ProjectID: "p", Limit: 100})
	if len(left) != 4 || left[3].ID != rows[3].ID {
		t.Fatalf("left %d records: %+v", len(left), left)
	}
	if n, err := s.PruneLog(ctx, 3*24*time.Hour, 2); err != nil || n != 0 {
		t.Fatalf("second prune: %d %v", n, err)
	}
}

// testExecLogSettings: the payload opt-in and redacted names share the
// project settings row with the Connect page and never clear it.
func testExecLogSettings(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	q, _ := s.CreateProject(ctx, "q")
	if ls, err := s.GetLogSettings(ctx, p.ID); err != nil || ls.Payloads || len(ls.Redact) != 0 {
		t.Fatalf("unset: %+v %v", ls, err)
	}
	brand := store.ConnectSettings{Name: "Acme", SelfManage: true}
	if err := s.SetConnectSettings(ctx, p.ID, brand); err != nil {
		t.Fatal(err)
	}
	if err := s.SetLogSettings(ctx, p.ID, store.LogSettings{Payloads: true, Redact: []string{"ssn", "dob"}}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetLogSettings(ctx, q.ID, store.LogSettings{Redact: []string{"x"}}); err != nil {
		t.Fatal(err)
	}
	if got, _ := s.GetConnectSettings(ctx, p.ID); got != brand {
		t.Fatalf("log settings cleared the Connect page: %+v", got)
	}
	if ls, _ := s.GetLogSettings(ctx, p.ID); !ls.Payloads || !slices.Equal(ls.Redact, []string{"ssn", "dob"}) {
		t.Fatalf("log settings: %+v", ls)
	}
	on, err := s.PayloadProjects(ctx)
	if err != nil || len(on) != 1 || !slices.Equal(on[p.ID], []string{"ssn", "dob"}) {
		t.Fatalf("payload projects: %v %v", on, err)
	}
	if err := s.SetConnectSettings(ctx, p.ID, store.ConnectSettings{Name: "B"}); err != nil {
		t.Fatal(err)
	}
	if ls, _ := s.GetLogSettings(ctx, p.ID); !ls.Payloads {
		t.Fatal("Connect page settings cleared the log settings")
	}
}

// testExecLogPolicy: a record's policy decision comes back as written, by
// list and by get, and a record without one comes back without one.
func testExecLogPolicy(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	decision := `{"decision":"ask","ruleId":"pol_1","level":"project","approvalId":"apr_1","approver":"ann","approvalLatencyMs":1500}`
	with := store.LogRecord{ID: store.NewID(), ProjectID: "p", CreatedAt: at, Tool: "delta_t0", Outcome: "ok", Policy: &decision}
	without := store.LogRecord{ID: store.NewID(), ProjectID: "p", CreatedAt: at.Add(time.Second), Tool: "delta_t0", Outcome: "ok"}
	if err := s.InsertLogRecords(ctx, []store.LogRecord{with, without}); err != nil {
		t.Fatal(err)
	}
	got, err := s.GetLogRecord(ctx, "p", with.ID)
	if err != nil || got.Policy == nil || *got.Policy != decision {
		t.Fatalf("get with a decision: %+v, %v", got.Policy, err)
	}
	got, err = s.GetLogRecord(ctx, "p", without.ID)
	if err != nil || got.Policy != nil {
		t.Fatalf("get without a decision: %v, %v", got.Policy, err)
	}
	list, err := s.ListLogRecords(ctx, store.LogFilter{ProjectID: "p"})
	if err != nil || len(list) != 2 {
		t.Fatalf("list: %d records, %v", len(list), err)
	}
	if list[0].Policy != nil || list[1].Policy == nil || *list[1].Policy != decision {
		t.Fatalf("list: decisions %v, %v", list[0].Policy, list[1].Policy)
	}
}
