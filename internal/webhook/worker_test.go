package webhook

import (
	"context"
	"crypto/rand"
	"errors"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
)

type bench struct {
	store   *store.Store
	clock   *storetest.Clock
	ring    *secret.Keyring
	svc     *Service
	trigger store.Trigger
	hook    Created
	hits    atomic.Int64
	status  atomic.Int64
	ids     sync.Map
}

func newBench(t *testing.T, open storetest.Opener) *bench {
	t.Helper()
	b := &bench{clock: storetest.NewClock()}
	b.status.Store(200)
	b.store = open(t, b.clock.Now)
	k := make([]byte, secret.KeySize)
	_, _ = rand.Read(k)
	b.ring, _ = secret.NewKeyring(secret.Key{ID: "k", Material: k})
	b.svc = NewService(ServiceOptions{Store: b.store, Keyring: b.ring, AllowHTTPLoopback: true})
	ctx := context.Background()
	p, _ := b.store.CreateProject(ctx, "p")
	ac, _ := b.store.EnsureImplicitAuthConfig(ctx, p.ID, "github", "github_api_key", "api_key", "api_key")
	conn, err := b.store.CreateConnection(ctx, store.NewConnection{ID: store.NewID(), ProjectID: p.ID, ConnectorID: "github",
		AuthConfigID: ac.ID, UserID: "u1", Credential: []byte("x")})
	if err != nil {
		t.Fatal(err)
	}
	b.trigger, err = b.store.CreateTrigger(ctx, store.Trigger{ID: store.NewID(), ProjectID: p.ID, ConnectionID: conn.ID,
		ConnectorID: "github", Event: "github_issue_opened", TokenHash: store.NewID(), Setup: "manual"})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b.hits.Add(1)
		if b.status.Load() == 200 {
			if _, dup := b.ids.LoadOrStore(r.Header.Get("webhook-id"), true); dup {
				t.Errorf("delivery %s accepted twice", r.Header.Get("webhook-id"))
			}
		}
		w.WriteHeader(int(b.status.Load()))
	}))
	t.Cleanup(srv.Close)
	b.hook, err = b.svc.Create(ctx, p.ID, srv.URL, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func (b *bench) fire(t *testing.T, n int) {
	t.Helper()
	for range n {
		if _, err := b.store.FireTrigger(context.Background(), b.trigger, "", EventTriggerFired, store.EventCause{}, func() ([]byte, error) {
			return []byte(`{"type":"trigger.fired"}`), nil
		}); err != nil {
			t.Fatal(err)
		}
	}
}

func (b *bench) worker() *Worker {
	w := NewWorker(b.store, b.ring, netguard.New(netguard.Options{AllowLoopback: true}).Client(), nil, b.clock.Now)
	w.Batch = 10
	return w
}

func both(t *testing.T, fn func(*testing.T, storetest.Opener)) {
	for name, open := range map[string]storetest.Opener{"sqlite": storetest.OpenSQLite, "postgres": storetest.OpenPostgres} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			if name == "postgres" {
				storetest.PostgresURL(t)
			}
			fn(t, open)
		})
	}
}

func TestWorker_RetriesBackOffAnd410Disables(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, open storetest.Opener) {
		b := newBench(t, open)
		ctx := context.Background()
		w := b.worker()
		b.status.Store(500)
		b.fire(t, 1)
		if n, err := w.RunOnce(ctx); n != 1 || err != nil {
			t.Fatalf("first attempt: %d %v", n, err)
		}
		ds, _ := b.store.ListDeliveries(ctx, b.hook.ProjectID, b.hook.ID, 10)
		d := ds[0]
		if d.Status != store.DeliveryPending || d.Attempts != 1 || *d.LastStatus != 500 {
			t.Fatalf("after a 500: %+v", d)
		}
		wait := d.NextAttemptAt.Sub(b.clock.Now())
		if wait < Schedule[0] || wait > Schedule[0]+Schedule[0]/10 {
			t.Fatalf("next attempt in %v, want %v plus jitter", wait, Schedule[0])
		}
		if n, _ := w.RunOnce(ctx); n != 0 {
			t.Fatal("a delivery was retried before its time")
		}
		b.clock.Advance(6 * time.Second)
		b.status.Store(200)
		if n, _ := w.RunOnce(ctx); n != 1 {
			t.Fatal("the retry did not run")
		}
		ds, _ = b.store.ListDeliveries(ctx, b.hook.ProjectID, b.hook.ID, 10)
		if ds[0].Status != store.DeliveryDelivered || ds[0].Attempts != 2 {
			t.Fatalf("after retry: %+v", ds[0])
		}

		b.status.Store(410)
		b.fire(t, 1)
		w.RunOnce(ctx)
		h, _ := b.store.GetWebhook(ctx, b.hook.ProjectID, b.hook.ID)
		if h.DisabledAt == nil {
			t.Fatal("410 Gone did not disable the webhook")
		}
		// A disabled webhook gets no new deliveries.
		b.fire(t, 1)
		if n, _ := b.store.CountDeliveries(ctx, store.DeliveryPending); n != 0 {
			t.Fatalf("%d deliveries queued for a disabled webhook", n)
		}
	})
}

