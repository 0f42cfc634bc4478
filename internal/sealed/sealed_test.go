package sealed

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
)

// eachDatabase runs fn on SQLite and, when configured, on PostgreSQL.
func eachDatabase(t *testing.T, fn func(t *testing.T, st *store.Store)) {
	t.Helper()
	for name, open := range map[string]storetest.Opener{"sqlite": storetest.OpenSQLite, "postgres": storetest.OpenPostgres} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, open(t, nil))
		})
	}
}

func key(t *testing.T, id string) secret.Key {
	t.Helper()
	m := make([]byte, secret.KeySize)
	if _, err := rand.Read(m); err != nil {
		t.Fatal(err)
	}
	return secret.Key{ID: id, Material: m}
}

func ring(t *testing.T, keys ...secret.Key) *secret.Keyring {
	t.Helper()
	r, err := secret.NewKeyring(keys...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// stored is one seeded value: where it is and what it opens to.
type stored struct {
	column string
	keys   []string
	plain  string
}

func seal(t *testing.T, r *secret.Keyring, column string, keys []string, plain string) []byte {
	t.Helper()
	a, err := aad(store.SealedValue{Column: column, Keys: keys})
	if err != nil {
		t.Fatal(err)
	}
	ct, err := r.Seal([]byte(plain), a)
	if err != nil {
		t.Fatal(err)
	}
	return ct
}

// seed stores values in every sealed column with r: three of most, so a
// batch of two pages through them.
func seed(t *testing.T, st *store.Store, r *secret.Keyring) (projectID string, values []stored) {
	t.Helper()
	ctx := context.Background()
	p, err := st.CreateProject(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	add := func(column string, keys []string) []byte {
		plain := fmt.Sprintf("%s %s secret", column, strings.Join(keys, "/"))
		values = append(values, stored{column, keys, plain})
		return seal(t, r, column, keys, plain)
	}
	ac := store.AuthConfig{ID: store.NewID(), ProjectID: p.ID, ConnectorID: "github", Key: "gh", AuthMethodID: "oauth2", AuthType: "oauth2", ClientID: "c"}
	ac.ClientSecret = add("auth_configs.client_secret", []string{ac.ID})
	if ac, err = st.CreateAuthConfig(ctx, ac); err != nil {
		t.Fatal(err)
	}
	link, err := st.CreateConnectLink(ctx, store.ConnectLink{ProjectID: p.ID, UserID: "u", TokenHash: store.NewID(), ExpiresAt: time.Now().Add(time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		id := store.NewID()
		c, err := st.CreateConnection(ctx, store.NewConnection{ID: id, ProjectID: p.ID, ConnectorID: "github", AuthConfigID: ac.ID,
			UserID: "u", Name: fmt.Sprintf("n%d", i), Credential: add("connections.credential", []string{id})})
		if err != nil {
			t.Fatal(err)
		}
		tid := store.NewID()
		if _, err := st.CreateTrigger(ctx, store.Trigger{ID: tid, ProjectID: p.ID, ConnectionID: c.ID, ConnectorID: "github",
			Event: "github_issue_opened", TokenHash: store.NewID(), Setup: "manual", Secret: add("triggers.secret", []string{tid})}); err != nil {
			t.Fatal(err)
		}
		wid := store.NewID()
		if _, err := st.CreateWebhook(ctx, store.Webhook{ID: wid, ProjectID: p.ID, URL: "https://hooks.example.com", Events: []string{"trigger.fired"},
			Secret: add("webhooks.secret", []string{wid})}); err != nil {
			t.Fatal(err)
		}
		eid := store.NewID()
		if _, err := st.CreateEndpoint(ctx, store.Endpoint{ID: eid, ProjectID: p.ID, Slug: fmt.Sprintf("signin-%d", i), Mode: "tools", Spec: []byte("{}"),
			Auth: store.AuthOAuth, AuthConfig: []byte("{}"), AuthSecret: add("endpoints.auth_secret", []string{eid})}); err != nil {
			t.Fatal(err)
		}
		cid := fmt.Sprintf("mcp_%d", i)
		if err := st.PutProjectConnector(ctx, store.ProjectConnector{ProjectID: p.ID, ConnectorID: cid, Origin: "mcp", Definition: []byte("{}"),
			Headers: add("project_connectors.headers", []string{p.ID, cid})}); err != nil {
			t.Fatal(err)
		}
	}
	sid := store.NewID()
	if err := st.CreateOAuthState(ctx, store.OAuthState{ID: sid, StateHash: store.NewID(), LinkID: link.ID, AuthConfigID: ac.ID,
		Verifier: add("oauth_states.verifier", []string{sid}), ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	// A row without a sealed value is not a value to reseal.
	if _, err := st.CreateTrigger(ctx, store.Trigger{ID: store.NewID(), ProjectID: p.ID, ConnectionID: values[1].keys[0], ConnectorID: "github",
		Event: "github_issue_opened", TokenHash: store.NewID(), Setup: "auto"}); err != nil {
		t.Fatal(err)
	}
	return p.ID, values
}

// requireSealedWith checks that every seeded value is sealed with keyID and
// opens, under its own row, to what was stored.
func requireSealedWith(t *testing.T, st *store.Store, r *secret.Keyring, keyID string, values []stored) {
	t.Helper()
	for _, want := range values {
		v, err := st.GetSealed(context.Background(), want.column, want.keys)
		if err != nil {
			t.Fatalf("%s %v: %v", want.column, want.keys, err)
		}
		if id, _ := secret.KeyID(v.Value); id != keyID {
			t.Errorf("%s %v is sealed with %q, want %q", want.column, want.keys, id, keyID)
		}
		a, _ := aad(v)
		plain, err := r.Open(v.Value, a)
		if err != nil || string(plain) != want.plain {
			t.Errorf("%s %v opens to %q, %v; want %q", want.column, want.keys, plain, err, want.plain)
		}
	}
}

func TestPurposes_EverySealedColumnHasOne(t *testing.T) {
	t.Parallel()
	for _, c := range store.SealedColumns() {
		if _, ok := purposes[c.Name]; !ok {
			t.Errorf("sealed column %s has no purpose: rekey could not reseal it", c.Name)
		}
	}
	if len(purposes) != len(store.SealedColumns()) {
		t.Errorf("%d purposes for %d sealed columns", len(purposes), len(store.SealedColumns()))
	}
}

func TestRekey_ResealsEveryColumnUnderThePrimary(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		k1, k2 := key(t, "k1"), key(t, "k2")
		old := ring(t, k1)
		if err := Check(ctx, st, old, Origin{}); err != nil {
			t.Fatal(err)
		}
		_, values := seed(t, st, old)

		both := ring(t, k2, k1)
		if err := Check(ctx, st, both, Origin{}); err != nil {
			t.Fatalf("a ring with the new key first: %v", err)
		}
		rep, err := Rekey(ctx, st, both, Options{BatchSize: 2})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Scanned != len(values) || rep.Resealed != len(values) || rep.Unopenable != 0 || rep.Current != 0 ||
			fmt.Sprint(rep.KeyIDsInUse) != "[k2]" || fmt.Sprint(rep.KeyIDsNoLongerNeeded) != "[k1]" {
			t.Fatalf("report: %+v (seeded %d)", rep, len(values))
		}
		for _, c := range rep.Columns {
			if c.Scanned == 0 {
				t.Errorf("column %s: nothing scanned", c.Column)
			}
		}
		onlyNew := ring(t, k2)
		requireSealedWith(t, st, onlyNew, "k2", values)

		// Rerunning finds nothing left to do.
		rep, err = Rekey(ctx, st, both, Options{BatchSize: 2})
		if err != nil || rep.Resealed != 0 || rep.Current != len(values) {
			t.Fatalf("second run: %+v, %v", rep, err)
		}
		// The old key can go; the new one cannot.
		if err := Check(ctx, st, onlyNew, Origin{}); err != nil {
			t.Fatalf("start without the retired key: %v", err)
		}
		err = Check(ctx, st, old, Origin{})
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), `"k2"`) {
			t.Fatalf("start with only the retired key: %v", err)
		}
	})
}

// A write that lands between rekey's read and its replace (here a rotation
// by a replica still sealing with the old key) is kept, and resealed.
func TestRekey_ConcurrentWriteIsNotOverwritten(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		k1, k2 := key(t, "k1"), key(t, "k2")
		old, both := ring(t, k1), ring(t, k2, k1)
		projectID, values := seed(t, st, old)
		target := values[1]
		if target.column != "connections.credential" {
			t.Fatalf("seed order changed: %s", target.column)
		}
		conn, err := st.GetConnection(ctx, projectID, target.keys[0])
		if err != nil {
			t.Fatal(err)
		}
		var once sync.Once
		rotated := `{"type":"api_key","apiKey":"rotated during rekey"}`
		opts := Options{BatchSize: 2, beforeReplace: func(v store.SealedValue) {
			if v.Column != target.column || v.Keys[0] != target.keys[0] {
				return
			}
			once.Do(func() {
				if _, err := st.RotateCredential(ctx, projectID, conn.ID, conn.Revision, seal(t, old, target.column, target.keys, rotated), nil); err != nil {
					t.Errorf("concurrent rotation: %v", err)
				}
			})
		}}
		rep, err := Rekey(ctx, st, both, opts)
		if err != nil {
			t.Fatal(err)
		}
		if rep.Retried != 1 || rep.Resealed != len(values) {
			t.Fatalf("report: %+v", rep)
		}
		values[1].plain = rotated
		requireSealedWith(t, st, ring(t, k2), "k2", values)
	})
}

// Of several replicas starting at once with keys of their own on an empty
// database, one wins.
func TestCheck_FirstStartRace_OneKeyWins(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, st *store.Store) {
		const n = 6
		errs := make([]error, n)
		var wg sync.WaitGroup
		for i := range n {
			r := ring(t, key(t, fmt.Sprintf("k%d", i)))
			wg.Go(func() {
				errs[i] = Check(context.Background(), st, r, Origin{NewKeyFile: true, KeyFile: "secret.key", Postgres: true})
			})
		}
		wg.Wait()
		won := 0
		for _, err := range errs {
			if err == nil {
				won++
			} else if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "SWITCHBOARD_SECRET_KEYS") {
				t.Errorf("refusal: %v", err)
			}
		}
		if won != 1 {
			t.Fatalf("%d replicas started with their own key: %v", won, errs)
		}
	})
}

