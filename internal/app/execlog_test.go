package app

import (
	"context"
	"fmt"
	"log/slog"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/execlog"
	"github.com/switchboard-gw/switchboard/internal/store"
)

func TestCleanup_PrunesTheExecutionLogPastRetention(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	a, err := New(context.Background(), testConfig(t), Options{Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx := context.Background()
	var rows []store.LogRecord
	for _, age := range []time.Duration{0, 29 * 24 * time.Hour, 31 * 24 * time.Hour, 90 * 24 * time.Hour} {
		rows = append(rows, store.LogRecord{ID: store.NewID(), ProjectID: "p", Outcome: "ok", CreatedAt: now.Add(-age)})
	}
	if err := a.Store.InsertLogRecords(ctx, rows); err != nil {
		t.Fatal(err)
	}
	Cleanup(ctx, a.Store, slog.New(slog.DiscardHandler), a.logRetention())
	left, err := a.Store.ListLogRecords(ctx, store.LogFilter{ProjectID: "p", Limit: 10})
	if err != nil || len(left) != 2 || left[0].ID != rows[0].ID || left[1].ID != rows[1].ID {
		t.Fatalf("after the default 30 days: %d records %v", len(left), err)
	}
}

func TestClose_WritesTheQueuedLogRecordsBeforeTheStoreCloses(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	// An hour between batches: nothing is written until the stop.
	a, err := New(context.Background(), cfg, Options{ExecLog: execlog.Options{Interval: time.Hour}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- a.Run(ctx) }()
	for i := range 5 {
		e := execlog.Origin{Start: time.Now(), RequestID: fmt.Sprint("r", i)}.Entry("p", "u")
		a.ExecLog.Add(&e)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(context.Background(), cfg.DatabaseURL, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	left, err := st.ListLogRecords(context.Background(), store.LogFilter{ProjectID: "p", Limit: 10})
	if err != nil || len(left) != 5 {
		t.Fatalf("after stop: %d records %v", len(left), err)
	}
}
