package trigger

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
)

func TestPoll_Timestamp_FirstPollNoBacklog_ThenNewItemsOnceInOrder(t *testing.T) {
	t.Parallel()
	e := newPollEnv(t)
	conn := e.connect()
	now := e.clock.Now()
	e.fake.addItem("old-1", now.Add(-time.Hour), "")
	e.fake.addItem("old-2", now.Add(-time.Second), "")
	tr := e.create(conn, "pollme_item_created", nil)

	if n := e.round(); n != 1 {
		t.Fatalf("first round polled %d triggers", n)
	}
	wantFired(t, e.fired(tr.ID))
	if st := e.state(tr.ID); st.Failures != 0 || !st.NextDueAt.Equal(now.Add(time.Minute)) || st.LastPolledAt == nil {
		t.Fatalf("state after the first poll: %+v", st)
	}
	if q := e.fake.queries[0].Get("since"); q != now.Format(time.RFC3339) {
		t.Fatalf("since=%q, want the trigger's creation", q)
	}

	// Listed out of order; two share a time.
	e.clock.Advance(10 * time.Second)
	e.fake.addItem("b", now.Add(8*time.Second), "")
	e.fake.addItem("a", now.Add(5*time.Second), "")
	e.fake.addItem("c", now.Add(8*time.Second), "")
	if n := e.round(); n != 0 {
		t.Fatalf("a trigger was polled before it was due (%d)", n)
	}
	e.clock.Advance(time.Minute)
	e.round()
	wantFired(t, e.fired(tr.ID), "a", "b", "c")

	// The same answer again, plus one more at the boundary time: only it is new.
	e.fake.addItem("d", now.Add(8*time.Second), "")
	e.clock.Advance(time.Minute)
	e.round()
	e.clock.Advance(time.Minute)
	e.round()
	wantFired(t, e.fired(tr.ID), "a", "b", "c", "d")
	if q := e.fake.queries[len(e.fake.queries)-1].Get("since"); q != now.Add(8*time.Second).Format(time.RFC3339) {
		t.Fatalf("since=%q, want the latest item's time", q)
	}
	got, _ := e.store.GetTrigger(context.Background(), e.project.ID, tr.ID)
	if got.FireCount != 4 {
		t.Fatalf("fire count %d", got.FireCount)
	}
}

func TestPoll_Lag_LateListedItemsEmittedOnce_IdleCursorMovesUp(t *testing.T) {
	t.Parallel()
	e := newPollEnv(t)
	conn := e.connect()
	created := e.clock.Now()
	tr := e.create(conn, "pollme_item_indexed", nil)
	e.fake.addItem("x", created.Add(90*time.Second), "")
	e.clock.Advance(2 * time.Minute)
	e.round()
	wantFired(t, e.fired(tr.ID), "x")
	// y happened before x but is listed only now, within the lag.
	e.fake.addItem("y", created.Add(30*time.Second), "")
	e.clock.Advance(time.Minute)
	e.round()
	wantFired(t, e.fired(tr.ID), "x", "y")
	if q := e.fake.queries[len(e.fake.queries)-1].Get("since"); q != created.Format(time.RFC3339) {
		t.Fatalf("since=%q: the lag reached before the trigger's creation", q)
	}
	e.clock.Advance(time.Minute)
	e.round()
	wantFired(t, e.fired(tr.ID), "x", "y")

	// Eight quiet days: the request no longer asks from x's time.
	for range 8 {
		e.clock.Advance(24 * time.Hour)
		e.round()
	}
	last := e.clock.Now()
	e.clock.Advance(time.Minute)
	e.round()
	if q := e.fake.queries[len(e.fake.queries)-1].Get("since"); q != last.Add(-24*time.Hour-2*time.Minute).Format(time.RFC3339) {
		t.Fatalf("since=%q after quiet days", q)
	}
	e.fake.addItem("z", e.clock.Now(), "")
	e.clock.Advance(time.Minute)
	e.round()
	wantFired(t, e.fired(tr.ID), "x", "y", "z")
}

