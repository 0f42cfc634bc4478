package httpapi

import (
	"context"
	"fmt"
	"sync"
	"testing"
)

// bothStores are the stores a concurrency test must hold on.
var bothStores = []struct {
	name string
	open database
}{{"sqlite", sqliteDB}, {"postgres", postgresDB}}

// offeredConfig returns the id of the auth config of type typ that the
// link offers for connector.
func (f *fixture) offeredConfig(t *testing.T, token, connector, typ string) string {
	t.Helper()
	st, m, raw := f.page("GET", "/api/connect/"+token, "")
	if st != 200 {
		t.Fatalf("view: %d %s", st, raw)
	}
	for _, c := range dataOf(m)["connectors"].([]any) {
		c := c.(map[string]any)
		if c["id"] != connector {
			continue
		}
		for _, cfg := range c["authConfigs"].([]any) {
			if cfg := cfg.(map[string]any); cfg["type"] == typ {
				return cfg["id"].(string)
			}
		}
	}
	t.Fatalf("the link offers no %s config of %s: %s", typ, connector, raw)
	return ""
}

// race sends n requests at once and returns their statuses and error
// codes; header, when given, adds headers to request i.
func (f *fixture) race(n int, method string, path, body func(i int) string, header ...func(i int) []string) ([]int, []string) {
	statuses, codes := make([]int, n), make([]string, n)
	var start, done sync.WaitGroup
	start.Add(1)
	for i := range n {
		done.Add(1)
		go func() {
			defer done.Done()
			start.Wait()
			hdr := []string{"Content-Type", "application/json"}
			for _, h := range header {
				hdr = append(hdr, h(i)...)
			}
			r := f.do(f.h, method, path(i), "", body(i), hdr...)
			statuses[i] = r.status
			codes[i] = errCode(decodeMap(r.body))
		}()
	}
	start.Done()
	done.Wait()
	return statuses, codes
}

// TestConnect_SingleUseLinkUnderConcurrency_OneAccount sends 20 account
// posts through one link at once: exactly one is stored and answered 201,
// every other is 410 LINK_USED, on both databases. The same holds for 20
// reconnects of one account.
func TestConnect_SingleUseLinkUnderConcurrency_OneAccount(t *testing.T) {
	t.Parallel()
	for _, db := range bothStores {
		t.Run(db.name, func(t *testing.T) {
			t.Parallel()
			f, fake := setupConnectOn(t, db.open)
			ctx := context.Background()
			const n = 20
			fake.identityGate = n // every request that gets as far as labelling overlaps
			token := f.link(t, `{"userId":"ann","connectors":["zeta"]}`)
			cfg := f.offeredConfig(t, token, "zeta", "api_key")
			statuses, codes := f.race(n, "POST", func(int) string { return "/api/connect/" + token + "/accounts" }, func(i int) string {
				return fmt.Sprintf(`{"authConfigId":%q,"fields":{"apiKey":"zeta-key"},"name":"acct-%d"}`, cfg, i)
			})
			created, used := 0, 0
			for i := range n {
				switch {
				case statuses[i] == 201:
					created++
				case statuses[i] == 410 && codes[i] == "LINK_USED":
					used++
				default:
					t.Errorf("request %d: %d %s", i, statuses[i], codes[i])
				}
			}
			conns, err := f.store.ListConnections(ctx, f.project.ID, "ann")
			if err != nil {
				t.Fatal(err)
			}
			if created != 1 || used != n-1 || len(conns) != 1 {
				t.Fatalf("%d created, %d LINK_USED, %d accounts stored; want 1, %d, 1", created, used, len(conns), n-1)
			}

			// Reconnecting one account: one rotation, the rest LINK_USED.
			token = f.link(t, `{"userId":"ann","connectors":["zeta"]}`)
			statuses, codes = f.race(n, "POST", func(int) string { return "/api/connect/" + token + "/accounts" }, func(int) string {
				return fmt.Sprintf(`{"authConfigId":%q,"fields":{"apiKey":"zeta-key-2"},"connectionId":%q}`, cfg, conns[0].ID)
			})
			ok, used := 0, 0
			for i := range n {
				switch {
				case statuses[i] == 200:
					ok++
				case statuses[i] == 410 && codes[i] == "LINK_USED":
					used++
				default:
					t.Errorf("reconnect %d: %d %s", i, statuses[i], codes[i])
				}
			}
			after, err := f.store.GetConnection(ctx, f.project.ID, conns[0].ID)
			if err != nil {
				t.Fatal(err)
			}
			if ok != 1 || used != n-1 || after.Revision != conns[0].Revision+1 {
				t.Fatalf("%d reconnected, %d LINK_USED, revision %d -> %d; want 1, %d, one rotation", ok, used, conns[0].Revision, after.Revision, n-1)
			}
		})
	}
}

// TestConnect_OAuthCallbacksOfOneLinkRace_OneAccount completes five OAuth
// sign-ins started from one link at once: exactly one account is stored
// and the other callbacks say the link was used.
func TestConnect_OAuthCallbacksOfOneLinkRace_OneAccount(t *testing.T) {
	t.Parallel()
	for _, db := range bothStores {
		t.Run(db.name, func(t *testing.T) {
			t.Parallel()
			f, fake := setupConnectOn(t, db.open)
			token := f.link(t, `{"userId":"ann","connectors":["epsilon"]}`)
			cfg := f.offeredConfig(t, token, "epsilon", "oauth2")
			const n = 5
			callbacks, cookies := make([]string, n), make([]string, n)
			for i := range n {
				var authURL string
				authURL, cookies[i] = f.authorize(t, token, `{"authConfigId":"`+cfg+`"}`)
				callbacks[i] = fake.approve(t, authURL, fmt.Sprintf("code-%d", i))
			}
			statuses, _ := f.race(n, "GET", func(i int) string { return callbacks[i] }, func(int) string { return "" }, func(i int) []string {
				return []string{"Cookie", cookies[i]}
			})
			ok := 0
			for _, s := range statuses {
				if s == 200 {
					ok++
				}
			}
			conns, err := f.store.ListConnections(context.Background(), f.project.ID, "ann")
			if err != nil {
				t.Fatal(err)
			}
			if ok != 1 || len(conns) != 1 {
				t.Fatalf("%d callbacks succeeded, %d accounts stored; want 1 and 1 (statuses %v)", ok, len(conns), statuses)
			}
		})
	}
}
