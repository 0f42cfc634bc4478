package cli

import (
	"context"
	"fmt"

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
