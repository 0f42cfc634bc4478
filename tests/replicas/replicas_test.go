// Package replicas proves that several `switchboard serve` processes on
// one PostgreSQL database behave as one service: it builds the binary,
// starts three replicas behind a round-robin balancer and drives mixed
// traffic at them, killing one with SIGKILL on the way.
package replicas

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store/storetest"
)

// world is what the scenarios share: the cluster, its fakes and the
// records made for them.
type world struct {
	c        *cluster
	api      client // the project's API key
	prov     *provider
	recv     *receiver
	project  string
	itemsFn  string // the imported connector's tool id
	ingress  string // the trigger's ingress path
	ghSecret string
	db       string // the database URL the replicas share
}

// TestReplicas_ThreeServeProcessesOnOnePostgres_ActAsOne starts three
// replicas on one fresh PostgreSQL schema and checks, across replicas:
// sessions, single-use connect links, the trigger ingress rate limit, one
// OAuth refresh for many concurrent executes, an exact quota and policy
// changes applied at once, webhook deliveries through a SIGKILL and
// restart, and API key revocation.
func TestReplicas_ThreeServeProcessesOnOnePostgres_ActAsOne(t *testing.T) {
	if testing.Short() {
		t.Skip("starts three server processes for about two minutes")
	}
	dbURL := storetest.PostgresSchemaURL(t)
	began := time.Now()
	bin := buildBinary(t, t.TempDir())

	w := &world{prov: newProvider(t), recv: newReceiver(t), ghSecret: "gh-secret", db: dbURL}
	var ring [32]byte
	_, _ = rand.Read(ring[:])
	env := append(os.Environ(),
		"SWITCHBOARD_DATABASE_URL="+dbURL,
		"SWITCHBOARD_SECRET_KEYS=k1:"+base64.StdEncoding.EncodeToString(ring[:]),
		"SWITCHBOARD_OUTBOUND_ALLOW=connectors=127.0.0.0/8,webhooks=127.0.0.0/8",
		"SSL_CERT_FILE="+w.prov.certFile(t),
		"SWITCHBOARD_LOG_LEVEL=warn",
		"SWITCHBOARD_WEBHOOKS_ALLOW_HTTP_LOOPBACK=true",
	)
	w.c = newCluster(t, bin, 3, env)
	setup := time.Now()
	w.c.startAll()
	t.Logf("3 replicas healthy in %v", time.Since(setup).Round(time.Millisecond))
	w.seed(t)

	w.webhooksThroughKill(t, func() {
		// Run while the killed replica's leases run out.
		w.sessionsAcrossReplicas(t)
		w.connectLinksOnce(t)
		w.oneRefresh(t)
		w.quotaAndPolicyAcrossReplicas(t)
		w.revocationAtOnce(t)
	})
	t.Logf("balancer spread over the replicas: %v; whole test %v", w.c.lb.spread(), time.Since(began).Round(time.Millisecond))
}

// seed makes, with the admin commands, what the API cannot (a project,
// its keys, an imported OAuth connector and its auth config), and the
// rest through the API.
func (w *world) seed(t *testing.T) {
	c := w.c
	var proj struct{ ID string }
	c.adminJSON(&proj, "", "project", "create", "replicas")
	w.project = proj.ID
	var key struct{ Key string }
	c.adminJSON(&key, "", "key", "create", "--project", proj.ID, "--name", "main")
	w.api = client{t: t, key: key.Key, hc: &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 64}}}

	doc := t.TempDir() + "/items.yaml"
	if err := os.WriteFile(doc, []byte(w.prov.openAPI()), 0o600); err != nil {
		t.Fatal(err)
	}
	var imp struct {
		Changes struct{ Added []string } `json:"changes"`
	}
	c.adminJSON(&imp, "", "openapi", "import", "--project", proj.ID, "--id", "items", doc)
	if len(imp.Changes.Added) != 1 {
		t.Fatalf("import: %+v", imp)
	}
	w.itemsFn = imp.Changes.Added[0]
	c.admin("client-secret\n", "authconfig", "create", "--project", proj.ID, "--connector", "items", "--type", "oauth2",
		"--client-id", "client-id", "--client-secret", "-", "--key", "items_oauth")
	c.admin("", "authconfig", "create", "--project", proj.ID, "--connector", "github", "--type", "api_key", "--key", "github_api_key")

	lb := c.lb.URL()
	var hook struct {
		Data struct{ Secret string } `json:"data"`
	}
	w.api.must(201, "POST", lb+"/v1/webhooks", map[string]any{"url": w.recv.srv.URL + "/hook"}).decode(t, &hook)
	w.recv.setSecret(t, hook.Data.Secret)

	var conn struct {
		Data struct{ ID string } `json:"data"`
	}
	w.api.must(200, "POST", lb+"/v1/connections", map[string]any{
		"connectorId": "github", "userId": "alice", "authConfig": "github_api_key",
		"credential": map[string]any{"type": "api_key", "apiKey": "ghp_alice"},
	}).decode(t, &conn)
	var trig struct {
		Data struct{ URL string } `json:"data"`
	}
	w.api.must(201, "POST", lb+"/v1/triggers", map[string]any{
		"connectionId": conn.Data.ID, "event": "github_issue_opened", "secret": w.ghSecret,
		"config": map[string]string{"owner": "acme", "repo": "app"},
	}).decode(t, &trig)
	if !strings.HasPrefix(trig.Data.URL, lb+"/api/triggers/") {
		t.Fatalf("trigger url %q is not on the public base URL %s", trig.Data.URL, lb)
	}
	w.ingress = strings.TrimPrefix(trig.Data.URL, lb)

	w.api.must(200, "POST", lb+"/v1/connections", map[string]any{
		"connectorId": "items", "userId": "olga", "authConfig": "items_oauth",
		"credential": map[string]any{"type": "oauth2", "accessToken": "old-access-token", "refreshToken": "old-refresh-token",
			"expiresAt": "2020-01-01T00:00:00Z", "scopes": []string{"items:read"}},
	})
}

