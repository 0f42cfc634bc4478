package execlog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
)

func records(t *testing.T, st *store.Store, project string) []store.LogRecord {
	t.Helper()
	rs, err := st.ListLogRecords(context.Background(), store.LogFilter{ProjectID: project, Limit: 500})
	if err != nil {
		t.Fatal(err)
	}
	return rs
}

func TestAdd_FullQueue_DropsAndCountsWithoutBlocking(t *testing.T) {
	t.Parallel()
	st := storetest.OpenSQLite(t, nil)
	l := New(Options{Store: st, Queue: 2})
	done := make(chan struct{})
	go func() {
		for i := range 5 {
			e := Origin{Start: time.Now()}.Entry("p", fmt.Sprint("u", i))
			e.Tool = "delta_get_task"
			l.Add(&e)
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Add blocked on a full queue")
	}
	if l.Dropped() != 3 || l.Queued() != 2 {
		t.Fatalf("dropped %d, queued %d; want 3 and 2", l.Dropped(), l.Queued())
	}
	l.Flush(context.Background())
	rs := records(t, st, "p")
	if len(rs) != 2 || l.Written() != 2 || rs[0].Outcome != "ok" {
		t.Fatalf("written %d, records %+v", l.Written(), rs)
	}
}

func TestRun_WritesBatchesAndWhatIsLeftWhenStopped(t *testing.T) {
	t.Parallel()
	st := storetest.OpenSQLite(t, nil)
	l := New(Options{Store: st, Batch: 3, Interval: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { l.Run(ctx); close(stopped) }()
	for i := range 7 {
		e := Origin{Start: time.Now(), APIKeyID: "k1", RequestID: fmt.Sprint("req", i)}.Entry("p", "u")
		e.Outcome = "VALIDATION_ERROR"
		l.Add(&e)
	}
	// Two full batches go without waiting for the (hour-long) interval.
	deadline := time.Now().Add(5 * time.Second)
	for l.Written() < 6 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if l.Written() != 6 {
		t.Fatalf("full batches not written: %d", l.Written())
	}
	cancel()
	<-stopped
	rs := records(t, st, "p")
	if len(rs) != 7 {
		t.Fatalf("after stop %d records, want 7", len(rs))
	}
	for _, r := range rs {
		if r.APIKeyID != "k1" || r.Outcome != "VALIDATION_ERROR" || !strings.HasPrefix(r.RequestID, "req") || r.Input != nil {
			t.Fatalf("record %+v", r)
		}
	}
}

func TestPayloads_OnlyWhenOptedIn_RedactedAndCapped(t *testing.T) {
	t.Parallel()
	st := storetest.OpenSQLite(t, nil)
	ctx := context.Background()
	on, _ := st.CreateProject(ctx, "on")
	off, _ := st.CreateProject(ctx, "off")
	if err := st.SetLogSettings(ctx, on.ID, store.LogSettings{Payloads: true, Redact: []string{"SSN"}}); err != nil {
		t.Fatal(err)
	}
	l := New(Options{Store: st, MaxPayload: 512})
	if l.Payloads(on.ID) {
		t.Fatal("settings used before they were loaded")
	}
	l.LoadSettings(ctx)
	if !l.Payloads(on.ID) || l.Payloads(off.ID) {
		t.Fatalf("payloads on: %v, off: %v", l.Payloads(on.ID), l.Payloads(off.ID))
	}

	const token = "tok_live_0123456789abcdef"
	input := json.RawMessage(`{"title":"hi <b>","ssn":"123-45-6789","nested":{"client_secret":"cs","apiKey":"k"},` +
		`"list":[{"Authorization":"Bearer x"}],"note":"my token is ` + token + `"}`)
	for _, p := range []string{on.ID, off.ID} {
		e := Origin{Start: time.Now()}.Entry(p, "u")
		e.Payloads = l.Payloads(p)
		e.AddSecrets(token, "short")
		e.Input = input
		e.Output = map[string]any{"echo": token, "big": strings.Repeat("é", 600)}
		l.Add(&e)
	}
	l.Flush(ctx)

	if r := records(t, st, off.ID); len(r) != 1 || r[0].Input != nil || r[0].Output != nil {
		t.Fatalf("a project that did not opt in has payloads: %+v", r)
	}
	r := records(t, st, on.ID)[0]
	if r.Input == nil || r.Output == nil {
		t.Fatalf("no payloads: %+v", r)
	}
	var in map[string]any
	if err := json.Unmarshal([]byte(*r.Input), &in); err != nil {
		t.Fatal(err)
	}
	nested := in["nested"].(map[string]any)
	list := in["list"].([]any)[0].(map[string]any)
	if in["title"] != "hi <b>" || in["ssn"] != Redacted || nested["client_secret"] != Redacted || nested["apiKey"] != Redacted ||
		list["Authorization"] != Redacted || in["note"] != Redacted {
		t.Fatalf("input not redacted as it should be: %s", *r.Input)
	}
	var out map[string]any
	if err := json.Unmarshal([]byte(*r.Output), &out); err != nil {
		t.Fatalf("a capped output is not JSON: %v: %s", err, *r.Output)
	}
	if out["truncated"] != true || !strings.HasSuffix(out["text"].(string), "…") || len(out["text"].(string)) > 512+len("…") {
		t.Fatalf("output not capped with a mark: %s", *r.Output)
	}
	for _, stored := range []string{*r.Input, *r.Output} {
		if strings.Contains(stored, token) || strings.Contains(stored, "123-45-6789") {
			t.Fatalf("a secret reached the log: %s", stored)
		}
	}
}

func TestOutcome_IsTheCodeTheCallerSaw(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		err  error
		want string
	}{
		{nil, "ok"},
		{apierr.New(apierr.ActionDisabled, "no"), "ACTION_DISABLED"},
		{fmt.Errorf("wrapped: %w", apierr.New(apierr.UpstreamError, "x")), "UPSTREAM_ERROR"},
		{context.Canceled, "CANCELLED"},
		{errors.New("database down"), "INTERNAL_ERROR"},
	} {
		if got := Outcome(c.err); got != c.want {
			t.Errorf("Outcome(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}

func TestProxyTool_NoQueryStringAndCut(t *testing.T) {
	t.Parallel()
	if got := ProxyTool("GET", "/repos/a/b/issues?state=open&token=x"); got != "GET /repos/a/b/issues" {
		t.Fatalf("got %q", got)
	}
	long := ProxyTool("POST", "/"+strings.Repeat("ü", 300))
	if len(long) > 200 || !strings.HasPrefix(long, "POST /ü") || !json.Valid([]byte(`"`+long+`"`)) {
		t.Fatalf("not cut at a character boundary under 200 bytes: %d", len(long))
	}
}

func TestNilLog_RecordsNothing(t *testing.T) {
	t.Parallel()
	var l *Log
	e := Entry{}
	l.Add(&e)
	l.Flush(context.Background())
	if l.Payloads("p") || l.Dropped() != 0 {
		t.Fatal("a nil log did something")
	}
}

func TestPolicy_StoredAsJSONOnlyWhenSet(t *testing.T) {
	t.Parallel()
	st := storetest.OpenSQLite(t, nil)
	l := New(Options{Store: st})
	cases := map[string]struct {
		d    *Decision
		want map[string]any
	}{
		"none": {nil, nil},
		"deny": {&Decision{Decision: "deny", RuleID: "pol_d", Level: "project"},
			map[string]any{"decision": "deny", "ruleId": "pol_d", "level": "project"}},
		"approved": {&Decision{Decision: "ask", RuleID: "pol_a", Level: "session", ApprovalID: "apr_1", Approver: "ann@example.com",
			ApprovalLatency: 2500 * time.Millisecond},
			map[string]any{"decision": "ask", "ruleId": "pol_a", "level": "session", "approvalId": "apr_1",
				"approver": "ann@example.com", "approvalLatencyMs": float64(2500)}},
	}
	for name, c := range cases {
		e := Origin{Start: time.Now()}.Entry("p", name)
		e.Policy = c.d
		l.Add(&e)
	}
	l.Flush(context.Background())
	rs := records(t, st, "p")
	if len(rs) != len(cases) {
		t.Fatalf("%d records", len(rs))
	}
	for _, r := range rs {
		c := cases[r.UserID]
		if c.want == nil {
			if r.Policy != nil {
				t.Errorf("%s: policy %q, want NULL", r.UserID, *r.Policy)
			}
			continue
		}
		if r.Policy == nil {
			t.Errorf("%s: no policy stored", r.UserID)
			continue
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(*r.Policy), &got); err != nil {
			t.Fatalf("%s: %v", r.UserID, err)
		}
		if fmt.Sprint(got) != fmt.Sprint(c.want) {
			t.Errorf("%s: policy %v, want %v", r.UserID, got, c.want)
		}
	}
}

// TestRedactor_JSONInAString: a string value holding a JSON object (a body
// the provider echoed back as text) has its secret-named and configured
// fields redacted as that object's own would be; other strings stay.
func TestRedactor_JSONInAString(t *testing.T) {
	t.Parallel()
	r := newRedactor([]string{"ssn"}, nil)
	got := r.encode(map[string]any{
		"body":  `{"password":"pw-1","ssn":"123-45-6789","title":"visible","items":[{"apiKey":"k-1"}]}`,
		"list":  `[{"token":"t-1"}]`,
		"plain": "{not json}",
	}, DefaultMaxPayload)
	want := `{"body":"{\"items\":[{\"apiKey\":\"[redacted]\"}],\"password\":\"[redacted]\",\"ssn\":\"[redacted]\",\"title\":\"visible\"}",` +
		`"list":"[{\"token\":\"[redacted]\"}]","plain":"{not json}"}`
	if got == nil || *got != want {
		t.Fatalf("encoded %v\nwant    %s", *got, want)
	}
}

// TestSetID_NamesTheRecordBeforeItIsWritten: an entry a log opened can be
// given the id something named its record by, and is written under it; an
// entry no log opened (the log off) and a nil entry take none; a nil Log's
// Run returns at once.
func TestSetID_NamesTheRecordBeforeItIsWritten(t *testing.T) {
	t.Parallel()
	st := storetest.OpenSQLite(t, nil)
	l := New(Options{Store: st})
	e := Origin{Start: time.Now()}.Entry("p", "u")
	if e.Logged() {
		t.Fatal("an entry no log opened is logged")
	}
	e.SetID("early")
	if e.ID() != "" {
		t.Fatal("an entry no log opened took an id")
	}
	l.Open(&e)
	id := store.NewID()
	e.SetID(id)
	if !e.Logged() || e.ID() != id {
		t.Fatalf("logged %v, id %q", e.Logged(), e.ID())
	}
	l.Add(&e)
	plain := Origin{Start: time.Now()}.Entry("p", "u2")
	l.Open(&plain)
	l.Add(&plain)
	l.Flush(context.Background())
	rs := records(t, st, "p")
	if len(rs) != 2 {
		t.Fatalf("records %+v", rs)
	}
	named := 0
	for _, r := range rs {
		if r.ID == "" {
			t.Fatal("a record without an id")
		}
		if r.ID == id {
			named++
		}
	}
	if named != 1 {
		t.Fatalf("no record under %s: %+v", id, rs)
	}

	var off *Log
	closed := Origin{Start: time.Now()}.Entry("p", "u")
	off.Open(&closed)
	if closed.Logged() || closed.Payloads {
		t.Fatal("an entry of a nil log is logged")
	}
	var none *Entry
	none.SetID("x")
	if none.Logged() || none.ID() != "" {
		t.Fatal("a nil entry is logged")
	}
	done := make(chan struct{})
	go func() { off.Run(context.Background()); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("a nil Log's Run did not return")
	}
}
