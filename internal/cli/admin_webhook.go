package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/switchboard-gw/switchboard/internal/app"
	"github.com/switchboard-gw/switchboard/internal/webhook"
)

// adminWebhook runs `admin webhook create|list|delete`, the CLI form of /v1/webhooks.
func (p *Program) adminWebhook(ctx context.Context, verb string, args []string) error {
	a := p.adminFlags("webhook " + verb)
	projectID := a.fs.String("project", "", "project id (required)")
	urlFlag := a.fs.String("url", "", "endpoint URL (https; http only to loopback when allowed)")
	description := a.fs.String("description", "", "what the endpoint is for")
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	if *projectID == "" {
		return usagef("usage: switchboard admin webhook create --project ID --url URL [--description …] | list --project ID | delete --project ID WEBHOOK_ID")
	}
	st, err := a.openProject(ctx, *projectID)
	if err != nil {
		return err
	}
	defer st.Close()
	ring, err := loadKeyring(ctx, a.cfg, st, p.stderrLogger())
	if err != nil {
		return err
	}
	svc := webhook.NewService(webhook.ServiceOptions{Store: st, Keyring: ring, AllowHTTPLoopback: a.cfg.WebhooksAllowHTTPLoopback,
		AllowedFunc: app.OutboundGuard(a.cfg).Webhooks().Allowed, LookupFunc: p.LookupFunc})
	switch verb {
	case "create":
		if len(pos) > 0 {
			return usagef("webhook create takes no arguments")
		}
		c, err := svc.Create(ctx, *projectID, *urlFlag, nil, *description)
		if err != nil {
			return err
		}
		if *a.asJSON {
			return printJSON(p.Stdout, map[string]any{"id": c.ID, "url": c.URL, "events": c.Events, "secret": c.Secret})
		}
		fmt.Fprintf(p.Stdout, "created webhook %s for %s\nsigning secret (shown once): %s\n", c.ID, c.URL, c.Secret)
		return nil
	case "list":
		list, err := st.ListWebhooks(ctx, *projectID)
		if err != nil {
			return err
		}
		type row struct {
			ID       string   `json:"id"`
			URL      string   `json:"url"`
			Events   []string `json:"events"`
			Disabled bool     `json:"disabled"`
		}
		rows := []row{}
		for _, w := range list {
			rows = append(rows, row{w.ID, w.URL, w.Events, w.DisabledAt != nil})
		}
		return printList(p.Stdout, *a.asJSON, rows, "ID\tURL\tDISABLED", func(r row) []any {
			return []any{r.ID, r.URL, r.Disabled}
		})
	case "deliveries":
		if len(pos) != 1 {
			return usagef("usage: switchboard admin webhook deliveries --project ID WEBHOOK_ID")
		}
		return p.printDeliveries(ctx, svc, *projectID, pos[0], *a.asJSON)
	case "delete":
		if len(pos) != 1 {
			return usagef("usage: switchboard admin webhook delete --project ID WEBHOOK_ID")
		}
		if err := svc.Delete(ctx, *projectID, pos[0]); err != nil {
			return err
		}
		if *a.asJSON {
			return printJSON(p.Stdout, map[string]any{"id": pos[0], "deleted": true})
		}
		fmt.Fprintf(p.Stdout, "deleted webhook %s\n", pos[0])
		return nil
	}
	return usagef("unknown webhook command %q", verb)
}

// deliveryRow is one delivery as `admin webhook deliveries` prints it (the
// fields of GET /v1/webhooks/:id/deliveries that say what happened and
// what caused it).
type deliveryRow struct {
	ID              string     `json:"id"`
	Event           string     `json:"event"`
	Status          string     `json:"status"`
	Attempts        int        `json:"attempts"`
	LastStatus      *int       `json:"lastResponseStatus"`
	LastError       string     `json:"lastError,omitempty"`
	CreatedAt       time.Time  `json:"createdAt"`
	LastAttemptAt   *time.Time `json:"lastAttemptAt"`
	LogID           string     `json:"logId,omitempty"`
	RequestID       string     `json:"requestId,omitempty"`
	TriggerID       string     `json:"triggerId,omitempty"`
	EventID         string     `json:"eventId,omitempty"`
	ProviderEventID string     `json:"providerEventId,omitempty"`
}

// printDeliveries prints a webhook's recent deliveries, newest first, with
// what caused each: the log record and request of a held call, or the
// trigger and event of a firing.
func (p *Program) printDeliveries(ctx context.Context, svc *webhook.Service, projectID, hookID string, asJSON bool) error {
	list, err := svc.Deliveries(ctx, projectID, hookID)
	if err != nil {
		return err
	}
	rows := make([]deliveryRow, len(list))
	for i, d := range list {
		rows[i] = deliveryRow{ID: d.ID, Event: d.EventType, Status: d.Status, Attempts: d.Attempts, LastStatus: d.LastStatus,
			LastError: d.LastError, CreatedAt: d.CreatedAt, LastAttemptAt: d.LastAttemptAt, LogID: d.Cause.LogID,
			RequestID: d.Cause.RequestID, TriggerID: d.Cause.TriggerID, EventID: d.Cause.EventID, ProviderEventID: d.Cause.ProviderEventID}
	}
	return printList(p.Stdout, asJSON, rows, "TIME\tID\tEVENT\tSTATUS\tATTEMPTS\tCAUSE", func(r deliveryRow) []any {
		cause := "-"
		switch {
		case r.LogID != "" || r.RequestID != "":
			cause = "log " + orDash(r.LogID) + " request " + orDash(r.RequestID)
		case r.TriggerID != "":
			cause = "trigger " + r.TriggerID + " event " + r.EventID
			if r.ProviderEventID != "" {
				cause += " provider " + r.ProviderEventID
			}
		}
		return []any{r.CreatedAt.Format(time.RFC3339), r.ID, r.Event, r.Status, r.Attempts, cause}
	})
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