func TestPoll_ConfigFilterGoesIntoTheQuery(t *testing.T) {
	t.Parallel()
	e := newPollEnv(t)
	conn := e.connect()
	tr := e.create(conn, "pollme_item_created", map[string]any{"tag": "red"})
	e.round()
	e.fake.addItem("blue-1", e.clock.Now().Add(time.Second), "blue")
	e.fake.addItem("red-1", e.clock.Now().Add(time.Second), "red")
	e.clock.Advance(time.Minute)
	e.round()
	wantFired(t, e.fired(tr.ID), "red-1")
	if _, err := e.svc.Create(context.Background(), e.tenant(), CreateRequest{ConnectionID: conn.ID, Event: "pollme_item_created",
		Config: map[string]any{"colour": "red"}}); err == nil {
		t.Fatal("a config field the schema does not know was accepted")
	}
	secretValue := "s"
	_, err := e.svc.Create(context.Background(), e.tenant(), CreateRequest{ConnectionID: conn.ID, Event: "pollme_item_created", Secret: &secretValue})
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Code != apierr.ValidationError || !strings.Contains(ae.Issues[0].Message, "polled by Switchboard") {
		t.Fatalf("a secret for a poll trigger: %v", err)
	}
}

func TestPoll_TimestampWithoutField_NewestFirstList_EmitsOnceOldestFirst(t *testing.T) {
	t.Parallel()
	e := newPollEnv(t)
	conn := e.connect()
	now := e.clock.Now()
	e.fake.mu.Lock()
	e.fake.messages = []fakeMessage{{"m-old", now.Add(-time.Hour)}}
	e.fake.mu.Unlock()
	tr := e.create(conn, "pollme_message_received", map[string]any{"query": "from:boss"})
	e.round()
	wantFired(t, e.fired(tr.ID))
	if q := e.fake.queries[0].Get("q"); q != "from:boss after:"+strconv.FormatInt(now.Unix(), 10) {
		t.Fatalf("q=%q", q)
	}
	add := func(id string, at time.Time) {
		e.fake.mu.Lock()
		e.fake.messages = append(e.fake.messages, fakeMessage{id, at})
		e.fake.mu.Unlock()
	}
	add("m1", now.Add(30*time.Second))
	add("m2", now.Add(40*time.Second))
	e.clock.Advance(2 * time.Minute)
	e.round()
	wantFired(t, e.fired(tr.ID), "m1", "m2")
	// The next request overlaps the last one: m1 and m2 come again.
	add("m3", now.Add(2*time.Minute+10*time.Second))
	e.clock.Advance(2 * time.Minute)
	e.round()
	wantFired(t, e.fired(tr.ID), "m1", "m2", "m3")
	if q := e.fake.queries[len(e.fake.queries)-1].Get("q"); q != "from:boss after:"+strconv.FormatInt(now.Unix(), 10) {
		t.Fatalf("the overlap went back before the trigger's creation: q=%q", q)
	}
}

func TestPoll_Token_FirstPollTakesPosition_PagesFollowAtOnce(t *testing.T) {
	t.Parallel()
	e := newPollEnv(t)
	conn := e.connect()
	e.fake.changes = []string{"c-old-1", "c-old-2"}
	tr := e.create(conn, "pollme_change", nil)
	e.round()
	wantFired(t, e.fired(tr.ID))
	if e.fake.callCount("/api/changes/start") != 1 || e.fake.callCount("/api/changes") != 0 {
		t.Fatalf("calls %v", e.fake.calls)
	}
	e.fake.mu.Lock()
	e.fake.changes = append(e.fake.changes, "c1", "c2", "c3", "c4", "c5")
	e.fake.mu.Unlock()
	e.clock.Advance(time.Minute)
	e.round() // c1 c2, more waiting: due at once
	if st := e.state(tr.ID); !st.NextDueAt.Equal(e.clock.Now()) {
		t.Fatalf("more pages wait, but the trigger is due at %v", st.NextDueAt)
	}
	e.round() // c3 c4
	e.round() // c5, then the new start
	if n := e.round(); n != 0 {
		t.Fatalf("polled again at once after the last page (%d)", n)
	}
	wantFired(t, e.fired(tr.ID), "c1", "c2", "c3", "c4", "c5")

	// A token the provider forgot: the trigger starts over, emitting nothing.
	e.fake.mu.Lock()
	e.fake.changes = e.fake.changes[:1]
	e.fake.mu.Unlock()
	e.clock.Advance(time.Minute)
	e.round()
	if st := e.state(tr.ID); st.Cursor != "{}" || st.Failures != 1 {
		t.Fatalf("after 410: %+v", st)
	}
	e.clock.Advance(2 * time.Minute)
	e.round()
	if st := e.state(tr.ID); !strings.Contains(st.Cursor, `"token":"1"`) {
		t.Fatalf("not placed again: %+v", st)
	}
	wantFired(t, e.fired(tr.ID), "c1", "c2", "c3", "c4", "c5")
}

