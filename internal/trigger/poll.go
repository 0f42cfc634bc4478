package trigger

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
	"github.com/switchboard-gw/switchboard/internal/webhook"
)

// MaxPollBackoff bounds the wait after failed polls in a row.
const MaxPollBackoff = time.Hour

// Caller sends one request to a connection's provider with its credential
// (execute.Executor.CallAPI).
type Caller interface {
	CallAPI(ctx context.Context, t tenant.Tenant, connectionID, method, path string, body any, form bool) (any, error)
}

// PollerOptions configure a Poller.
type PollerOptions struct {
	Store   *store.Store
	Catalog *catalog.Catalog
	Caller  Caller
	// TenantFunc loads a project's tenant (upstream.Catalogs.Load).
	TenantFunc func(ctx context.Context, projectID string) (tenant.Tenant, error)
	Logger     *slog.Logger
	// Notify wakes the local delivery worker after an enqueue.
	Notify func()
	Now    func() time.Time
}

// Poller calls the list endpoints of poll triggers when they are due and
// fires trigger.fired for each new item. Several pollers (replicas) may
// run against one database: a claimed trigger is leased to one of them.
type Poller struct {
	PollerOptions
	owner string
	// Batch, Lease and Tick tune claiming: how many triggers one round
	// claims, how long a claim lasts, and the idle wait between rounds.
	Batch int
	Lease time.Duration
	Tick  time.Duration
	// CallTimeout bounds one poll's provider calls (below Lease).
	CallTimeout time.Duration
}

// NewPoller returns a Poller.
func NewPoller(o PollerOptions) *Poller {
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Notify == nil {
		o.Notify = func() {}
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	var b [8]byte
	_, _ = rand.Read(b[:])
	return &Poller{PollerOptions: o, owner: "poller-" + hex.EncodeToString(b[:]), Batch: 16, Lease: 2 * time.Minute,
		Tick: 5 * time.Second, CallTimeout: time.Minute}
}

// Run polls due triggers until ctx ends.
func (p *Poller) Run(ctx context.Context) {
	for {
		n, err := p.RunOnce(ctx)
		if err != nil && ctx.Err() == nil {
			p.Logger.ErrorContext(ctx, "trigger poller", "error", err.Error())
		}
		if n >= p.Batch {
			continue // more may be due
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(p.Tick):
		}
	}
}

// RunOnce claims one batch of due triggers, polls them concurrently and
// records the outcomes. It returns how many it polled.
func (p *Poller) RunOnce(ctx context.Context) (int, error) {
	// A read first: claiming is a write, and most rounds find nothing due.
	due, some, err := p.Store.NextPollDue(ctx)
	if err != nil || !some || due.After(p.Now()) {
		return 0, err
	}
	batch, err := p.Store.ClaimPolls(ctx, p.owner, p.Batch, p.Lease)
	if err != nil || len(batch) == 0 {
		return 0, err
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 4)
	for _, st := range batch {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			p.pollOne(ctx, st)
		})
	}
	wg.Wait()
	return len(batch), nil
}

// pollOne polls one claimed trigger and records the outcome.
func (p *Poller) pollOne(ctx context.Context, st store.PollState) {
	start := p.Now()
	t, err := p.Store.TriggerByID(ctx, st.TriggerID)
	if errors.Is(err, store.ErrNotFound) {
		return // deleted meanwhile; its poll state went with it
	}
	if err != nil {
		p.finish(ctx, st, st.Cursor, start.Add(p.Tick), st.Failures, "the trigger could not be read")
		return
	}
	def, ok := p.Catalog.Trigger(t.Event)
	if !ok || !def.Polled() {
		p.finish(ctx, st, st.Cursor, start.Add(MaxPollBackoff), st.Failures+1, "the catalog no longer defines "+t.Event+" as a poll trigger")
		return
	}
	pl := def.Poll
	cur, err := parseCursor(st.Cursor)
	if err != nil {
		// Start over from a fresh position rather than stall for good.
		p.Logger.WarnContext(ctx, "a poll cursor was unreadable; the trigger starts over", "trigger_id", t.ID)
		cur = cursorState{}
		if pl.Cursor.Type == catalog.CursorTimestamp {
			cur, _ = parseCursor(initialCursor(def, start))
		}
	}
	cctx, cancel := context.WithTimeout(ctx, p.CallTimeout)
	defer cancel()
	next, more, err := p.poll(cctx, t, pl, cur, start)
	if err != nil && ctx.Err() != nil {
		// Shutting down: release the trigger as it was, due at once.
		p.finish(ctx, st, st.Cursor, start, st.Failures, st.LastError)
		return
	}
	if err != nil {
		p.failed(ctx, st, t, pl, cur, start, err)
		return
	}
	due := start.Add(time.Duration(pl.Interval))
	if more {
		due = start
	}
	p.finish(ctx, st, next.String(), due, 0, "")
}

