package replicas

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"
)

// quotaAndPolicyAcrossReplicas sets a quota of 25 calls a minute on the
// OAuth tool for olga and sends 60 concurrent executes of it spread
// evenly over the three replicas: exactly 25 run, the other 35 are 429
// RATE_LIMITED with a Retry-After within the minute, whichever replica
// took them. Then policy and quota changes made through one replica are
// obeyed by the others within changeBound: a deny rule, a raised limit,
// the rule removed.
func (w *world) quotaAndPolicyAcrossReplicas(t *testing.T) {
	const limit, n = 25, 60
	r := w.c.replicas
	body, _ := json.Marshal(map[string]any{"toolId": w.itemsFn, "userId": "olga"})
	type answer struct {
		status     int
		code       string
		retryAfter string
	}
	answers := make([]answer, n)
	var q struct {
		Data struct{ ID string } `json:"data"`
	}
	var callsBefore int64
	// The window is the calendar minute: the burst must fall in one. A
	// burst that crosses into the next (a stall of the machine) is
	// started again once, with a fresh quota.
	for attempt := 1; ; attempt++ {
		if left := time.Minute - time.Duration(time.Now().UnixNano()%int64(time.Minute)); left < 6*time.Second {
			time.Sleep(left + 100*time.Millisecond)
		}
		w.api.must(201, "POST", r[0].base()+"/v1/quotas", map[string]any{
			"window": "minute", "limit": limit, "userId": "olga", "toolId": w.itemsFn,
		}).decode(t, &q)
		// The other replicas hear of the new quota by notification, within
		// milliseconds (changeBound checks that below for policy changes);
		// calls they take before it are not counted, so let it arrive.
		time.Sleep(changeBound)

		callsBefore = w.prov.calls.Load()
		began := time.Now()
		minute := began.Unix() / 60
		var wg, start sync.WaitGroup
		start.Add(1)
		for i := range n {
			wg.Go(func() {
				start.Wait()
				req := w.api.do(context.Background(), "POST", r[i%len(r)].base()+"/v1/tools/execute", body)
				answers[i] = answer{req.status, req.code(), req.header.Get("Retry-After")}
			})
		}
		start.Done()
		wg.Wait()
		if time.Now().Unix()/60 == minute {
			break
		}
		if attempt == 2 {
			t.Fatalf("the quota burst (from %v, for %v) crossed a minute boundary twice; the counts are not meaningful",
				began.Format(time.RFC3339Nano), time.Since(began))
		}
		t.Logf("the quota burst (from %v, for %v) crossed a minute boundary; once more with a fresh quota", began.Format(time.RFC3339Nano), time.Since(began))
		w.api.must(200, "DELETE", r[0].base()+"/v1/quotas/"+q.Data.ID, nil)
	}
	tally := map[string]int{}
	perReplica := make([]map[string]int, len(r))
	for i := range perReplica {
		perReplica[i] = map[string]int{}
	}
	for i, a := range answers {
		key := fmt.Sprintf("%d %s", a.status, a.code)
		tally[key]++
		perReplica[i%len(r)][key]++
		if a.status == 429 {
			secs, err := strconv.Atoi(a.retryAfter)
			if a.code != "RATE_LIMITED" || err != nil || secs < 1 || secs > 60 {
				t.Fatalf("execute %d on %s: 429 %s with Retry-After %q, want RATE_LIMITED and 1 to 60 seconds", i, r[i%len(r)].name, a.code, a.retryAfter)
			}
		}
	}
	if tally["200 "] != limit || tally["429 RATE_LIMITED"] != n-limit {
		t.Fatalf("%d concurrent executes over 3 replicas with a quota of %d a minute: %v, want %d 200 and %d 429 RATE_LIMITED",
			n, limit, tally, limit, n-limit)
	}
	if got := w.prov.calls.Load() - callsBefore; got != limit {
		t.Fatalf("the provider got %d calls, want %d", got, limit)
	}
	for _, rr := range r {
		if a := w.api.do(context.Background(), "POST", rr.base()+"/v1/tools/execute", body); a.status != 429 || a.code() != "RATE_LIMITED" || a.header.Get("Retry-After") == "" {
			t.Fatalf("an execute on %s after the burst: %d %s (Retry-After %q), want 429 RATE_LIMITED", rr.name, a.status, a.body, a.header.Get("Retry-After"))
		}
	}
	t.Logf("quota: %d concurrent executes spread over 3 replicas, %d a minute allowed: %v (per replica %v), then 429 on each",
		n, limit, tally, perReplica)

	// A deny rule made through one replica refuses the next calls on all.
	var rule struct {
		Data struct{ ID string } `json:"data"`
	}
	w.api.must(201, "POST", r[0].base()+"/v1/policies", map[string]any{"decision": "deny", "match": map[string]any{"tool": w.itemsFn}}).decode(t, &rule)
	denied, staleDeny := w.answeredWithin(t, body, 403, "POLICY_DENIED", time.Now())
	// A raised limit through another replica, then the rule removed
	// through a third: every replica runs the call again.
	w.api.must(200, "PATCH", r[2].base()+"/v1/quotas/"+q.Data.ID, map[string]any{"window": "minute", "limit": 1000})
	w.api.must(200, "DELETE", r[1].base()+"/v1/policies/"+rule.Data.ID, nil)
	allowed, staleAllow := w.answeredWithin(t, body, 200, "", time.Now())
	w.api.must(200, "DELETE", r[0].base()+"/v1/quotas/"+q.Data.ID, nil)
	t.Logf("policy: after a deny rule made on %s, answers of the old policy before 403 POLICY_DENIED: %v (all 3 done %v later); "+
		"after the limit raised on %s and the rule removed on %s, answers of the old before 200: %v (all 3 done %v later; bound %v)",
		r[0].name, staleDeny, denied.Round(time.Millisecond), r[2].name, r[1].name, staleAllow, allowed.Round(time.Millisecond), changeBound)
}

// changeBound is how long after a policy or quota change has committed a
// replica may still act on the old one: replicas hear of it by the
// PostgreSQL notification that moves the project's versions, as for a
// key revocation.
const changeBound = revokeBound

// answeredWithin executes body on each replica until it answers status
// with code, failing past changeBound after since, and returns the
// longest wait and the answers seen before, by replica.
func (w *world) answeredWithin(t *testing.T, body []byte, status int, code string, since time.Time) (slowest time.Duration, stale map[string]int) {
	stale = map[string]int{}
	t.Helper()
	for _, r := range w.c.replicas {
		for {
			a := w.api.do(context.Background(), "POST", r.base()+"/v1/tools/execute", body)
			took := time.Since(since)
			if a.status == status && a.code() == code {
				slowest = max(slowest, took)
				break
			}
			if took > changeBound {
				t.Fatalf("%s still answers %d %s %v after the change, want %d %s", r.name, a.status, a.body, took, status, code)
			}
			stale[fmt.Sprintf("%s %d %s", r.name, a.status, a.code())]++
			time.Sleep(time.Millisecond)
		}
	}
	return slowest, stale
}
