package httpapi

import (
	"net/http"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

type webhookItem struct {
	ID          string     `json:"id"`
	URL         string     `json:"url"`
	Events      []string   `json:"events"`
	Description string     `json:"description"`
	Disabled    bool       `json:"disabled"`
	DisabledAt  *time.Time `json:"disabledAt"`
	CreatedAt   time.Time  `json:"createdAt"`
}

func newWebhookItem(w store.Webhook) webhookItem {
	return webhookItem{ID: w.ID, URL: w.URL, Events: w.Events, Description: w.Description, Disabled: w.DisabledAt != nil,
		DisabledAt: w.DisabledAt, CreatedAt: w.CreatedAt}
}

// handleWebhookList is GET /v1/webhooks.
func (s *Server) handleWebhookList(w http.ResponseWriter, r *http.Request) error {
	list, err := s.store.ListWebhooks(r.Context(), tenantOf(r).ProjectID)
	if err != nil {
		return err
	}
	items := make([]webhookItem, len(list))
	for i, h := range list {
		items[i] = newWebhookItem(h)
	}
	respond(w, http.StatusOK, items)
	return nil
}

// handleWebhookCreate is POST /v1/webhooks: 201 with the whsec_ secret, shown once.
func (s *Server) handleWebhookCreate(w http.ResponseWriter, r *http.Request) error {
	var body struct {
		URL         string   `json:"url"`
		Events      []string `json:"events"`
		Description string   `json:"description"`
	}
	issues := s.decodeBody(w, r, &body)
	if err := issues.Err(); err != nil {
		return err
	}
	c, err := s.webhooks.Create(r.Context(), tenantOf(r).ProjectID, body.URL, body.Events, body.Description)
	if err != nil {
		return err
	}
	respond(w, http.StatusCreated, struct {
		webhookItem
		Secret string `json:"secret"`
	}{newWebhookItem(c.Webhook), c.Secret})
	return nil
}

// handleWebhookDelete is DELETE /v1/webhooks/:id.
func (s *Server) handleWebhookDelete(w http.ResponseWriter, r *http.Request) error {
	id := r.PathValue("id")
	if err := s.webhooks.Delete(r.Context(), tenantOf(r).ProjectID, id); err != nil {
		return err
	}
	respond(w, http.StatusOK, map[string]string{"id": id})
	return nil
}

type deliveryItem struct {
	ID            string     `json:"id"`
	Event         string     `json:"event"`
	Status        string     `json:"status"`
	Attempts      int        `json:"attempts"`
	LastStatus    *int       `json:"lastResponseStatus"`
	LastError     string     `json:"lastError,omitempty"`
	LastAttemptAt *time.Time `json:"lastAttemptAt"`
	NextAttemptAt *time.Time `json:"nextAttemptAt"`
	CreatedAt     time.Time  `json:"createdAt"`
	// What caused the delivery (docs/execution-log.md#links): the held
	// call of an approval.requested event (its log record and request),
	// the trigger and event of a trigger.fired one; null otherwise.
	LogID           *string `json:"logId"`
	RequestID       *string `json:"requestId"`
	TriggerID       *string `json:"triggerId"`
	EventID         *string `json:"eventId"`
	ProviderEventID *string `json:"providerEventId"`
}

// handleDeliveryList is GET /v1/webhooks/:id/deliveries.
func (s *Server) handleDeliveryList(w http.ResponseWriter, r *http.Request) error {
	list, err := s.webhooks.Deliveries(r.Context(), tenantOf(r).ProjectID, r.PathValue("id"))
	if err != nil {
		return err
	}
	items := make([]deliveryItem, len(list))
	for i, d := range list {
		items[i] = deliveryItem{ID: d.ID, Event: d.EventType, Status: d.Status, Attempts: d.Attempts, LastStatus: d.LastStatus,
			LastError: d.LastError, LastAttemptAt: d.LastAttemptAt, CreatedAt: d.CreatedAt,
			LogID: orNull(d.Cause.LogID), RequestID: orNull(d.Cause.RequestID), TriggerID: orNull(d.Cause.TriggerID),
			EventID: orNull(d.Cause.EventID), ProviderEventID: orNull(d.Cause.ProviderEventID)}
		if d.Status == store.DeliveryPending {
			next := d.NextAttemptAt
			items[i].NextAttemptAt = &next
		}
	}
	respond(w, http.StatusOK, items)
	return nil
}

// handleDeliveryRetry is POST /v1/webhooks/:id/deliveries/:deliveryId/retry.
func (s *Server) handleDeliveryRetry(w http.ResponseWriter, r *http.Request) error {
	if err := s.webhooks.Retry(r.Context(), tenantOf(r).ProjectID, r.PathValue("id"), r.PathValue("deliveryId")); err != nil {
		return err
	}
	respond(w, http.StatusOK, map[string]any{"id": r.PathValue("deliveryId"), "status": store.DeliveryPending})
	return nil
}
