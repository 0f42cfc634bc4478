package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/execlog"
	"github.com/switchboard-gw/switchboard/internal/logging"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// origin is the request as the execution log records its tool calls: when
// it arrived, its API key and its request id.
func origin(r *http.Request) execlog.Origin {
	o := execlog.Origin{RequestID: logging.RequestID(r.Context())}
	if info := infoFrom(r.Context()); info != nil {
		o.Start, o.APIKeyID = info.start, info.keyID
	}
	if o.Start.IsZero() {
		o.Start = time.Now()
	}
	return o
}

// proxyInput is what the log stores as a proxy call's input when the
// project stores payloads: the request without its headers.
type proxyInput struct {
	Method   string          `json:"method"`
	Endpoint string          `json:"endpoint"`
	Query    map[string]any  `json:"query,omitempty"`
	Body     json.RawMessage `json:"body,omitempty"`
}

// logCall finishes a REST call's log entry with its outcome (and, when the
// project stores payloads, the answer) and queues it.
func (s *Server) logCall(rec *execlog.Entry, result any, err error) {
	if s.execlog == nil {
		return
	}
	rec.Outcome = execlog.Outcome(err)
	if rec.Payloads {
		if err == nil {
			rec.Output = result
		} else if e, ok := apierr.As(err); ok {
			rec.Output = e.Envelope()
		}
	}
	s.execlog.Add(rec)
}

// logView is one execution log record as GET /v1/logs shows it.
type logView struct {
	ID             string          `json:"id"`
	CreatedAt      time.Time       `json:"createdAt"`
	UserID         string          `json:"userId"`
	ConnectorID    *string         `json:"connectorId"`
	Tool           *string         `json:"tool"`
	ConnectionID   *string         `json:"connectionId"`
	SessionID      *string         `json:"sessionId"`
	EndpointID     *string         `json:"endpointId"`
	APIKeyID       *string         `json:"apiKeyId"`
	Outcome        string          `json:"outcome"`
	ProviderStatus *int            `json:"providerStatus"`
	DurationMs     float64         `json:"durationMs"`
	ProviderMs     float64         `json:"providerMs"`
	RequestID      *string         `json:"requestId"`
	Input          json.RawMessage `json:"input,omitempty"`
	Output         json.RawMessage `json:"output,omitempty"`
	// Policy is the policy decision behind the call, when a rule (or the
	// project's default) decided it or an approval was spent.
	Policy json.RawMessage `json:"policy,omitempty"`
	// Deliveries are the webhook deliveries the call caused (an
	// approval.requested event of a call held for approval).
	Deliveries []logDelivery `json:"deliveries"`
}

// logDelivery is a webhook delivery as a log record lists it; GET
// /v1/webhooks/:webhookId/deliveries shows its attempts.
type logDelivery struct {
	ID        string    `json:"id"`
	WebhookID string    `json:"webhookId"`
	Event     string    `json:"event"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"createdAt"`
}

// withDeliveries adds to views the deliveries their calls caused, in one
// query.
func (s *Server) withDeliveries(r *http.Request, projectID string, views []logView) error {
	ids := make([]string, len(views))
	for i, v := range views {
		ids[i] = v.ID
	}
	caused, err := s.store.DeliveriesCausedBy(r.Context(), projectID, ids)
	if err != nil {
		return err
	}
	for i := range views {
		views[i].Deliveries = []logDelivery{}
		for _, d := range caused[views[i].ID] {
			views[i].Deliveries = append(views[i].Deliveries, logDelivery{ID: d.ID, WebhookID: d.WebhookID, Event: d.EventType, Status: d.Status, CreatedAt: d.CreatedAt})
		}
	}
	return nil
}

func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

func newLogView(r store.LogRecord) logView {
	v := logView{
		ID: r.ID, CreatedAt: r.CreatedAt, UserID: r.UserID, ConnectorID: orNull(r.ConnectorID), Tool: orNull(r.Tool),
		ConnectionID: orNull(r.ConnectionID), SessionID: orNull(r.SessionID), EndpointID: orNull(r.EndpointID),
		APIKeyID: orNull(r.APIKeyID), Outcome: r.Outcome, RequestID: orNull(r.RequestID),
		DurationMs: float64(r.TotalMicros) / 1000, ProviderMs: float64(r.ProviderMicros) / 1000,
	}
	if r.ProviderStatus != 0 {
		v.ProviderStatus = &r.ProviderStatus
	}
	if r.Input != nil && json.Valid([]byte(*r.Input)) {
		v.Input = json.RawMessage(*r.Input)
	}
	if r.Output != nil && json.Valid([]byte(*r.Output)) {
		v.Output = json.RawMessage(*r.Output)
	}
	if r.Policy != nil && json.Valid([]byte(*r.Policy)) {
		v.Policy = json.RawMessage(*r.Policy)
	}
	return v
}