func TestPoll_Token_PositionInTheBody_MoreAsABoolean(t *testing.T) {
	t.Parallel()
	e := newPollEnv(t)
	conn := e.connect()
	e.fake.changes = []string{"old"}
	tr := e.create(conn, "pollme_feed_entry", map[string]any{"path": "/inbox"})
	e.round()
	if st := e.state(tr.ID); st.Failures != 0 || !strings.Contains(st.Cursor, `"token":"1"`) {
		t.Fatalf("start: %+v", st)
	}
	e.fake.mu.Lock()
	e.fake.changes = append(e.fake.changes, "e1", "e2", "e3")
	e.fake.mu.Unlock()
	e.clock.Advance(time.Minute)
	e.round()
	e.round()
	if n := e.round(); n != 0 {
		t.Fatalf("polled again at once after has_more false (%d)", n)
	}
	wantFired(t, e.fired(tr.ID), "e1", "e2", "e3")
}

func TestPoll_BareArrayAnswer_MillisecondCursor(t *testing.T) {
	t.Parallel()
	e := newPollEnv(t)
	conn := e.connect()
	created := e.clock.Now()
	e.fake.addItem("before", created.Add(-time.Minute), "")
	tr := e.create(conn, "pollme_audit_event", nil)
	e.fake.addItem("after", created.Add(1500*time.Millisecond), "")
	e.round()
	wantFired(t, e.fired(tr.ID), "after")
	e.clock.Advance(time.Minute)
	e.round()
	wantFired(t, e.fired(tr.ID), "after")
	if st := e.state(tr.ID); st.Failures != 0 {
		t.Fatalf("state %+v", st)
	}
	if q := e.fake.queries[len(e.fake.queries)-1].Get("since"); q != created.Add(1500*time.Millisecond).Format("2006-01-02T15:04:05.000Z") {
		t.Fatalf("since=%q", q)
	}
}

func TestPoll_Count_RowsAddedAfterTheFirstPoll(t *testing.T) {
	t.Parallel()
	e := newPollEnv(t)
	conn := e.connect()
	e.fake.rows = [][]any{{"name", "email"}, {"Ann", "ann@example.com"}}
	tr := e.create(conn, "pollme_row_added", map[string]any{"sheet": "s1"})
	e.round()
	wantFired(t, e.fired(tr.ID))
	e.fake.mu.Lock()
	e.fake.rows = append(e.fake.rows, []any{"Bob", "bob@example.com"}, []any{"Cy", "cy@example.com"})
	e.fake.mu.Unlock()
	e.clock.Advance(time.Minute)
	e.round()
	e.clock.Advance(time.Minute)
	e.round()
	wantFired(t, e.fired(tr.ID), "row3", "row4")
	if e.fake.callCount("/api/sheets/s1/values") != 3 {
		t.Fatalf("calls %v", e.fake.calls)
	}
}

func TestPoll_Restart_CursorSurvives_NothingReemitted(t *testing.T) {
	t.Parallel()
	e := newPollEnv(t)
	conn := e.connect()
	tr := e.create(conn, "pollme_item_created", nil)
	e.fake.addItem("a", e.clock.Now().Add(time.Second), "")
	e.clock.Advance(time.Minute)
	e.round()
	wantFired(t, e.fired(tr.ID), "a")

	e.restart()
	e.fake.addItem("b", e.clock.Now().Add(time.Second), "")
	e.clock.Advance(time.Minute)
	e.round()
	wantFired(t, e.fired(tr.ID), "a", "b")

	// A process that dies holding a trigger: nobody polls it until its
	// lease runs out, then another process does, emitting nothing twice.
	e.fake.addItem("c", e.clock.Now().Add(time.Second), "")
	e.clock.Advance(time.Minute)
	if got, err := e.store.ClaimPolls(context.Background(), "dead-process", 10, 2*time.Minute); err != nil || len(got) != 1 {
		t.Fatalf("claim: %v %v", got, err)
	}
	e.restart()
	if n := e.round(); n != 0 {
		t.Fatalf("a leased trigger was polled by another process (%d)", n)
	}
	e.clock.Advance(2*time.Minute + time.Millisecond)
	e.round()
	wantFired(t, e.fired(tr.ID), "a", "b", "c")
	if err := e.store.FinishPoll(context.Background(), tr.ID, "dead-process", "{}", e.clock.Now(), 0, ""); !errors.Is(err, store.ErrLeaseLost) {
		t.Fatalf("the dead process could still write: %v", err)
	}
}