// deliver sends one signed GitHub "issue opened" event to the trigger
// at base and returns the status.
func (w *world) deliver(ctx context.Context, base string, n int) int {
	body := fmt.Appendf(nil, `{"action":"opened","issue":{"number":%d,"title":"replica test"}}`, n)
	mac := hmac.New(sha256.New, []byte(w.ghSecret))
	mac.Write(body)
	var id [8]byte
	_, _ = rand.Read(id[:])
	a := client{hc: w.api.hc}.do(ctx, "POST", base+w.ingress, body,
		"X-GitHub-Event", "issues", "X-GitHub-Delivery", hex.EncodeToString(id[:]),
		"X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
	return a.status
}

// webhooksThroughKill sends 600 verified deliveries to one trigger through
// the balancer (all 200), then one more to each replica (all 429: the
// count is shared). The webhook receiver holds every delivery unanswered
// meanwhile, so each replica has deliveries in flight; one replica is then
// killed with SIGKILL and restarted, the receiver answers, and every one
// of the 600 deliveries must arrive, each acknowledged once, no two
// requests of one delivery ever in flight together. during runs while the
// killed replica's claims wait for their lease to run out.
func (w *world) webhooksThroughKill(t *testing.T, during func()) {
	const limit = 600
	// The count is per calendar minute: start with room enough in this one.
	if left := time.Minute - time.Duration(time.Now().UnixNano()%int64(time.Minute)); left < 15*time.Second {
		t.Logf("waiting %v for the next minute", left.Round(time.Millisecond))
		time.Sleep(left + 100*time.Millisecond)
	}
	ctx := context.Background()
	lb := w.c.lb.URL()
	start := time.Now()
	minute := start.Unix() / 60
	statuses := make([]int, limit)
	var wg sync.WaitGroup
	jobs := make(chan int)
	for range 12 {
		wg.Go(func() {
			for i := range jobs {
				statuses[i] = w.deliver(ctx, lb, i)
			}
		})
	}
	for i := range limit {
		jobs <- i
	}
	close(jobs)
	wg.Wait()
	ingressTook := time.Since(start)
	for i, s := range statuses {
		if s != 200 {
			t.Fatalf("delivery %d of %d: %d, want 200", i+1, limit, s)
		}
	}
	for i, r := range w.c.replicas {
		if s := w.deliver(ctx, r.base(), limit+i); s != 429 {
			t.Errorf("delivery %d to %s: %d, want 429 (the count is shared)", limit+1+i, r.name, s)
		}
	}
	if time.Now().Unix()/60 != minute {
		t.Fatalf("the ingress burst crossed a minute boundary (%v); the counts above are not meaningful", time.Since(start))
	}
	t.Logf("ingress: %d verified deliveries in %v (%.0f/s), the next one 429 on each of the 3 replicas",
		limit, ingressTook.Round(time.Millisecond), float64(limit)/ingressTook.Seconds())

	// Every replica's worker is now blocked on the first small batch it
	// claimed during the burst. Answer those: each worker then claims a
	// full batch of the backlog, held in its turn, and one replica dies
	// holding a full batch.
	settle := func() int {
		held, since := 0, time.Now()
		for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
			if h := w.recv.counts().held; h != held {
				held, since = h, time.Now()
			} else if held > 0 && time.Since(since) > 1500*time.Millisecond {
				break // longer than a worker's poll interval
			}
		}
		return held
	}
	settle()
	w.recv.release()
	held := settle()
	victim := w.c.replicas[1]
	w.c.kill(victim)
	killedAt := time.Now()
	// The receiver sees the dead sender's connections close: wait until
	// the count of abandoned requests stops growing.
	abandoned, since := 0, time.Now()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if a := w.recv.counts().abandoned; a != abandoned {
			abandoned, since = a, time.Now()
		} else if abandoned > 0 && time.Since(since) > 300*time.Millisecond {
			break
		}
	}
	if abandoned == 0 {
		t.Fatalf("%s held no delivery in flight when it was killed (%d held in all)", victim.name, held)
	}
	w.c.start(victim)
	t.Logf("webhooks: %d deliveries held in flight, %s killed with SIGKILL holding %d of them, restarted in %v",
		held, victim.name, abandoned, time.Since(killedAt).Round(time.Millisecond))
	w.recv.open()

	during()

	var got counts
	deadline := time.Now().Add(100 * time.Second)
	for ; time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if got = w.recv.counts(); got.distinct >= limit && got.held == 0 {
			break
		}
	}
	if got.distinct != limit || got.acks != limit || got.twice != 0 || got.overlaps != 0 || got.badSig != 0 {
		t.Fatalf("webhook receiver: %d distinct deliveries acknowledged (want %d), %d acknowledgements, %d acknowledged twice, "+
			"%d arrived while a request of the same delivery was in flight, %d bad signatures", got.distinct, limit, got.acks, got.twice, got.overlaps, got.badSig)
	}
	t.Logf("webhooks: all %d delivered once each, %d abandoned by the killed replica and redelivered after their lease, %v after the kill",
		limit, got.abandoned, time.Since(killedAt).Round(time.Millisecond))
}