// handleLogList is GET /v1/logs: the project's execution log, newest
// first, one page at a time (cursor as every paginated list).
func (s *Server) handleLogList(w http.ResponseWriter, r *http.Request) error {
	records, next, err := s.logPage(r.Context(), tenantOf(r).ProjectID, r.URL.Query())
	if err != nil {
		return err
	}
	views := make([]logView, len(records))
	for i, rec := range records {
		views[i] = newLogView(rec)
	}
	if err := s.withDeliveries(r, tenantOf(r).ProjectID, views); err != nil {
		return err
	}
	respondPage(w, views, next, nil)
	return nil
}

// logPage reads one page of a project's execution log with the filters of
// GET /v1/logs (userId, connectorId, toolId, outcome, since, until,
// cursor, limit); next is the cursor of the following page, or "". The
// dashboard's log screen reads its pages here too.
func (s *Server) logPage(ctx context.Context, pid string, q url.Values) ([]store.LogRecord, string, error) {
	var issues apierr.Issues
	f := store.LogFilter{
		ProjectID:   pid,
		UserID:      queryText(q, "userId", 1, 256, &issues),
		ConnectorID: queryText(q, "connectorId", 1, 200, &issues),
		Tool:        queryText(q, "toolId", 1, 200, &issues),
		Outcome:     queryText(q, "outcome", 1, 64, &issues),
		Since:       queryTime(q, "since", &issues),
		Until:       queryTime(q, "until", &issues),
	}
	if !f.Since.IsZero() && !f.Until.IsZero() && !f.Until.After(f.Since) {
		issues.Add(apierr.IssueInvalidValue, []any{"until"}, "must be after since")
	}
	page := parsePage(q, "logs", pid, &issues)
	if page.After != "" {
		at, id, ok := strings.Cut(page.After, "/")
		ms, err := strconv.ParseInt(at, 10, 64)
		if !ok || err != nil || id == "" {
			issues.Add(apierr.IssueInvalidValue, []any{"cursor"}, "is not a cursor this list returned; pass the nextCursor of the previous page, or start again without one")
		}
		f.AfterAt, f.AfterID = ms, id
	}
	if err := issues.Err(); err != nil {
		return nil, "", err
	}
	// One more than a page tells whether another page follows.
	f.Limit = page.Limit + 1
	records, err := s.store.ListLogRecords(ctx, f)
	if err != nil {
		return nil, "", err
	}
	next := ""
	if len(records) > page.Limit {
		records = records[:page.Limit]
		last := records[len(records)-1]
		next = encodeCursor("logs", pid, strconv.FormatInt(last.CreatedAt.UnixMilli(), 10)+"/"+last.ID)
	}
	return records, next, nil
}

// logRecord is GET /v1/logs/:id's record; another project's is not found.
func (s *Server) logRecord(ctx context.Context, pid, id string) (store.LogRecord, error) {
	rec, err := s.store.GetLogRecord(ctx, pid, id)
	if errors.Is(err, store.ErrNotFound) {
		return rec, apierr.New(apierr.NotFound, "no log record %q in this project", id)
	}
	return rec, err
}

// handleLogGet is GET /v1/logs/:id. Another project's record is not found.
func (s *Server) handleLogGet(w http.ResponseWriter, r *http.Request) error {
	rec, err := s.logRecord(r.Context(), tenantOf(r).ProjectID, r.PathValue("id"))
	if err != nil {
		return err
	}
	views := []logView{newLogView(rec)}
	if err := s.withDeliveries(r, tenantOf(r).ProjectID, views); err != nil {
		return err
	}
	respond(w, http.StatusOK, views[0])
	return nil
}

// queryTime reads an RFC 3339 time; absent is the zero time.
func queryTime(q map[string][]string, name string, issues *apierr.Issues) time.Time {
	vs, ok := q[name]
	if !ok || len(vs) == 0 {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, vs[0])
	if err != nil {
		issues.Add(apierr.IssueInvalidValue, []any{name}, "must be an RFC 3339 time such as 2026-01-02T15:04:05Z")
		return time.Time{}
	}
	return t
}
