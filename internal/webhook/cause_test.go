package webhook

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
)

// hookAt stores a webhook for url directly, as one registered before the
// registration check existed (or whose DNS changed since).
func (b *bench) hookAt(t *testing.T, url string) store.Webhook {
	t.Helper()
	ctx := context.Background()
	if err := b.store.DeleteWebhook(ctx, b.hook.ProjectID, b.hook.ID); err != nil {
		t.Fatal(err)
	}
	w := store.Webhook{ID: store.NewID(), ProjectID: b.hook.ProjectID, URL: url, Events: []string{EventTriggerFired}}
	sealed, err := b.ring.Seal([]byte("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"), secret.AAD(PurposeSecret, w.ID))
	if err != nil {
		t.Fatal(err)
	}
	w.Secret = sealed
	w, err = b.store.CreateWebhook(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// Finding 14: a delivery the guard refuses fails for good at once, and the
// log names a short cause, never the address or the dial error.
func TestWorker_ForbiddenAddressFailsAtOnceWithoutDetail(t *testing.T) {
	t.Parallel()
	b := newBench(t, storetest.OpenSQLite)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	t.Cleanup(srv.Close)
	h := b.hookAt(t, srv.URL+"/hook")
	b.fire(t, 1)
	w := NewWorker(b.store, b.ring, netguard.New(netguard.Options{}).Client(), nil, b.clock.Now)
	if _, err := w.RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	ds, _ := b.store.ListDeliveries(context.Background(), h.ProjectID, h.ID, 10)
	if len(ds) != 1 || ds[0].Status != store.DeliveryFailed || ds[0].Attempts != 1 {
		t.Fatalf("delivery to a refused address: %+v", ds)
	}
	if msg := ds[0].LastError; !strings.Contains(msg, "address not allowed") || strings.Contains(msg, "127.0.0.1") || strings.Contains(msg, "dial") {
		t.Fatalf("stored cause %q", msg)
	}
}

// Finding 14: other network failures are retried with a short cause.
func TestWorker_ConnectionRefusedStoresShortCause(t *testing.T) {
	t.Parallel()
	b := newBench(t, storetest.OpenSQLite)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	h := b.hookAt(t, "http://"+addr+"/hook")
	b.fire(t, 1)
	if _, err := b.worker().RunOnce(context.Background()); err != nil {
		t.Fatal(err)
	}
	ds, _ := b.store.ListDeliveries(context.Background(), h.ProjectID, h.ID, 10)
	if len(ds) != 1 || ds[0].Status != store.DeliveryPending || ds[0].LastError != "connection refused" {
		t.Fatalf("delivery to a closed port: %+v", ds)
	}
}
