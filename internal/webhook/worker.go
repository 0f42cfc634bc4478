package webhook

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	mrand "math/rand/v2"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/telemetry"
)

// Worker sends due deliveries. Several workers (replicas) may run against
// one database; a claimed row is leased to one of them.
type Worker struct {
	store   *store.Store
	keyring *secret.Keyring
	client  *http.Client
	log     *slog.Logger
	now     func() time.Time
	owner   string
	wake    chan struct{}
	// Batch and Lease tune claiming; Poll is the idle wait between scans.
	Batch int
	Lease time.Duration
	Poll  time.Duration
	// Metrics counts delivery attempts by result; nil counts nothing.
	Metrics *telemetry.Metrics
}

// NewWorker returns a Worker sending through client (the guarded client).
func NewWorker(st *store.Store, ring *secret.Keyring, client *http.Client, log *slog.Logger, now func() time.Time) *Worker {
	var b [8]byte
	_, _ = rand.Read(b[:])
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Worker{store: st, keyring: ring, client: client, log: log, now: now, owner: "worker-" + hex.EncodeToString(b[:]),
		wake: make(chan struct{}, 1), Batch: 32, Lease: time.Minute, Poll: time.Second}
}

// Notify wakes the worker now (deliveries were enqueued in this process).
func (w *Worker) Notify() {
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

// Run sends deliveries until ctx ends.
func (w *Worker) Run(ctx context.Context) {
	for {
		n, err := w.RunOnce(ctx)
		if err != nil && ctx.Err() == nil {
			w.log.ErrorContext(ctx, "webhook worker", "error", err.Error())
		}
		if n > 0 {
			continue // more may be due
		}
		select {
		case <-ctx.Done():
			return
		case <-w.wake:
		case <-time.After(w.Poll):
		}
	}
}

// RunOnce claims one batch of due deliveries, sends them concurrently and
// records the outcomes. It returns how many it handled.
func (w *Worker) RunOnce(ctx context.Context) (int, error) {
	batch, err := w.store.ClaimDeliveries(ctx, w.owner, w.Batch, w.Lease)
	if err != nil || len(batch) == 0 {
		return 0, err
	}
	hooks := map[string]*store.Webhook{}
	var wg sync.WaitGroup
	for _, d := range batch {
		h, ok := hooks[d.WebhookID]
		if !ok {
			hw, err := w.store.GetWebhook(ctx, d.ProjectID, d.WebhookID)
			if errors.Is(err, store.ErrNotFound) {
				w.finish(ctx, d, store.DeliveryFailed, 0, "the webhook was deleted")
				continue
			}
			if err != nil {
				w.retry(ctx, d, 0, "the webhook could not be read")
				continue
			}
			h = &hw
			hooks[d.WebhookID] = h
		}
		wg.Go(func() { w.send(ctx, d, *h) })
	}
	wg.Wait()
	return len(batch), nil
}

func (w *Worker) send(ctx context.Context, d store.Delivery, h store.Webhook) {
	if h.DisabledAt != nil {
		w.finish(ctx, d, store.DeliveryFailed, 0, "the webhook is disabled")
		return
	}
	sec, err := openSecret(w.keyring, h)
	if err != nil {
		w.retry(ctx, d, 0, "the webhook's secret cannot be opened")
		return
	}
	ts := w.now().Unix()
	sig, err := Sign(sec, d.ID, ts, d.Payload)
	if err != nil {
		w.finish(ctx, d, store.DeliveryFailed, 0, "the webhook's secret is malformed")
		return
	}
	rctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodPost, h.URL, bytes.NewReader(d.Payload))
	if err != nil {
		w.finish(ctx, d, store.DeliveryFailed, 0, "the webhook URL is not valid")
		return
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "Switchboard-Webhooks/1")
	req.Header.Set("webhook-id", d.ID)
	req.Header.Set("webhook-timestamp", strconv.FormatInt(ts, 10))
	req.Header.Set("webhook-signature", sig)
	resp, err := w.client.Do(req)
	if err != nil {
		cause, again := failureCause(err)
		if !again {
			w.finish(ctx, d, store.DeliveryFailed, 0, cause)
			return
		}
		w.retry(ctx, d, 0, cause)
		return
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	resp.Body.Close()
	switch {
	case resp.StatusCode >= 200 && resp.StatusCode < 300:
		w.finish(ctx, d, store.DeliveryDelivered, resp.StatusCode, "")
	case resp.StatusCode == http.StatusGone:
		if err := w.store.DisableWebhook(ctx, h.ID); err != nil {
			w.log.ErrorContext(ctx, "could not disable a webhook", "webhook_id", h.ID, "error", err.Error())
		}
		w.finish(ctx, d, store.DeliveryFailed, resp.StatusCode, "the receiver answered 410 Gone; the webhook is disabled")
	default:
		w.retry(ctx, d, resp.StatusCode, fmt.Sprintf("the receiver answered HTTP %d", resp.StatusCode))
	}
}

// retry schedules the next attempt, or gives up after the schedule.
func (w *Worker) retry(ctx context.Context, d store.Delivery, status int, msg string) {
	if d.Attempts >= len(Schedule) {
		w.finish(ctx, d, store.DeliveryFailed, status, msg+"; no attempts left")
		return
	}
	w.Metrics.WebhookDelivery(telemetry.DeliveryRetry)
	wait := Schedule[d.Attempts]
	wait += time.Duration(mrand.Int64N(int64(wait/10) + 1)) // jitter up to 10%
	if err := w.store.FinishAttempt(ctx, d.ID, w.owner, store.DeliveryPending, status, msg, w.now().Add(wait)); err != nil {
		w.log.ErrorContext(ctx, "could not record a delivery attempt", "delivery_id", d.ID, "error", err.Error())
	}
}

func (w *Worker) finish(ctx context.Context, d store.Delivery, status string, httpStatus int, msg string) {
	if status == store.DeliveryDelivered {
		w.Metrics.WebhookDelivery(telemetry.DeliveryOK)
	} else {
		w.Metrics.WebhookDelivery(telemetry.DeliveryFailed)
	}
	if err := w.store.FinishAttempt(ctx, d.ID, w.owner, status, httpStatus, msg, w.now()); err != nil {
		w.log.ErrorContext(ctx, "could not record a delivery attempt", "delivery_id", d.ID, "error", err.Error())
	}
}

// Event is the body of a trigger.fired delivery (docs/triggers.md).
type Event struct {
	Type      string    `json:"type"`
	ID        string    `json:"id"`
	Timestamp time.Time `json:"timestamp"`
	Data      EventData `json:"data"`
}

// EventData is what fired.
type EventData struct {
	TriggerID    string          `json:"triggerId"`
	ConnectionID string          `json:"connectionId"`
	ConnectorID  string          `json:"connectorId"`
	UserID       *string         `json:"userId"`
	Event        string          `json:"event"`
	Payload      json.RawMessage `json:"payload"`
}