func TestPoll_RateLimited_WaitsForRetryAfter(t *testing.T) {
	t.Parallel()
	e := newPollEnv(t)
	conn := e.connect()
	tr := e.create(conn, "pollme_item_created", nil)
	e.fake.failNext(fakeFailure{status: 429, retryAfter: "300"})
	start := e.clock.Now()
	e.round()
	st := e.state(tr.ID)
	if st.Failures != 1 || !strings.Contains(st.LastError, "429") || !st.NextDueAt.Equal(start.Add(300*time.Second)) {
		t.Fatalf("after 429: %+v", st)
	}
	e.clock.Advance(299 * time.Second)
	if n := e.round(); n != 0 {
		t.Fatalf("polled before Retry-After (%d)", n)
	}
	e.fake.addItem("a", e.clock.Now(), "")
	e.clock.Advance(time.Second)
	e.round()
	wantFired(t, e.fired(tr.ID), "a")
	if st := e.state(tr.ID); st.Failures != 0 || st.LastError != "" || !st.NextDueAt.Equal(e.clock.Now().Add(time.Minute)) {
		t.Fatalf("after recovering: %+v", st)
	}

	// A Retry-After shorter than the provider's floor waits the floor; an
	// HTTP date is read too.
	e.clock.Advance(time.Minute)
	e.fake.failNext(fakeFailure{status: 429, retryAfter: "1"})
	e.round()
	if st := e.state(tr.ID); !st.NextDueAt.Equal(e.clock.Now().Add(time.Minute)) {
		t.Fatalf("Retry-After under the floor: due %v", st.NextDueAt)
	}
	e.clock.Advance(time.Minute)
	e.fake.failNext(fakeFailure{status: 429, retryAfter: e.clock.Now().Add(10 * time.Minute).Format(http.TimeFormat)})
	e.round()
	if st := e.state(tr.ID); !st.NextDueAt.Equal(e.clock.Now().Add(10 * time.Minute)) {
		t.Fatalf("Retry-After as a date: due %v", st.NextDueAt)
	}
}

func TestPoll_ServerErrors_BackOffDoubling_ResetOnSuccess(t *testing.T) {
	t.Parallel()
	e := newPollEnv(t)
	conn := e.connect()
	tr := e.create(conn, "pollme_item_created", nil)
	e.fake.failNext(fakeFailure{status: 503}, fakeFailure{status: 500}, fakeFailure{status: 502})
	for i, want := range []time.Duration{2 * time.Minute, 4 * time.Minute, 8 * time.Minute} {
		before := e.fake.callCount("/api/items")
		e.round()
		st := e.state(tr.ID)
		if e.fake.callCount("/api/items") != before+1 || st.Failures != i+1 || !st.NextDueAt.Equal(e.clock.Now().Add(want)) ||
			!strings.Contains(st.LastError, "HTTP 50") {
			t.Fatalf("failure %d: %+v", i+1, st)
		}
		e.clock.Advance(want - time.Second)
		if n := e.round(); n != 0 {
			t.Fatalf("polled during the backoff after failure %d", i+1)
		}
		e.clock.Advance(time.Second)
	}
	e.round()
	if st := e.state(tr.ID); st.Failures != 0 || !st.NextDueAt.Equal(e.clock.Now().Add(time.Minute)) {
		t.Fatalf("after success: %+v", st)
	}
	if backoff(time.Minute, 30) != MaxPollBackoff {
		t.Fatalf("backoff is not bounded: %v", backoff(time.Minute, 30))
	}
}

