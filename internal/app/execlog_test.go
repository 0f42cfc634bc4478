package app

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apikey"
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

// TestExecutionLogOff_RecordsNothing_StoredRecordsStayReadable: with
// SWITCHBOARD_EXECUTION_LOG=off a call (here one refused for its body,
// which is recorded when the log is on) queues nothing, Run and Close work
// without a writer, and GET /v1/logs still answers with what is stored.
func TestExecutionLogOff_RecordsNothing_StoredRecordsStayReadable(t *testing.T) {
	t.Parallel()
	for _, off := range []bool{false, true} {
		t.Run(fmt.Sprint("off=", off), func(t *testing.T) {
			t.Parallel()
			cfg := testConfig(t)
			cfg.ExecutionLogOff = off
			a, err := New(context.Background(), cfg, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if (a.ExecLog == nil) != off {
				t.Fatalf("off %v: ExecLog %v", off, a.ExecLog)
			}
			ctx, cancel := context.WithCancel(context.Background())
			done := make(chan error, 1)
			go func() { done <- a.Run(ctx) }()
			p, err := a.Store.CreateProject(context.Background(), "p")
			if err != nil {
				t.Fatal(err)
			}
			key, hash, hint, err := apikey.Generate()
			if err != nil {
				t.Fatal(err)
			}
			if _, err := a.Store.CreateAPIKey(context.Background(), store.NewAPIKey{ProjectID: p.ID, Name: "k", Hash: hash, Hint: hint}); err != nil {
				t.Fatal(err)
			}
			stored := store.LogRecord{ID: store.NewID(), ProjectID: p.ID, UserID: "u", Outcome: "ok", CreatedAt: time.Now().Add(-time.Hour)}
			if err := a.Store.InsertLogRecords(context.Background(), []store.LogRecord{stored}); err != nil {
				t.Fatal(err)
			}
			send := func(method, path, body string) *httptest.ResponseRecorder {
				r := httptest.NewRequest(method, path, strings.NewReader(body))
				r.Header.Set("Authorization", "Bearer "+key)
				r.Header.Set("Content-Type", "application/json")
				w := httptest.NewRecorder()
				a.API.Handler().ServeHTTP(w, r)
				return w
			}
			if w := send("POST", "/v1/tools/execute", `{"userId":"u"}`); w.Code != 400 {
				t.Fatalf("execute: %d %s", w.Code, w.Body)
			}
			// The writer (Run) writes within 100 ms; with the log on the
			// refused call's record appears, with it off it never does.
			want := 2
			if off {
				want = 1
			}
			deadline := time.Now().Add(5 * time.Second)
			if off {
				deadline = time.Now().Add(500 * time.Millisecond)
			}
			var page struct {
				Data []struct {
					ID      string `json:"id"`
					Outcome string `json:"outcome"`
				} `json:"data"`
			}
			var body string
			for {
				w := send("GET", "/v1/logs", "")
				page.Data = nil
				if w.Code != 200 || json.Unmarshal(w.Body.Bytes(), &page) != nil {
					t.Fatalf("GET /v1/logs: %d %s", w.Code, w.Body)
				}
				body = w.Body.String()
				if (!off && len(page.Data) >= want) || time.Now().After(deadline) {
					break
				}
				time.Sleep(50 * time.Millisecond)
			}
			if len(page.Data) != want || page.Data[len(page.Data)-1].ID != stored.ID {
				t.Fatalf("off %v: %d records %s, want %d ending with the stored one", off, len(page.Data), body, want)
			}
			cancel()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
		})
	}
}
