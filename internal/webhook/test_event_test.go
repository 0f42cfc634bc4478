package webhook

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
)

// A test event goes to the one webhook named, signed like every delivery,
// even though the webhook subscribes only to trigger.fired; another
// project's webhook is not found.
func TestSendTest_QueuesOneSignedDelivery(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, open storetest.Opener) {
		b := newBench(t, open)
		ctx := context.Background()
		pid := b.hook.ProjectID
		id, err := b.svc.SendTest(ctx, pid, b.hook.ID, b.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		list, err := b.svc.Deliveries(ctx, pid, b.hook.ID)
		if err != nil || len(list) != 1 || list[0].ID != id || list[0].EventType != EventTest || list[0].Status != store.DeliveryPending {
			t.Fatalf("deliveries: %+v %v", list, err)
		}
		var ev TestEvent
		if err := json.Unmarshal(list[0].Payload, &ev); err != nil || ev.Type != EventTest || ev.Data.WebhookID != b.hook.ID {
			t.Fatalf("payload: %s %v", list[0].Payload, err)
		}

		if n, err := b.worker().RunOnce(ctx); n != 1 || err != nil {
			t.Fatalf("run: %d %v", n, err)
		}
		if b.hits.Load() != 1 {
			t.Fatalf("receiver hits: %d", b.hits.Load())
		}
		list, _ = b.svc.Deliveries(ctx, pid, b.hook.ID)
		if list[0].Status != store.DeliveryDelivered || list[0].Attempts != 1 {
			t.Fatalf("after the run: %+v", list[0])
		}

		other, _ := b.store.CreateProject(ctx, "other")
		_, err = b.svc.SendTest(ctx, other.ID, b.hook.ID, b.clock.Now())
		if e, ok := apierr.As(err); !ok || e.Code != apierr.NotFound {
			t.Fatalf("another project's webhook: %v", err)
		}
	})
}
