package store_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
)

// TestQuota_TwoReplicasCountTogether: two stores on one PostgreSQL
// database (two replicas) count one quota's calls in the same rows, so
// many concurrent calls on both admit exactly the limit, and a per-user
// quota gives each user the limit.
func TestQuota_TwoReplicasCountTogether(t *testing.T) {
	t.Parallel()
	url := storetest.PostgresSchemaURL(t)
	ctx := context.Background()
	a, b := openAt(t, url, nil), openAt(t, url, nil)
	p, _ := a.CreateProject(ctx, "p")
	const limit = 25
	shared, err := b.CreateQuota(ctx, store.Quota{ProjectID: p.ID, Period: 86400, Limit: limit})
	if err != nil {
		t.Fatal(err)
	}
	perUser, _ := a.CreateQuota(ctx, store.Quota{ProjectID: p.ID, Period: 86400, Limit: limit, PerUser: true})
	now := time.Now()
	window := func(q store.Quota, subject string) store.QuotaHit {
		ms := now.UnixMilli()
		start := ms - ms%86_400_000
		return store.QuotaHit{QuotaID: q.ID, Subject: subject, Period: q.Period, WindowStart: start, WindowEnd: start + 86_400_000, Limit: q.Limit}
	}

	var admitted atomic.Int64
	var wg sync.WaitGroup
	for i := range 80 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := a
			if i%2 == 1 {
				s = b
			}
			refused, err := s.CountQuotaCalls(ctx, []store.QuotaHit{window(shared, "")})
			if err != nil {
				t.Error(err)
				return
			}
			if len(refused) == 0 {
				admitted.Add(1)
			}
		}()
	}
	wg.Wait()
	if n := admitted.Load(); n != limit {
		t.Fatalf("two replicas admitted %d calls, want exactly %d", n, limit)
	}
	if n, _ := a.QuotaCalls(ctx, shared.ID, "", 86400, window(shared, "").WindowStart); n != limit {
		t.Fatalf("stored count %d, want %d", n, limit)
	}

	// Per user, on alternating replicas: each user gets the whole limit.
	per := map[string]*atomic.Int64{"alice": {}, "bob": {}}
	for i := range 2 * (limit + 10) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			user := "alice"
			if i%2 == 1 {
				user = "bob"
			}
			s := a
			if i%4 >= 2 {
				s = b
			}
			refused, err := s.CountQuotaCalls(ctx, []store.QuotaHit{window(perUser, user)})
			if err != nil {
				t.Error(err)
				return
			}
			if len(refused) == 0 {
				per[user].Add(1)
			}
		}()
	}
	wg.Wait()
	for user, n := range per {
		if n.Load() != limit {
			t.Errorf("%s: %d calls admitted, want %d", user, n.Load(), limit)
		}
	}
}
