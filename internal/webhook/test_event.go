package webhook

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// EventTest is the event the dashboard's "send test event" queues to one
// webhook, whatever events the webhook subscribes to. It is signed and
// retried as every delivery is, so a receiver can check its signature
// verification end to end. Receivers should accept and ignore it.
const EventTest = "webhook.test"

// TestEvent is the body of a webhook.test delivery.
type TestEvent struct {
	Type      string        `json:"type"`
	ID        string        `json:"id"`
	Timestamp time.Time     `json:"timestamp"`
	Data      TestEventData `json:"data"`
}

// TestEventData names the webhook the test was sent to.
type TestEventData struct {
	WebhookID string `json:"webhookId"`
}

// SendTest queues a webhook.test delivery to one of a project's webhooks
// and returns the delivery's id; it shows in the delivery log as any other.
func (s *Service) SendTest(ctx context.Context, projectID, webhookID string, now time.Time) (string, error) {
	body, err := json.Marshal(TestEvent{Type: EventTest, ID: "evt_" + store.NewID(), Timestamp: now.UTC(),
		Data: TestEventData{WebhookID: webhookID}})
	if err != nil {
		return "", err
	}
	id, err := s.store.EnqueueDelivery(ctx, projectID, webhookID, EventTest, body)
	if errors.Is(err, store.ErrNotFound) {
		return "", apierr.New(apierr.NotFound, "no webhook %s in this project", webhookID)
	}
	if err != nil {
		return "", err
	}
	s.notify()
	return id, nil
}