func TestPoll_ReauthRequired_PausesUntilReconnected(t *testing.T) {
	t.Parallel()
	e := newPollEnv(t)
	ctx := context.Background()
	id := store.NewID()
	sealed, err := e.accounts.SealClientSecret(id, "client-secret")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.CreateAuthConfig(ctx, store.AuthConfig{ID: id, ProjectID: e.project.ID, ConnectorID: "pollme",
		Key: "pollme-oauth", AuthMethodID: "oauth2", AuthType: "oauth2", ClientID: "client", ClientSecret: sealed, Hosts: []string{e.fake.host()}}); err != nil {
		t.Fatal(err)
	}
	cred := func(access string) json.RawMessage {
		raw, _ := json.Marshal(map[string]any{"type": "oauth2", "accessToken": access, "refreshToken": "r",
			"expiresAt": e.clock.Now().Add(time.Hour), "host": e.fake.host()})
		return raw
	}
	conn, err := e.accounts.Create(ctx, e.tenant(), account.CreateRequest{ConnectorID: "pollme", UserID: "u1", Credential: cred("access-0"),
		AuthConfigKey: "pollme-oauth"})
	if err != nil {
		t.Fatal(err)
	}
	tr := e.create(conn, "pollme_item_created", nil)
	e.round()
	if st := e.state(tr.ID); st.Failures != 0 {
		t.Fatalf("first poll: %+v", st)
	}

	// The user revokes the app: 401, then the refresh is refused.
	e.fake.mu.Lock()
	e.fake.revoked = true
	e.fake.mu.Unlock()
	e.clock.Advance(time.Minute)
	e.round()
	if c, _ := e.store.GetConnection(ctx, e.project.ID, conn.ID); c.Status != store.StatusReauthRequired {
		t.Fatalf("connection status %q", c.Status)
	}
	calls := e.fake.callCount("/api/items")
	for range 5 {
		e.clock.Advance(10 * time.Minute)
		if n := e.round(); n != 0 {
			t.Fatalf("a trigger of a connection that must be reconnected was polled")
		}
	}
	if e.fake.callCount("/api/items") != calls {
		t.Fatal("the provider was called while the trigger was paused")
	}

	// Reconnected: the trigger resumes at once, from where it was.
	e.fake.mu.Lock()
	e.fake.revoked = false
	e.fake.mu.Unlock()
	e.fake.addItem("after", e.clock.Now(), "")
	c, _ := e.store.GetConnection(ctx, e.project.ID, conn.ID)
	if _, err := e.accounts.Rotate(ctx, e.tenant(), conn.ID, cred("access-9"), c.Revision); err != nil {
		t.Fatal(err)
	}
	if n := e.round(); n != 1 {
		t.Fatalf("the reconnected trigger was not polled (%d)", n)
	}
	wantFired(t, e.fired(tr.ID), "after")
}

func TestPoll_ErrorsAnswer_IsAFailureNotAnEmptyList(t *testing.T) {
	t.Parallel()
	e := newPollEnv(t)
	conn := e.connect()
	tr := e.create(conn, "pollme_item_created", nil)
	e.fake.mu.Lock()
	e.fake.answers = []string{`{"errors":[{"message":"no such board"}]}`, `{"items":"not a list"}`}
	e.fake.mu.Unlock()
	e.round()
	if st := e.state(tr.ID); st.Failures != 1 || !strings.Contains(st.LastError, "errors") {
		t.Fatalf("after an errors answer: %+v", st)
	}
	e.clock.Advance(2 * time.Minute)
	e.round()
	if st := e.state(tr.ID); st.Failures != 2 || !strings.Contains(st.LastError, "no list of items") {
		t.Fatalf("after an answer without a list: %+v", st)
	}
}

