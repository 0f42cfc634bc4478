// Package execlog keeps the execution log: one record for every tool call,
// however it arrived (REST execute and proxy, a session's REST and MCP
// calls, a project endpoint's MCP calls, the meta tools that act). A call
// fills an Entry as it goes and hands it to Add, which only copies it into a
// bounded queue; one goroutine drains the queue and writes batches. When
// the queue is full the record is dropped and counted, and the call goes on
// as if nothing happened (docs/execution-log.md).
//
// Inputs and outputs are recorded only for projects that opted in; they are
// redacted and capped by the writer, off the call's path.
package execlog

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/policy"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// Defaults of Options.
const (
	DefaultQueue     = 4096
	DefaultBatch     = 256
	DefaultInterval  = 100 * time.Millisecond
	DefaultSettings  = 10 * time.Second
	DefaultRetention = 30 * 24 * time.Hour
)

// Entry is one tool call as it is being recorded. Callers fill what they
// know: the entry path (session, endpoint, API key, request id, start), the
// executor adds the account, the provider's status and its time. Nothing in
// it is written until the writer takes it off the queue.
type Entry struct {
	// Start is when the request began; the gateway's total time runs from it.
	Start        time.Time
	ProjectID    string
	UserID       string
	ConnectorID  string
	Tool         string
	ConnectionID string
	SessionID    string
	EndpointID   string
	// APIKeyID is the key the call came with, or a name of the surface
	// that made it without one ("connect page", "dashboard").
	APIKeyID  string
	RequestID string
	// Outcome is "ok" or the code the caller was answered with; Add sets
	// "ok" when it is empty.
	Outcome        string
	ProviderStatus int
	// Provider is the time spent in provider requests (all attempts);
	// Total, set by Add, the gateway's whole time on the call from Start.
	Provider time.Duration
	Total    time.Duration
	// at is when the call began by the log's clock, set by Add.
	at time.Time
	// Payloads is set when the project stores inputs and outputs; Input
	// and Output are then the values as the call had them (never copied on
	// the call's path), encoded, redacted and capped by the writer.
	Payloads bool
	Input    any
	Output   any
	// Policy is the policy decision behind the call, set only when a rule
	// matched or an approval was involved; nil costs nothing.
	Policy *Decision
	// secrets are the values of the account's credential, redacted
	// wherever they appear in a payload.
	secrets []string
	// id is the record's id when something named the record before it
	// was written (an approval's deliveries, SetID); the writer gives every
	// other record its id. open is set by Log.Open: a log will write the
	// entry.
	id   string
	open bool
}

// Logged reports whether a log will write the entry's record, so that
// something may name it (false for a nil entry and when the log is off).
func (e *Entry) Logged() bool { return e != nil && e.open }

// SetID gives the record the id something already named it by; it does
// nothing for an entry no log will write.
func (e *Entry) SetID(id string) {
	if e.Logged() {
		e.id = id
	}
}

// ID is the id SetID gave the record, or "".
func (e *Entry) ID() string {
	if e == nil {
		return ""
	}
	return e.id
}

// Decision is a policy decision as the log stores it (JSON, the shape GET
// /v1/logs shows). It is the log's own copy: the executor fills it from the
// policy service's answer.
type Decision struct {
	// Decision is allow, ask or deny.
	Decision string `json:"decision"`
	// RuleID names the rule that decided (empty when the project's default
	// did) and Level where it was set: project, endpoint, session or default.
	RuleID string `json:"ruleId,omitempty"`
	Level  string `json:"level,omitempty"`
	// ApprovalID, Approver and ApprovalLatency are set when the call ran on
	// an approval: which one, who gave it, and how long after it was asked.
	ApprovalID      string        `json:"approvalId,omitempty"`
	Approver        string        `json:"approver,omitempty"`
	ApprovalLatency time.Duration `json:"-"`
}

// MarshalJSON writes the latency as approvalLatencyMs (when there was an
// approval).
func (d Decision) MarshalJSON() ([]byte, error) {
	type plain Decision
	out := struct {
		plain
		LatencyMs *int64 `json:"approvalLatencyMs,omitempty"`
	}{plain: plain(d)}
	if d.ApprovalID != "" {
		ms := d.ApprovalLatency.Milliseconds()
		out.LatencyMs = &ms
	}
	return json.Marshal(out)
}

// LogValue keeps an entry's payloads and secrets out of logs.
func (e Entry) LogValue() slog.Value {
	return slog.GroupValue(slog.String("tool", e.Tool), slog.String("outcome", e.Outcome))
}

// AddSecrets records values that must never appear in the entry's stored
// payloads (the account's credential). It does nothing unless payloads
// are stored.
func (e *Entry) AddSecrets(values ...string) {
	if e == nil || !e.Payloads {
		return
	}
	for _, v := range values {
		if len(v) >= minSecretLen {
			e.secrets = append(e.secrets, v)
		}
	}
}