// poll makes the calls of one poll and fires the new items; it returns
// the cursor after them and whether more pages wait.
func (p *Poller) poll(ctx context.Context, t store.Trigger, pl *catalog.Poll, cur cursorState, start time.Time) (cursorState, bool, error) {
	tn, err := p.TenantFunc(ctx, t.ProjectID)
	if err != nil {
		return cur, false, err
	}
	vars := pollVars{}
	var cfg map[string]any
	_ = json.Unmarshal(t.Config, &cfg)
	for k, v := range cfg {
		vars[k] = configText(v)
	}
	if pl.Cursor.Type == catalog.CursorToken && cur.Token == "" {
		// The first poll only learns where the provider stands now.
		s := pl.Cursor.Start
		var body any
		if len(s.Body) > 0 {
			body = pollBody(s.Body, vars)
		}
		res, err := p.Caller.CallAPI(ctx, tn, t.ConnectionID, s.Method, pollTarget(s.Path, s.Query, vars), body, false)
		if err != nil {
			return cur, false, err
		}
		tok := text(catalog.SelectPath(res, s.Token))
		if tok == "" {
			return cur, false, fmt.Errorf("the answer to %s has no token at %s", s.Path, s.Token)
		}
		return cursorState{Token: tok, Placed: true}, false, nil
	}
	until := vars.setCursor(pl.Cursor, cur, cfg, start)
	var body any
	if len(pl.Body) > 0 {
		body = pollBody(pl.Body, vars)
	}
	res, err := p.Caller.CallAPI(ctx, tn, t.ConnectionID, pl.Method, pollTarget(pl.Path, pl.Query, vars), body, false)
	if err != nil {
		return cur, false, err
	}
	raw := res
	if pl.Items != "" {
		raw = catalog.SelectPath(res, pl.Items)
	}
	items, ok := raw.([]any)
	if raw != nil && !ok {
		return cur, false, fmt.Errorf("the answer has no list of items at %s", pl.Items)
	}
	if m, isMap := res.(map[string]any); raw == nil && isMap && m["errors"] != nil {
		// A GraphQL answer that failed: an error, not an empty list.
		return cur, false, errors.New("the provider answered with errors and no items")
	}
	fresh, next, err := newItems(pl, cur, items, start, until)
	if err != nil {
		return cur, false, err
	}
	more := false
	if pl.Cursor.Type == catalog.CursorToken {
		for _, path := range pl.Cursor.Next {
			if tok := text(catalog.SelectPath(res, path)); tok != "" {
				next.Token = tok
				break
			}
		}
		if pl.Cursor.More != "" {
			m := catalog.SelectPath(res, pl.Cursor.More)
			more = m == true || text(m) != ""
		}
		if next.Token == cur.Token && !more && len(pl.Cursor.Next) > 0 && text(catalog.SelectPath(res, pl.Cursor.Next[0])) == "" {
			// No next position at all: keep the token, but say so.
			p.Logger.WarnContext(ctx, "a poll answer named no next token; the trigger keeps its position", "trigger_id", t.ID)
		}
	}
	fired := 0
	for _, it := range fresh {
		n, err := p.fire(ctx, t, it)
		if err != nil {
			// Nothing moves: the next poll sees the same items, and those
			// fired already are refused as repeats by their key.
			return cur, false, err
		}
		fired += n
	}
	if fired > 0 {
		p.Notify()
	}
	return next, more, nil
}

// fire emits one item as trigger.fired through the same path as a webhook
// delivery; a key already fired within the hour fires nothing.
func (p *Poller) fire(ctx context.Context, t store.Trigger, it polledItem) (int, error) {
	payload, err := json.Marshal(it.payload)
	if err != nil {
		return 0, err
	}
	// A polled item has no provider delivery; the deliveries name the event.
	cause := store.EventCause{EventID: newEventID()}
	ids, err := p.Store.FireTrigger(ctx, t, "poll:"+digestOf(it.key), webhook.EventTriggerFired, cause, func() ([]byte, error) {
		return firedEvent(t, cause.EventID, p.Now(), payload)
	})
	switch {
	case errors.Is(err, store.ErrReplayed):
		return 0, nil
	case errors.Is(err, store.ErrUncounted):
		p.Logger.WarnContext(ctx, "a trigger fired but its fire count was not updated", "trigger_id", t.ID, "error", err.Error())
	case err != nil:
		return 0, err
	}
	return len(ids), nil
}