func TestPoll_DeletingTheTriggerEndsItsPolls(t *testing.T) {
	t.Parallel()
	e := newPollEnv(t)
	conn := e.connect()
	tr := e.create(conn, "pollme_item_created", nil)
	if err := e.svc.Delete(context.Background(), e.tenant(), tr.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.GetPollState(context.Background(), tr.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("poll state after delete: %v", err)
	}
	if n := e.round(); n != 0 || e.fake.callCount("/api/items") != 0 {
		t.Fatalf("a deleted trigger was polled")
	}
}

// TestPoll_TwoReplicasOnPostgres: two processes (stores and pollers) on one
// database poll together; every trigger is polled by one of them per due
// time, and every item is emitted once.
func TestPoll_TwoReplicasOnPostgres(t *testing.T) {
	t.Parallel()
	e := newPollEnvOn(t, storetest.PostgresSchemaURL(t))
	other := e.newPoller()
	// The second replica has a store of its own on the same database.
	st2, err := store.Open(context.Background(), e.dbURL, store.Options{Now: e.clock.Now, MaxConns: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st2.Close() })
	other.Store = st2
	conn := e.connect()
	const triggers, rounds = 6, 5
	var trs []store.Trigger
	for i := range triggers {
		trs = append(trs, e.create(conn, "pollme_item_created", map[string]any{"tag": "t" + strconv.Itoa(i)}))
	}
	want := map[string][]string{}
	for r := range rounds {
		for i, tr := range trs {
			id := "r" + strconv.Itoa(r) + "-t" + strconv.Itoa(i)
			e.fake.addItem(id, e.clock.Now(), "t"+strconv.Itoa(i))
			want[tr.ID] = append(want[tr.ID], id)
		}
		e.clock.Advance(time.Minute)
		var wg sync.WaitGroup
		polled := make([]int, 2)
		for k, p := range []*Poller{e.poller, other} {
			wg.Go(func() {
				for {
					n, err := p.RunOnce(context.Background())
					if err != nil {
						t.Error(err)
					}
					if n == 0 {
						return
					}
					polled[k] += n
				}
			})
		}
		wg.Wait()
		if polled[0]+polled[1] != triggers {
			t.Fatalf("round %d: replicas polled %v, want %d in all", r, polled, triggers)
		}
	}
	for i, tr := range trs {
		wantFired(t, e.fired(tr.ID), want[tr.ID]...)
		if n := e.fake.callsByTag["t"+strconv.Itoa(i)]; n != rounds {
			t.Errorf("trigger %d: its list was called %d times in %d rounds", i, n, rounds)
		}
	}
}

// TestPoll_Upcoming_EventsStartingSoonOnceEach: an upcoming cursor emits
// each event once when its start comes within the lead (the trigger's own
// lead when its config sets one), soonest first; an event under way is not
// news, one added late that began since the previous poll is, and one moved
// to another start is due again.
func TestPoll_Upcoming_EventsStartingSoonOnceEach(t *testing.T) {
	t.Parallel()
	e := newPollEnv(t)
	conn := e.connect()
	now := e.clock.Now()
	e.fake.addItem("under-way", now.Add(-10*time.Minute), "")
	e.fake.addItem("soon", now.Add(5*time.Minute), "")
	e.fake.addItem("later", now.Add(40*time.Minute), "")
	e.fake.addItem("far", now.Add(3*time.Hour), "")
	tr := e.create(conn, "pollme_event_starting", nil)
	hour := e.create(conn, "pollme_event_starting", map[string]any{"minutes": 60})
	day := e.create(conn, "pollme_event_starting", map[string]any{"minutes": 1440})

	e.round()
	wantFired(t, e.fired(tr.ID), "soon")
	wantFired(t, e.fired(hour.ID), "soon", "later")
	wantFired(t, e.fired(day.ID), "soon", "later", "far")
	var untils []string
	for _, q := range e.fake.queries {
		if q.Get("from") != now.Format(time.RFC3339) {
			t.Fatalf("from=%q, want the poll's time", q.Get("from"))
		}
		untils = append(untils, q.Get("until"))
	}
	slices.Sort(untils)
	if want := []string{now.Add(15 * time.Minute).Format(time.RFC3339), now.Add(time.Hour).Format(time.RFC3339), now.Add(24 * time.Hour).Format(time.RFC3339)}; !slices.Equal(untils, want) {
		t.Fatalf("until=%v, want %v", untils, want)
	}

	// Nothing new a minute later; an event added late that began between
	// two polls is still announced once.
	e.clock.Advance(time.Minute)
	e.round()
	e.fake.addItem("quick", now.Add(90*time.Second), "")
	e.clock.Advance(time.Minute)
	e.round()
	e.clock.Advance(time.Minute)
	e.round()
	wantFired(t, e.fired(tr.ID), "soon", "quick")

	// Later: the moved event is due again at its new start, before the
	// one after it; none that were announced come again.
	e.fake.moveItem("soon", now.Add(35*time.Minute))
	e.clock.Advance(23 * time.Minute)
	e.round()
	wantFired(t, e.fired(tr.ID), "soon", "quick", "soon", "later")
	e.clock.Advance(time.Minute)
	e.round()
	wantFired(t, e.fired(tr.ID), "soon", "quick", "soon", "later")

	// Well over an hour on, an event announced at the first poll and still
	// ahead is not announced again.
	e.clock.Advance(70 * time.Minute)
	e.round()
	wantFired(t, e.fired(day.ID), "soon", "later", "far", "quick", "soon")
}