// ProviderCall adds one provider request's time and status to the entry;
// a nil entry (no log) is ignored.
func (e *Entry) ProviderCall(status int, took time.Duration) {
	if e == nil {
		return
	}
	e.Provider += took
	if status != 0 {
		e.ProviderStatus = status
	}
}

// Outcome is the outcome of a call that ended with err: "ok", the error's
// code, or INTERNAL_ERROR for an error no caller is shown.
func Outcome(err error) string {
	if err == nil {
		return "ok"
	}
	if _, ok := errors.AsType[*policy.ApprovalRequiredError](err); ok {
		return "APPROVAL_REQUIRED" // held by an ask rule, answered 202
	}
	if e, ok := apierr.As(err); ok {
		return string(e.Code)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return "CANCELLED"
	}
	return string(apierr.InternalError)
}

// Options configure a Log.
type Options struct {
	Store  *store.Store
	Logger *slog.Logger
	Now    func() time.Time
	// Queue bounds the records waiting to be written; Batch is the most
	// written in one transaction; Interval is how long a record may wait
	// for a batch to fill.
	Queue    int
	Batch    int
	Interval time.Duration
	// Settings is how often the projects that store payloads are read again.
	Settings time.Duration
	// MaxPayload caps each stored input and output, in bytes.
	MaxPayload int
}

// Log is the execution log's queue and writer. A nil *Log records nothing,
// so parts built without one (tests) need no checks.
type Log struct {
	store      *store.Store
	log        *slog.Logger
	now        func() time.Time
	queue      chan Entry
	batch      int
	interval   time.Duration
	settingsEv time.Duration
	maxPayload int
	dropped    atomic.Uint64
	written    atomic.Uint64
	// payloads maps the projects that store payloads to their own redacted
	// field names; it is replaced whole, never changed in place.
	payloads atomic.Pointer[map[string][]string]
	// writeMu serializes writers: Run's loop and Flush.
	writeMu sync.Mutex
}

// New returns a Log; nothing is written until Run (or Flush).
func New(o Options) *Log {
	l := &Log{store: o.Store, log: o.Logger, now: o.Now, batch: o.Batch, interval: o.Interval,
		settingsEv: o.Settings, maxPayload: o.MaxPayload}
	if l.log == nil {
		l.log = slog.New(slog.DiscardHandler)
	}
	if l.now == nil {
		l.now = time.Now
	}
	if o.Queue <= 0 {
		o.Queue = DefaultQueue
	}
	if l.batch <= 0 {
		l.batch = DefaultBatch
	}
	if l.interval <= 0 {
		l.interval = DefaultInterval
	}
	if l.settingsEv <= 0 {
		l.settingsEv = DefaultSettings
	}
	if l.maxPayload <= 0 {
		l.maxPayload = DefaultMaxPayload
	}
	l.queue = make(chan Entry, o.Queue)
	empty := map[string][]string{}
	l.payloads.Store(&empty)
	return l
}

// Open readies an entry the entry path started for this log: it says
// whether the project stores payloads (Payloads) and lets RecordID name the
// record. On a nil Log (the log off) the entry stays closed.
func (l *Log) Open(e *Entry) {
	if l == nil || e == nil {
		return
	}
	e.open = true
	e.Payloads = l.Payloads(e.ProjectID)
}

// Payloads reports whether a project stores inputs and outputs. It reads
// what the writer last loaded (every Options.Settings), with no query.
func (l *Log) Payloads(projectID string) bool {
	if l == nil {
		return false
	}
	_, ok := (*l.payloads.Load())[projectID]
	return ok
}

// Add queues a finished entry: it sets the outcome "ok" when none was set
// and the total time from Start, and copies the entry into the queue. A
// full queue drops the record and counts it; Add never blocks.
func (l *Log) Add(e *Entry) {
	if l == nil || e == nil {
		return
	}
	if e.Outcome == "" {
		e.Outcome = "ok"
	}
	// Total is measured on the monotonic clock; the record's time is the
	// log's clock (injected in tests) less the call's duration.
	if e.Start.IsZero() {
		e.Start = time.Now()
	}
	e.Total = time.Since(e.Start)
	e.at = l.now().Add(-e.Total)
	select {
	case l.queue <- *e:
	default:
		l.dropped.Add(1)
	}
}

// Dropped is the number of records dropped because the queue was full.
func (l *Log) Dropped() uint64 {
	if l == nil {
		return 0
	}
	return l.dropped.Load()
}

// Written is the number of records written to the database.
func (l *Log) Written() uint64 {
	if l == nil {
		return 0
	}
	return l.written.Load()
}

// Queued is the number of records waiting to be written.
func (l *Log) Queued() int {
	if l == nil {
		return 0
	}
	return len(l.queue)
}