// sessionsAcrossReplicas creates a session on one replica and reads,
// lists and calls it on the others.
func (w *world) sessionsAcrossReplicas(t *testing.T) {
	r := w.c.replicas
	var s struct {
		Data struct {
			ID, ScopeHash string
			Connectors    []struct {
				ID         string
				Connection struct{ Status string }
			}
		} `json:"data"`
	}
	w.api.must(201, "POST", r[0].base()+"/v1/sessions", map[string]any{"userId": "alice", "connectors": []string{"github"}}).decode(t, &s)
	id := s.Data.ID
	var got struct {
		Data struct {
			ID, ScopeHash string
			Connectors    []struct{ Connection struct{ Status string } }
		} `json:"data"`
	}
	w.api.must(200, "GET", r[1].base()+"/v1/sessions/"+id, nil).decode(t, &got)
	if got.Data.ID != id || got.Data.ScopeHash != s.Data.ScopeHash || len(got.Data.Connectors) != 1 || got.Data.Connectors[0].Connection.Status != "connected" {
		t.Fatalf("session read on %s: %+v, created on %s as %+v", r[1].name, got.Data, r[0].name, s.Data)
	}
	var tools struct {
		Data struct {
			ScopeHash string
			Tools     []struct{ Name string }
		} `json:"data"`
	}
	w.api.must(200, "GET", r[2].base()+"/v1/sessions/"+id+"/tools", nil).decode(t, &tools)
	if tools.Data.ScopeHash != s.Data.ScopeHash || len(tools.Data.Tools) == 0 {
		t.Fatalf("session tools on %s: %+v", r[2].name, tools.Data)
	}
	var found struct {
		OK bool `json:"ok"`
	}
	w.api.must(200, "POST", r[1].base()+"/v1/sessions/"+id+"/tools/"+tools.Data.Tools[0].Name,
		map[string]any{"arguments": map[string]any{"queries": []string{"open an issue"}}}).decode(t, &found)
	if !found.OK {
		t.Fatalf("session tool %s on %s refused", tools.Data.Tools[0].Name, r[1].name)
	}
	var rpc struct {
		Result struct{ Tools []struct{ Name string } } `json:"result"`
	}
	w.api.must(200, "POST", r[2].base()+"/v1/sessions/"+id+"/mcp",
		map[string]any{"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, "Accept", "application/json, text/event-stream").decode(t, &rpc)
	if len(rpc.Result.Tools) != len(tools.Data.Tools) {
		t.Fatalf("session MCP tools/list on %s: %d tools, REST listed %d", r[2].name, len(rpc.Result.Tools), len(tools.Data.Tools))
	}
	t.Logf("sessions: created on %s, read on %s, listed, called and served over MCP on %s and %s", r[0].name, r[1].name, r[2].name, r[1].name)
}

// link creates a connect link for user on replica base and returns its
// token and the id of the GitHub API key config it offers.
func (w *world) link(t *testing.T, base, user string) (string, string) {
	var l struct {
		Data struct{ URL string } `json:"data"`
	}
	w.api.must(201, "POST", base+"/v1/connect-links", map[string]any{"userId": user, "connectors": []string{"github"}}).decode(t, &l)
	token := l.Data.URL[strings.LastIndex(l.Data.URL, "/")+1:]
	var view struct {
		Data struct {
			Connectors []struct {
				ID          string
				AuthConfigs []struct{ ID, Type string }
			}
		} `json:"data"`
	}
	client{t: t, hc: w.api.hc}.must(200, "GET", base+"/api/connect/"+token, nil).decode(t, &view)
	for _, c := range view.Data.Connectors {
		for _, ac := range c.AuthConfigs {
			if c.ID == "github" && ac.Type == "api_key" {
				return token, ac.ID
			}
		}
	}
	t.Fatalf("the link offers no GitHub API key config: %+v", view.Data)
	return "", ""
}

// connectLinksOnce uses a link on one replica, then again on every
// replica (410 LINK_USED), and sends 20 uses of another link at once
// through the balancer: one account.
func (w *world) connectLinksOnce(t *testing.T) {
	r := w.c.replicas
	page := client{t: t, hc: w.api.hc}
	token, cfg := w.link(t, r[0].base(), "carl")
	use := func(name string) map[string]any {
		return map[string]any{"authConfigId": cfg, "fields": map[string]string{"apiKey": "ghp_carl"}, "name": name}
	}
	page.must(201, "POST", r[1].base()+"/api/connect/"+token+"/accounts", use("first"))
	for _, rr := range r {
		if a := page.must(410, "POST", rr.base()+"/api/connect/"+token+"/accounts", use("again-"+rr.name)); a.code() != "LINK_USED" {
			t.Fatalf("second use on %s: %s", rr.name, a.body)
		}
	}
	var status struct {
		Data struct{ Status string } `json:"data"`
	}
	page.must(200, "GET", r[2].base()+"/api/connect/"+token, nil).decode(t, &status)
	if status.Data.Status != "used" {
		t.Fatalf("link status on %s: %q, want used", r[2].name, status.Data.Status)
	}

	const n = 20
	token, cfg = w.link(t, r[2].base(), "dora")
	codes := make([]string, n)
	var wg sync.WaitGroup
	var start sync.WaitGroup
	start.Add(1)
	for i := range n {
		wg.Go(func() {
			body, _ := json.Marshal(map[string]any{"authConfigId": cfg, "fields": map[string]string{"apiKey": "ghp_dora"}, "name": fmt.Sprintf("acct-%d", i)})
			start.Wait()
			a := page.do(context.Background(), "POST", w.c.lb.URL()+"/api/connect/"+token+"/accounts", body)
			codes[i] = fmt.Sprintf("%d %s", a.status, a.code())
		})
	}
	start.Done()
	wg.Wait()
	tally := map[string]int{}
	for _, c := range codes {
		tally[c]++
	}
	if tally["201 "] != 1 || tally["410 LINK_USED"] != n-1 {
		t.Fatalf("%d parallel uses of one link: %v, want one 201 and %d 410 LINK_USED", n, tally, n-1)
	}
	var conns struct {
		Data []struct{ ConnectorID string } `json:"data"`
	}
	w.api.must(200, "GET", w.c.lb.URL()+"/v1/connections?userId=dora", nil).decode(t, &conns)
	if len(conns.Data) != 1 {
		t.Fatalf("dora has %d accounts after %d parallel uses of one link, want 1", len(conns.Data), n)
	}
	t.Logf("connect links: used on %s, then 410 LINK_USED on all 3; %d parallel uses through the balancer: %v, 1 account", r[1].name, n, tally)
}

// oneRefresh runs 60 concurrent executes of an OAuth tool whose token has
// expired, through the balancer: one refresh at the provider, every call
// made with the fresh token.
func (w *world) oneRefresh(t *testing.T) {
	const n = 60
	body, _ := json.Marshal(map[string]any{"toolId": w.itemsFn, "userId": "olga"})
	statuses := make([]string, n)
	var wg, start sync.WaitGroup
	start.Add(1)
	began := time.Now()
	for i := range n {
		wg.Go(func() {
			start.Wait()
			a := w.api.do(context.Background(), "POST", w.c.lb.URL()+"/v1/tools/execute", body)
			statuses[i] = fmt.Sprint(a.status)
			if a.status != 200 {
				statuses[i] += " " + string(a.body)
			}
		})
	}
	start.Done()
	wg.Wait()
	took := time.Since(began)
	for i, s := range statuses {
		if s != "200" {
			t.Fatalf("execute %d of %d: %s", i+1, n, s)
		}
	}
	if got := w.prov.refreshes.Load(); got != 1 {
		t.Fatalf("%d concurrent executes over 3 replicas made %d token refreshes, want 1", n, got)
	}
	if stale := w.prov.stale.Load(); stale != 0 {
		t.Fatalf("%d provider calls carried the expired token", stale)
	}
	t.Logf("OAuth: %d concurrent executes over 3 replicas in %v: %d refresh, %d provider calls, all with the fresh token",
		n, took.Round(time.Millisecond), w.prov.refreshes.Load(), w.prov.calls.Load())
}

// revokeBound is how long after a revocation has committed a replica may
// still accept the key: replicas cache verified keys and hear of a
// revocation by PostgreSQL notification (docs/design-notes.md), which
// takes milliseconds.
const revokeBound = 500 * time.Millisecond

// revocationAtOnce revokes a key that every replica has just accepted and
// checks each refuses it within revokeBound of the revocation. First it
// shows that the replicas answer keys from their caches: a revocation made
// with the notifying trigger off goes unseen until the key's expiry is
// changed, which notifies.
func (w *world) revocationAtOnce(t *testing.T) {
	newKey := func(name string) (string, client) {
		var key struct{ ID, Key string }
		w.c.adminJSON(&key, "", "key", "create", "--project", w.project, "--name", name)
		c := client{t: t, key: key.Key, hc: w.api.hc}
		for _, r := range w.c.replicas {
			for range 3 { // warm whatever a replica might keep
				c.must(200, "GET", r.base()+"/v1/triggers", nil)
			}
		}
		return key.ID, c
	}

	silentID, silent := newKey("silently-revoked")
	db, err := sql.Open("pgx", w.db)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`ALTER TABLE api_keys DISABLE TRIGGER api_keys_notify`,
		`UPDATE api_keys SET revoked_at = 1 WHERE id = $1`, `ALTER TABLE api_keys ENABLE TRIGGER api_keys_notify`} {
		var args []any
		if strings.Contains(q, "$1") {
			args = []any{silentID}
		}
		if _, err := tx.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	for _, r := range w.c.replicas {
		silent.must(200, "GET", r.base()+"/v1/triggers", nil)
	}
	if _, err := db.ExecContext(ctx, `UPDATE api_keys SET expires_at = 1 WHERE id = $1`, silentID); err != nil {
		t.Fatal(err)
	}
	slowest, accepted := w.refusedWithin(t, silent, time.Now())
	t.Logf("key cache: a key revoked unannounced is still accepted by all 3 replicas (cached), and refused within %v once its expiry changes (%d requests accepted meanwhile)",
		slowest.Round(time.Millisecond), accepted)

	id, other := newKey("to-revoke")
	w.c.admin("", "key", "revoke", id)
	slowest, accepted = w.refusedWithin(t, other, time.Now())
	w.api.must(200, "GET", w.c.lb.URL()+"/v1/triggers", nil)
	t.Logf("revocation: a key every replica had just accepted is 401 UNAUTHORIZED on all 3 within %v of the revocation (bound %v; %d requests accepted meanwhile)",
		slowest.Round(time.Millisecond), revokeBound, accepted)
}

// refusedWithin asks each replica with c's key until it answers 401
// UNAUTHORIZED, failing past revokeBound after since, and returns the
// longest wait and how many requests were still accepted.
func (w *world) refusedWithin(t *testing.T, c client, since time.Time) (slowest time.Duration, accepted int) {
	t.Helper()
	for _, r := range w.c.replicas {
		for {
			a := c.do(context.Background(), "GET", r.base()+"/v1/triggers", nil)
			took := time.Since(since)
			if a.status == 401 && a.code() == "UNAUTHORIZED" {
				slowest = max(slowest, took)
				break
			}
			if a.status != 200 {
				t.Fatalf("revoked key on %s: %d %s", r.name, a.status, a.body)
			}
			if took > revokeBound {
				t.Fatalf("revoked key still accepted by %s %v after the change", r.name, took)
			}
			accepted++
			time.Sleep(time.Millisecond)
		}
	}
	return slowest, accepted
}
