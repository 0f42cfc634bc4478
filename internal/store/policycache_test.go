package store_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// TestKeyCache_OtherInstancePolicyChangeSeen: a policy rule written by
// another PostgreSQL instance moves the policies version the watching one
// answers with the key, so its next call reloads the rules.
func TestKeyCache_OtherInstancePolicyChangeSeen(t *testing.T) {
	t.Parallel()
	p := newKeyPair(t)
	ctx := context.Background()
	before, _ := lookup(t, p.a, p.hash)
	if _, err := p.b.CreatePolicy(ctx, store.PolicyRule{ProjectID: p.project.ID, Priority: 1, Spec: []byte(`{"decision":"deny"}`)}); err != nil {
		t.Fatal(err)
	}
	took := waitFor(t, "a to see the policies version move", notifyBound, func() bool {
		kp, _ := lookup(t, p.a, p.hash)
		return kp.PoliciesVersion > before.PoliciesVersion
	})
	t.Logf("policy change on b seen by a after %v", took)
	before, _ = lookup(t, p.a, p.hash)
	if err := p.b.SetPolicyDefault(ctx, p.project.ID, "deny"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a to see the default decision's version move", notifyBound, func() bool {
		kp, _ := lookup(t, p.a, p.hash)
		return kp.PoliciesVersion > before.PoliciesVersion
	})
}

// TestKeyCache_SQLitePolicyChangeSeen: the same for another process on the
// same SQLite file (the admin CLI), through the change count.
func TestKeyCache_SQLitePolicyChangeSeen(t *testing.T) {
	t.Parallel()
	url := "sqlite:" + filepath.Join(t.TempDir(), "switchboard.db")
	a, b := openAt(t, url, nil), openAt(t, url, nil)
	watch(t, a)
	ctx := context.Background()
	proj, err := b.CreateProject(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	_, hash, hint, _ := apikey.Generate()
	if _, err := b.CreateAPIKey(ctx, store.NewAPIKey{ProjectID: proj.ID, Name: "k", Hash: hash, Hint: hint}); err != nil {
		t.Fatal(err)
	}
	before, _ := lookup(t, a, hash)
	if _, err := b.CreatePolicy(ctx, store.PolicyRule{ProjectID: proj.ID, Priority: 1, Spec: []byte(`{"decision":"deny"}`)}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "a to see the policies version move", 500*time.Millisecond, func() bool {
		kp, _ := lookup(t, a, hash)
		return kp.PoliciesVersion > before.PoliciesVersion
	})
}