// Run loads the payload settings, then writes queued records in batches
// (when a batch is full, or every interval) until ctx ends, and then
// writes what is left. Close order: the listeners stop first, so no call
// adds records after Run returns. A nil Log (the log turned off) returns
// at once.
func (l *Log) Run(ctx context.Context) {
	if l == nil {
		return
	}
	l.LoadSettings(ctx)
	tick := time.NewTicker(l.interval)
	defer tick.Stop()
	settings := time.NewTicker(l.settingsEv)
	defer settings.Stop()
	buf := make([]Entry, 0, l.batch)
	// Writes are not cut by the stop: a batch taken off the queue is
	// written whole, and then what is left.
	wctx := context.WithoutCancel(ctx)
	for {
		select {
		case <-ctx.Done():
			l.write(wctx, buf)
			l.Flush(wctx)
			return
		case e := <-l.queue:
			buf = append(buf, e)
			if len(buf) >= l.batch {
				l.write(wctx, buf)
				buf = buf[:0]
			}
		case <-tick.C:
			buf = l.drain(buf)
			l.write(wctx, buf)
			buf = buf[:0]
		case <-settings.C:
			l.LoadSettings(ctx)
		}
	}
}

// drain moves what is queued now into buf, up to a batch.
func (l *Log) drain(buf []Entry) []Entry {
	for len(buf) < l.batch {
		select {
		case e := <-l.queue:
			buf = append(buf, e)
		default:
			return buf
		}
	}
	return buf
}

// Flush writes every record queued now, in batches.
func (l *Log) Flush(ctx context.Context) {
	if l == nil {
		return
	}
	buf := make([]Entry, 0, l.batch)
	for {
		buf = l.drain(buf[:0])
		if len(buf) == 0 {
			return
		}
		l.write(ctx, buf)
	}
}

// LoadSettings reads which projects store payloads. On an error the last
// answer stays.
func (l *Log) LoadSettings(ctx context.Context) {
	if l == nil {
		return
	}
	m, err := l.store.PayloadProjects(ctx)
	if err != nil {
		if ctx.Err() == nil {
			l.log.WarnContext(ctx, "could not read which projects log payloads", "error", err.Error())
		}
		return
	}
	l.payloads.Store(&m)
}

// write turns entries into rows and inserts them in one transaction. A
// failed write is logged and its records are lost: the log must never
// hold calls back.
func (l *Log) write(ctx context.Context, entries []Entry) {
	if len(entries) == 0 {
		return
	}
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	settings := *l.payloads.Load()
	rows := make([]store.LogRecord, len(entries))
	for i, e := range entries {
		id := e.id
		if id == "" {
			id = store.NewID()
		}
		rows[i] = store.LogRecord{
			ID: id, ProjectID: e.ProjectID, CreatedAt: e.at, UserID: cut(e.UserID, 256),
			ConnectorID: cut(e.ConnectorID, 200), Tool: cut(e.Tool, maxTool), ConnectionID: e.ConnectionID,
			SessionID: e.SessionID, EndpointID: e.EndpointID, APIKeyID: e.APIKeyID, Outcome: cut(e.Outcome, 64),
			ProviderStatus: e.ProviderStatus, TotalMicros: e.Total.Microseconds(),
			ProviderMicros: e.Provider.Microseconds(), RequestID: e.RequestID,
		}
		if e.Policy != nil {
			if b, err := json.Marshal(e.Policy); err == nil {
				p := string(b)
				rows[i].Policy = &p
			}
		}
		if e.Payloads {
			r := newRedactor(settings[e.ProjectID], e.secrets)
			rows[i].Input = r.encode(e.Input, l.maxPayload)
			rows[i].Output = r.encode(e.Output, l.maxPayload)
		}
		entries[i] = Entry{} // let the payloads go
	}
	if err := l.store.InsertLogRecords(ctx, rows); err != nil {
		l.log.WarnContext(ctx, "could not write execution log records", "error", err.Error(), "records", len(rows))
		return
	}
	l.written.Add(uint64(len(rows)))
}

// maxTool bounds the tool column (a proxy's method and endpoint).
const maxTool = 200

// cut shortens s to at most n bytes at a character boundary.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

// Origin is what the entry path knows of a call before it runs: when the
// request began, the API key it came with (or the surface that made it)
// and its request id.
type Origin struct {
	Start     time.Time
	APIKeyID  string
	RequestID string
}

// Entry starts the log entry of a call of userID in projectID.
func (o Origin) Entry(projectID, userID string) Entry {
	return Entry{Start: o.Start, ProjectID: projectID, UserID: userID, APIKeyID: o.APIKeyID, RequestID: o.RequestID}
}

// ProxyTool is what the log records as the tool of a raw proxy request:
// the method and the endpoint as sent, without its query string.
func ProxyTool(method, endpoint string) string {
	if i := strings.IndexByte(endpoint, '?'); i >= 0 {
		endpoint = endpoint[:i]
	}
	return cut(method+" "+endpoint, maxTool)
}
