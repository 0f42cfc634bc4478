package cli

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// logRow is one execution log record as `admin logs --json` prints it
// (the fields of GET /v1/logs).
type logRow struct {
	ID             string          `json:"id"`
	CreatedAt      time.Time       `json:"createdAt"`
	UserID         string          `json:"userId"`
	ConnectorID    string          `json:"connectorId,omitempty"`
	Tool           string          `json:"tool,omitempty"`
	ConnectionID   string          `json:"connectionId,omitempty"`
	SessionID      string          `json:"sessionId,omitempty"`
	EndpointID     string          `json:"endpointId,omitempty"`
	APIKeyID       string          `json:"apiKeyId,omitempty"`
	Outcome        string          `json:"outcome"`
	ProviderStatus int             `json:"providerStatus,omitempty"`
	DurationMs     float64         `json:"durationMs"`
	ProviderMs     float64         `json:"providerMs"`
	RequestID      string          `json:"requestId,omitempty"`
	Input          json.RawMessage `json:"input,omitempty"`
	Output         json.RawMessage `json:"output,omitempty"`
	// Policy is the decision of a policy rule or approval behind the call.
	Policy json.RawMessage `json:"policy,omitempty"`
	// Deliveries are the webhook deliveries the call caused.
	Deliveries []logDelivery `json:"deliveries"`
}

// logDelivery is a delivery a call caused, as GET /v1/logs lists it.
type logDelivery struct {
	ID        string    `json:"id"`
	WebhookID string    `json:"webhookId"`
	Event     string    `json:"event"`
	Status    string    `json:"status"`
	CreatedAt time.Time `json:"createdAt"`
}

// adminLogs prints a project's execution log, newest first:
// `admin logs --project ID [--user U] [--connector C] [--tool T]
// [--outcome O] [--since RFC3339] [--until RFC3339] [--limit N] [--json]`.
func (p *Program) adminLogs(ctx context.Context, args []string) error {
	a := p.adminFlags("logs")
	projectID := a.fs.String("project", "", "id of the project (required)")
	user := a.fs.String("user", "", "only this user's calls")
	connector := a.fs.String("connector", "", "only calls of this connector")
	tool := a.fs.String("tool", "", "only calls of this tool (for the proxy: \"METHOD /endpoint\")")
	outcome := a.fs.String("outcome", "", "only calls with this outcome: ok or a code")
	since := a.fs.String("since", "", "only calls at or after this time (RFC 3339)")
	until := a.fs.String("until", "", "only calls before this time (RFC 3339)")
	limit := a.fs.Int("limit", 50, "most records to print (1 to 500)")
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	if err := expectArgs(pos, 0, "admin logs --project ID [--user U] [--connector C] [--tool T] [--outcome O] [--since T] [--until T] [--limit N] [--json]"); err != nil {
		return err
	}
	if *projectID == "" {
		return usagef("--project is required")
	}
	if *limit < 1 || *limit > 500 {
		return usagef("--limit must be from 1 to 500")
	}
	f := store.LogFilter{ProjectID: *projectID, UserID: *user, ConnectorID: *connector, Tool: *tool, Outcome: *outcome, Limit: *limit}
	for _, t := range []struct {
		name, value string
		into        *time.Time
	}{{"since", *since, &f.Since}, {"until", *until, &f.Until}} {
		if t.value == "" {
			continue
		}
		v, err := time.Parse(time.RFC3339Nano, t.value)
		if err != nil {
			return usagef("--%s %q must be an RFC 3339 time such as 2026-01-02T15:04:05Z", t.name, t.value)
		}
		*t.into = v
	}
	st, err := a.openProject(ctx, *projectID)
	if err != nil {
		return err
	}
	defer st.Close()
	records, err := st.ListLogRecords(ctx, f)
	if err != nil {
		return err
	}
	ids := make([]string, len(records))
	for i, r := range records {
		ids[i] = r.ID
	}
	caused, err := st.DeliveriesCausedBy(ctx, *projectID, ids)
	if err != nil {
		return err
	}
	rows := make([]logRow, len(records))
	for i, r := range records {
		rows[i] = logRow{ID: r.ID, CreatedAt: r.CreatedAt, UserID: r.UserID, ConnectorID: r.ConnectorID, Tool: r.Tool,
			ConnectionID: r.ConnectionID, SessionID: r.SessionID, EndpointID: r.EndpointID, APIKeyID: r.APIKeyID,
			Outcome: r.Outcome, ProviderStatus: r.ProviderStatus, DurationMs: float64(r.TotalMicros) / 1000,
			ProviderMs: float64(r.ProviderMicros) / 1000, RequestID: r.RequestID, Input: rawJSON(r.Input), Output: rawJSON(r.Output), Policy: rawJSON(r.Policy),
			Deliveries: []logDelivery{}}
		for _, d := range caused[r.ID] {
			rows[i].Deliveries = append(rows[i].Deliveries, logDelivery{ID: d.ID, WebhookID: d.WebhookID, Event: d.EventType, Status: d.Status, CreatedAt: d.CreatedAt})
		}
	}
	return printList(p.Stdout, *a.asJSON, rows, "TIME\tUSER\tTOOL\tOUTCOME\tSTATUS\tMS\tPROVIDER MS\tVIA\tREQUEST\tDELIVERIES", func(r logRow) []any {
		via := "key " + r.APIKeyID
		switch {
		case r.SessionID != "":
			via = "session " + r.SessionID
		case r.EndpointID != "":
			via = "endpoint " + r.EndpointID
		}
		status := "-"
		if r.ProviderStatus != 0 {
			status = strconv.Itoa(r.ProviderStatus)
		}
		// The deliveries the call caused, as "event id" (admin webhook
		// deliveries shows their attempts).
		caused := "-"
		if len(r.Deliveries) > 0 {
			parts := make([]string, len(r.Deliveries))
			for i, d := range r.Deliveries {
				parts[i] = d.Event + " " + d.ID
			}
			caused = strings.Join(parts, ", ")
		}
		return []any{r.CreatedAt.Format(time.RFC3339Nano), r.UserID, r.Tool, r.Outcome, status,
			strconv.FormatFloat(r.DurationMs, 'f', 3, 64), strconv.FormatFloat(r.ProviderMs, 'f', 3, 64), via, r.RequestID, caused}
	})
}

func rawJSON(s *string) json.RawMessage {
	if s == nil || !json.Valid([]byte(*s)) {
		return nil
	}
	return json.RawMessage(*s)
}