// failed records a failed poll: after a rate limit, not before the
// provider's Retry-After; otherwise after a wait that doubles with every
// failure in a row, up to MaxPollBackoff. A token the provider no longer
// accepts (410 Gone) is dropped, so the next poll starts afresh.
func (p *Poller) failed(ctx context.Context, st store.PollState, t store.Trigger, pl *catalog.Poll, cur cursorState, start time.Time, err error) {
	failures := st.Failures + 1
	wait := backoff(time.Duration(pl.Interval), failures)
	cause := "the poll failed"
	var ae *apierr.Error
	switch {
	case errors.As(err, &ae) && ae.Code == apierr.ReauthRequired:
		// The connection is marked for reconnection: the trigger is not
		// claimed until it is reconnected.
		cause, wait = "the connection must be reconnected", time.Duration(pl.Interval)
	case errors.As(err, &ae) && ae.Upstream != nil && ae.Upstream.Status == http.StatusTooManyRequests:
		cause = "the provider is rate limiting (HTTP 429)"
		if ra, ok := retryAfter(ae.RetryAfter, start); ok {
			wait = ra
		}
	case errors.As(err, &ae) && ae.Upstream != nil && ae.Upstream.Status == http.StatusGone && pl.Cursor.Type == catalog.CursorToken:
		cause, cur = "the provider no longer accepts the stored token; the trigger starts over", cursorState{}
	case errors.As(err, &ae) && ae.Upstream != nil && ae.Upstream.Status > 0:
		cause = "the provider answered HTTP " + strconv.Itoa(ae.Upstream.Status)
	case errors.As(err, &ae):
		cause = ae.Message
	default:
		cause = err.Error()
	}
	wait = max(wait, pl.Floor())
	p.Logger.WarnContext(ctx, "a poll failed", "trigger_id", t.ID, "connector_id", t.ConnectorID, "failures", failures,
		"cause", cause, "next_poll_in", wait.String())
	p.finish(ctx, st, cur.String(), start.Add(wait), failures, cause)
}

func (p *Poller) finish(ctx context.Context, st store.PollState, cursor string, next time.Time, failures int, cause string) {
	err := p.Store.FinishPoll(context.WithoutCancel(ctx), st.TriggerID, p.owner, cursor, next, failures, cause)
	if errors.Is(err, store.ErrLeaseLost) {
		p.Logger.WarnContext(ctx, "a poll outlasted its lease; another process polls the trigger now", "trigger_id", st.TriggerID)
		return
	}
	if err != nil {
		p.Logger.ErrorContext(ctx, "could not record a poll", "trigger_id", st.TriggerID, "error", err.Error())
	}
}

// backoff is the wait after failures polls in a row failed: the interval
// doubled per failure, at most MaxPollBackoff.
func backoff(interval time.Duration, failures int) time.Duration {
	wait := interval
	for i := 0; i < failures && wait < MaxPollBackoff; i++ {
		wait *= 2
	}
	return min(wait, MaxPollBackoff)
}

// retryAfter reads a Retry-After value: seconds, or an HTTP date.
func retryAfter(v string, now time.Time) (time.Duration, bool) {
	if v == "" {
		return 0, false
	}
	if n, err := strconv.Atoi(v); err == nil && n >= 0 {
		return time.Duration(n) * time.Second, true
	}
	if t, err := http.ParseTime(v); err == nil {
		return t.Sub(now), true
	}
	return 0, false
}

// text reads a token or id value as text.
func text(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return ""
}

// newEventID is the id of a new event: the id in its deliveries' body.
func newEventID() string { return "evt_" + store.NewID() }

// firedEvent is the body of a trigger.fired delivery of t with payload,
// the event id.
func firedEvent(t store.Trigger, id string, now time.Time, payload json.RawMessage) ([]byte, error) {
	var user *string
	if t.UserID != "" {
		u := t.UserID
		user = &u
	}
	return json.Marshal(webhook.Event{Type: webhook.EventTriggerFired, ID: id, Timestamp: now.UTC(),
		Data: webhook.EventData{TriggerID: t.ID, ConnectionID: t.ConnectionID, ConnectorID: t.ConnectorID, UserID: user,
			Event: t.Event, Payload: payload}})
}