// TestWorker_RestartLosesNothing: a worker dies holding claimed rows; a new
// worker skips them while the lease lasts, then delivers them all, once.
func TestWorker_RestartLosesNothing(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, open storetest.Opener) {
		b := newBench(t, open)
		ctx := context.Background()
		b.fire(t, 25)
		dead, err := b.store.ClaimDeliveries(ctx, "dead-worker", 10, time.Minute)
		if err != nil || len(dead) != 10 {
			t.Fatalf("claim: %d %v", len(dead), err)
		}
		w := b.worker()
		for {
			n, err := w.RunOnce(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				break
			}
		}
		if got := b.hits.Load(); got != 15 {
			t.Fatalf("%d delivered while the dead worker's lease lasts, want 15", got)
		}
		b.clock.Advance(2 * time.Minute)
		for {
			if n, _ := w.RunOnce(ctx); n == 0 {
				break
			}
		}
		delivered, _ := b.store.CountDeliveries(ctx, store.DeliveryDelivered)
		pending, _ := b.store.CountDeliveries(ctx, store.DeliveryPending)
		if b.hits.Load() != 25 || delivered != 25 || pending != 0 {
			t.Fatalf("hits %d, delivered %d, pending %d; want 25, 25, 0", b.hits.Load(), delivered, pending)
		}
	})
}

// TestClaim_ConcurrentWorkersNeverShareARow checks that replicas claiming at
// once get disjoint rows (FOR UPDATE SKIP LOCKED on PostgreSQL).
func TestClaim_ConcurrentWorkersNeverShareARow(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, open storetest.Opener) {
		b := newBench(t, open)
		b.fire(t, 60)
		var mu sync.Mutex
		seen := map[string]string{}
		var wg sync.WaitGroup
		for i := range 6 {
			owner := "w" + string(rune('a'+i))
			wg.Go(func() {
				for {
					got, err := b.store.ClaimDeliveries(context.Background(), owner, 5, time.Minute)
					if err != nil {
						t.Error(err)
						return
					}
					if len(got) == 0 {
						return
					}
					mu.Lock()
					for _, d := range got {
						if prev, dup := seen[d.ID]; dup {
							t.Errorf("%s claimed by %s and %s", d.ID, prev, owner)
						}
						seen[d.ID] = owner
					}
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if len(seen) != 60 {
			t.Fatalf("%d of 60 claimed", len(seen))
		}
	})
}

// TestFireTrigger_ReplayWindow checks that a digest is refused within the
// hour it was seen and taken again after it, with one delivery per firing.
func TestFireTrigger_ReplayWindow(t *testing.T) {
	t.Parallel()
	both(t, func(t *testing.T, open storetest.Opener) {
		b := newBench(t, open)
		fire := func() ([]string, error) {
			return b.store.FireTrigger(context.Background(), b.trigger, "digest-1", EventTriggerFired, store.EventCause{}, func() ([]byte, error) {
				return []byte(`{"type":"trigger.fired"}`), nil
			})
		}
		if ids, err := fire(); err != nil || len(ids) != 1 {
			t.Fatalf("first firing: %v %v", ids, err)
		}
		b.clock.Advance(59 * time.Minute)
		if _, err := fire(); !errors.Is(err, store.ErrReplayed) {
			t.Fatalf("a replay within the hour: %v, want ErrReplayed", err)
		}
		b.clock.Advance(2 * time.Minute)
		if ids, err := fire(); err != nil || len(ids) != 1 {
			t.Fatalf("the digest after the hour: %v %v", ids, err)
		}
		if _, err := fire(); !errors.Is(err, store.ErrReplayed) {
			t.Fatalf("a replay of the renewed digest: %v, want ErrReplayed", err)
		}
		got, err := b.store.GetTrigger(context.Background(), b.trigger.ProjectID, b.trigger.ID)
		if err != nil || got.FireCount != 2 {
			t.Fatalf("fire count %d (%v), want 2", got.FireCount, err)
		}
	})
}
