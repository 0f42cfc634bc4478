package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/webhook"
)

// Finding 16: `admin rekey` reseals what the old key sealed under the new
// primary, so the old key can be dropped from the ring.
func TestAdminRekey_ResealsThenTheOldKeyCanGo(t *testing.T) {
	t.Parallel()
	env := dbEnv(t)
	delete(env, "SWITCHBOARD_SECRET_KEY_FILE")
	k1, k2 := randomKeys(t, "k1"), randomKeys(t, "k2")
	env["SWITCHBOARD_SECRET_KEYS"] = k1
	proj := newProject(t, env)
	for _, u := range []string{"https://hooks.example.com/a", "https://hooks.example.com/b"} {
		if code, _, stderr := runCLI(t, env, "admin", "webhook", "create", "--project", proj.ID, "--url", u); code != 0 {
			t.Fatalf("webhook create: %d %s", code, stderr)
		}
	}

	env["SWITCHBOARD_SECRET_KEYS"] = k2 + "," + k1
	code, out, stderr := runCLI(t, env, "admin", "rekey", "--json")
	var rep struct {
		PrimaryKeyID  string   `json:"primaryKeyId"`
		Resealed      int      `json:"resealed"`
		Unopenable    int      `json:"unopenable"`
		NoLongerUsed  []string `json:"keyIdsNoLongerNeeded"`
		StillRequired []string `json:"keyIdsInUse"`
	}
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("rekey: %d %s %s", code, out, stderr)
	}
	if rep.PrimaryKeyID != "k2" || rep.Resealed != 2 || rep.Unopenable != 0 ||
		strings.Join(rep.NoLongerUsed, ",") != "k1" || strings.Join(rep.StillRequired, ",") != "k2" {
		t.Fatalf("rekey report: %s", out)
	}
	// Safe to rerun: nothing left to do.
	code, out, _ = runCLI(t, env, "admin", "rekey")
	if code != 0 || !strings.Contains(out, "resealed 0") || !strings.Contains(out, "k1") {
		t.Fatalf("second rekey: %d %s", code, out)
	}

	// The ring without k1 starts and opens every webhook secret.
	env["SWITCHBOARD_SECRET_KEYS"] = k2
	if code, _, stderr := runCLI(t, env, "admin", "webhook", "list", "--project", proj.ID); code != 0 {
		t.Fatalf("start without the old key: %d %s", code, stderr)
	}
	keys, _ := secret.ParseKeys(k2)
	ring, _ := secret.NewKeyring(keys...)
	st, err := store.Open(context.Background(), env["SWITCHBOARD_DATABASE_URL"], store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	hooks, err := st.ListWebhooks(context.Background(), proj.ID)
	if err != nil || len(hooks) != 2 {
		t.Fatalf("webhooks: %v %v", hooks, err)
	}
	for _, h := range hooks {
		if _, err := ring.Open(h.Secret, secret.AAD(webhook.PurposeSecret, h.ID)); err != nil {
			t.Fatalf("webhook %s after rekey: %v", h.ID, err)
		}
	}
}
