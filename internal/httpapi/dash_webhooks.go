package httpapi

import (
	"net/http"
	"time"
	"unicode/utf8"

	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/webhook"
)

// The webhooks screen: the project's webhooks (create with the secret
// shown once, delete: owners only), one webhook's delivery log (status,
// attempts, last response code, the event sent, next attempt) with a
// manual retry, and "send test event". Everything goes through
// webhook.Service, as /v1/webhooks does.

type webhooksData struct {
	Webhooks []webhookItem
	Created  *webhook.Created
	// Events are those a webhook may subscribe to.
	Events []string
	// Form is what the operator submitted, shown again with a problem.
	Form struct {
		URL, Description string
		Events           map[string]bool
	}
}

type deliveryRow struct {
	deliveryItem
	// Excerpt is the start of the event that was sent.
	Excerpt string
}

type webhookData struct {
	Webhook    webhookItem
	Deliveries []deliveryRow
}

// webhookEvents are the events a webhook may subscribe to.
var webhookEvents = []string{webhook.EventTriggerFired, webhook.EventApprovalRequested}

func (s *Server) renderWebhooks(w http.ResponseWriter, r *http.Request, d *dashReq, status int, data webhooksData, problem string) error {
	list, err := s.store.ListWebhooks(r.Context(), d.project.ProjectID)
	if err != nil {
		return err
	}
	for _, h := range list {
		data.Webhooks = append(data.Webhooks, newWebhookItem(h))
	}
	data.Events = webhookEvents
	if data.Form.Events == nil {
		data.Form.Events = map[string]bool{webhook.EventTriggerFired: true}
	}
	v := d.view("webhooks", "Webhooks", data)
	v.Flash, v.Error = s.takeFlash(w, r), problem
	return s.render(w, status, "webhooks", v)
}

func (s *Server) handleDashWebhooks(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	return s.renderWebhooks(w, r, d, 0, webhooksData{}, "")
}

// handleDashWebhookCreate answers with the page showing the signing secret
// once (never redirected or put in a cookie).
func (s *Server) handleDashWebhookCreate(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	if err := d.requireOwner("manage webhooks"); err != nil {
		return err
	}
	_ = r.ParseForm()
	var data webhooksData
	data.Form.URL, data.Form.Description = r.PostFormValue("url"), r.PostFormValue("description")
	data.Form.Events = map[string]bool{}
	events := []string{}
	for _, e := range r.PostForm["events"] {
		data.Form.Events[e] = true
		events = append(events, e)
	}
	c, err := s.webhooks.Create(r.Context(), d.project.ProjectID, data.Form.URL, events, data.Form.Description)
	if msg, ok := formProblem(err); ok {
		return s.renderWebhooks(w, r, d, http.StatusUnprocessableEntity, data, msg)
	}
	if err != nil {
		return err
	}
	return s.renderWebhooks(w, r, d, http.StatusOK, webhooksData{Created: &c}, "")
}

func (s *Server) handleDashWebhookDelete(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	if err := d.requireOwner("manage webhooks"); err != nil {
		return err
	}
	if err := s.webhooks.Delete(r.Context(), d.project.ProjectID, r.PathValue("id")); err != nil {
		return err
	}
	return s.redirectFlash(w, r, "/dashboard/p/"+d.project.ProjectID+"/webhooks", "Webhook deleted, with its delivery log.")
}

// deliveryExcerpt is the start of a delivery's event, for the log.
func deliveryExcerpt(payload []byte) string {
	const max = 160
	if len(payload) <= max {
		return string(payload)
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(payload[cut]) {
		cut--
	}
	return string(payload[:cut]) + "…"
}

func (s *Server) handleDashWebhook(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	pid, id := d.project.ProjectID, r.PathValue("id")
	h, err := s.webhooks.Get(r.Context(), pid, id)
	if err != nil {
		return err
	}
	list, err := s.webhooks.Deliveries(r.Context(), pid, id)
	if err != nil {
		return err
	}
	data := webhookData{Webhook: newWebhookItem(h)}
	for _, dl := range list {
		row := deliveryRow{deliveryItem: deliveryItem{ID: dl.ID, Event: dl.EventType, Status: dl.Status, Attempts: dl.Attempts,
			LastStatus: dl.LastStatus, LastError: dl.LastError, LastAttemptAt: dl.LastAttemptAt, CreatedAt: dl.CreatedAt},
			Excerpt: deliveryExcerpt(dl.Payload)}
		if dl.Status == store.DeliveryPending {
			next := dl.NextAttemptAt
			row.NextAttemptAt = &next
		}
		data.Deliveries = append(data.Deliveries, row)
	}
	v := d.view("webhooks", "Webhook deliveries", data)
	v.Flash = s.takeFlash(w, r)
	return s.render(w, 0, "webhook", v)
}

func (s *Server) handleDashDeliveryRetry(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	pid, id := d.project.ProjectID, r.PathValue("id")
	if err := s.webhooks.Retry(r.Context(), pid, id, r.PathValue("delivery")); err != nil {
		return err
	}
	return s.redirectFlash(w, r, "/dashboard/p/"+pid+"/webhooks/"+id, "Delivery queued again: it is sent within seconds.")
}

func (s *Server) handleDashWebhookTest(w http.ResponseWriter, r *http.Request, d *dashReq) error {
	pid, id := d.project.ProjectID, r.PathValue("id")
	if _, err := s.webhooks.SendTest(r.Context(), pid, id, time.Now()); err != nil {
		return err
	}
	return s.redirectFlash(w, r, "/dashboard/p/"+pid+"/webhooks/"+id, "Test event queued: it shows below once sent (reload the page).")
}