// An installation from before the key records: the first check takes stock
// of the data, refuses a ring without its key or with other material under
// its id, and accepts the right key.
func TestCheck_TakesStockOfDataSealedBeforeTheRecords(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		k1 := key(t, "k1")
		seed(t, st, ring(t, k1))

		err := Check(ctx, st, ring(t, key(t, "k20260102-0a0b0c0d")), Origin{NewKeyFile: true, KeyFile: "data/secret.key"})
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), `"k1"`) || !strings.Contains(err.Error(), "restore the key file") {
			t.Fatalf("new key file over old data: %v", err)
		}
		err = Check(ctx, st, ring(t, key(t, "k1")), Origin{})
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "not the key") {
			t.Fatalf("other material under k1: %v", err)
		}
		if err := Check(ctx, st, ring(t, k1), Origin{}); err != nil {
			t.Fatalf("the right key: %v", err)
		}
		// Now recorded with a check value: other material is still told apart.
		err = Check(ctx, st, ring(t, key(t, "k1")), Origin{})
		if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), "not the key") {
			t.Fatalf("other material under k1, recorded: %v", err)
		}
	})
}

// Values the ring cannot open are counted and keep their key needed.
func TestRekey_UnopenableValuesKeepTheirKeyNeeded(t *testing.T) {
	t.Parallel()
	eachDatabase(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		k1 := key(t, "k1")
		_, values := seed(t, st, ring(t, k1))
		if err := Check(ctx, st, ring(t, k1), Origin{}); err != nil {
			t.Fatal(err)
		}
		other := ring(t, key(t, "k2"))
		rep, err := Rekey(ctx, st, other, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if rep.Unopenable != len(values) || rep.Resealed != 0 || fmt.Sprint(rep.UnopenableKeyIDs) != "[k1]" || len(rep.KeyIDsNoLongerNeeded) != 0 {
			t.Fatalf("report: %+v", rep)
		}
		if err := Check(ctx, st, other, Origin{}); !errors.Is(err, ErrRefused) {
			t.Fatalf("start without k1 after a rekey that could not reseal: %v", err)
		}
		v, _ := st.GetSealed(ctx, values[0].column, values[0].keys)
		if id, _ := secret.KeyID(v.Value); id != "k1" || bytes.Equal(v.Value, nil) {
			t.Fatalf("an unopenable value was changed: %q", id)
		}
	})
}
