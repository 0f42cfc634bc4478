package storetest

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// Run runs the whole store suite against the stores open makes. Each test
// gets a store of its own, so the tests run in parallel.
func Run(t *testing.T, open Opener) {
	tests := map[string]func(*testing.T, Opener){
		"MigrateTwice_SecondAppliesNothing":      testMigrateTwice,
		"Project_CreateGetList":                  testProjectCreateGetList,
		"APIKey_CreateLookupRevoke":              testAPIKeyLifecycle,
		"APIKey_ExpiresAtItsExpiry":              testAPIKeyExpiry,
		"APIKey_UnknownProject_NotFound":         testAPIKeyUnknownProject,
		"APIKey_DuplicateHash_Conflict":          testAPIKeyDuplicate,
		"Bootstrap_OnlyOnEmptyDatabase":          testBootstrapOnce,
		"Bootstrap_ConcurrentCallsCreateOneOnly": testBootstrapConcurrent,
		"Tools_DisableEnablePerProject":          testToolSettings,
		"Tools_VersionFromKeyKeepsCacheFresh":    testToolVersionCache,
	}
	for _, family := range []func() map[string]func(*testing.T, Opener){
		connectionTests, connectLinkTests, connectOnceTests, webhookTests, triggerTests, pollTests,
		endpointTests, mcpOAuthTests, projectConnectorTests, projectSettingsTests, sealedTests, execLogTests, policyTests, quotaTests, operatorTests,
		liveSessionTests,
	} {
		for name, fn := range family() {
			tests[name] = fn
		}
	}
	for name, fn := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			fn(t, open)
		})
	}
}

func newKey(t *testing.T, projectID string) (string, store.NewAPIKey) {
	t.Helper()
	key, hash, hint, err := apikey.Generate()
	if err != nil {
		t.Fatal(err)
	}
	return key, store.NewAPIKey{ProjectID: projectID, Name: "test", Hash: hash, Hint: hint}
}

func testMigrateTwice(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	applied, err := s.Migrate(ctx)
	if err != nil || len(applied) != 0 {
		t.Fatalf("second migrate applied %v, err %v", applied, err)
	}
	status, err := s.MigrationStatus(ctx)
	if err != nil {
		t.Fatal(err)
	}
	all, _ := store.Migrations(s.Dialect())
	if len(status) != len(all) || len(all) == 0 {
		t.Fatalf("status has %d rows, %d migrations", len(status), len(all))
	}
	for _, st := range status {
		if st.AppliedAt == nil {
			t.Errorf("migration %d still pending after Migrate", st.Version)
		}
	}
}

func testProjectCreateGetList(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, clock.Now)
	ctx := context.Background()
	a, err := s.CreateProject(ctx, "alpha")
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	b, err := s.CreateProject(ctx, "beta")
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.GetProject(ctx, a.ID)
	if err != nil || got.Name != "alpha" || !got.CreatedAt.Equal(clock.Now().Add(-time.Second)) {
		t.Fatalf("get: %+v, %v", got, err)
	}
	if _, err := s.GetProject(ctx, "00000000-0000-0000-0000-000000000000"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown project: %v", err)
	}
	list, err := s.ListProjects(ctx)
	if err != nil || len(list) != 2 || list[0].ID != a.ID || list[1].ID != b.ID {
		t.Fatalf("list: %+v, %v", list, err)
	}
}

func testAPIKeyLifecycle(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, clock.Now)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	other, _ := s.CreateProject(ctx, "other")
	key, nk := newKey(t, p.ID)
	k, err := s.CreateAPIKey(ctx, nk)
	if err != nil {
		t.Fatal(err)
	}
	_, otherKey := newKey(t, other.ID)
	if _, err := s.CreateAPIKey(ctx, otherKey); err != nil {
		t.Fatal(err)
	}
	got, err := keyProject(ctx, s, apikey.Hash(key))
	if err != nil || got != p.ID {
		t.Fatalf("lookup: %q, %v", got, err)
	}
	list, err := s.ListAPIKeys(ctx, p.ID)
	if err != nil || len(list) != 1 || list[0].ID != k.ID || list[0].Hint != nk.Hint || list[0].RevokedAt != nil {
		t.Fatalf("list: %+v, %v", list, err)
	}
	clock.Advance(time.Minute)
	revoked, err := s.RevokeAPIKey(ctx, k.ID)
	if err != nil || revoked.RevokedAt == nil || !revoked.RevokedAt.Equal(clock.Now()) {
		t.Fatalf("revoke: %+v, %v", revoked, err)
	}
	if _, err := keyProject(ctx, s, apikey.Hash(key)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("revoked key still resolves: %v", err)
	}
	clock.Advance(time.Minute)
	again, err := s.RevokeAPIKey(ctx, k.ID)
	if err != nil || !again.RevokedAt.Equal(*revoked.RevokedAt) {
		t.Fatalf("second revoke changed the time: %+v, %v", again, err)
	}
	if _, err := s.RevokeAPIKey(ctx, "no-such-key"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("revoke unknown: %v", err)
	}
	if _, err := keyProject(ctx, s, apikey.Hash("sb_unknown")); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("unknown key: %v", err)
	}
}

func testAPIKeyExpiry(t *testing.T, open Opener) {
	clock := NewClock()
	s := open(t, clock.Now)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	key, nk := newKey(t, p.ID)
	exp := clock.Now().Add(time.Hour)
	nk.ExpiresAt = &exp
	k, err := s.CreateAPIKey(ctx, nk)
	if err != nil || k.ExpiresAt == nil || !k.ExpiresAt.Equal(exp) {
		t.Fatalf("create: %+v, %v", k, err)
	}
	clock.Advance(time.Hour - time.Millisecond)
	if _, err := keyProject(ctx, s, apikey.Hash(key)); err != nil {
		t.Fatalf("key before expiry: %v", err)
	}
	clock.Advance(time.Millisecond)
	if _, err := keyProject(ctx, s, apikey.Hash(key)); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("key at expiry: %v", err)
	}
}

func testAPIKeyUnknownProject(t *testing.T, open Opener) {
	s := open(t, nil)
	_, nk := newKey(t, "00000000-0000-0000-0000-000000000000")
	if _, err := s.CreateAPIKey(context.Background(), nk); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("err %v, want ErrNotFound", err)
	}
}

func testAPIKeyDuplicate(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	_, nk := newKey(t, p.ID)
	if _, err := s.CreateAPIKey(ctx, nk); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateAPIKey(ctx, nk); !errors.Is(err, store.ErrConflict) {
		t.Fatalf("err %v, want ErrConflict", err)
	}
}

func testBootstrapOnce(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	key, nk := newKey(t, "")
	p, k, created, err := s.BootstrapProject(ctx, "default", nk)
	if err != nil || !created || p.Name != "default" || k.ProjectID != p.ID {
		t.Fatalf("first bootstrap: %+v %+v %v %v", p, k, created, err)
	}
	if got, err := keyProject(ctx, s, apikey.Hash(key)); err != nil || got != p.ID {
		t.Fatalf("bootstrap key: %q, %v", got, err)
	}
	_, nk2 := newKey(t, "")
	if _, _, created, err := s.BootstrapProject(ctx, "default", nk2); err != nil || created {
		t.Fatalf("second bootstrap: created=%v err=%v", created, err)
	}
	list, _ := s.ListProjects(ctx)
	if len(list) != 1 {
		t.Fatalf("%d projects after two bootstraps", len(list))
	}
}

func testBootstrapConcurrent(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	var wg sync.WaitGroup
	var mu sync.Mutex
	createdCount := 0
	for range 8 {
		_, nk := newKey(t, "")
		wg.Go(func() {
			_, _, created, err := s.BootstrapProject(ctx, "default", nk)
			if err != nil {
				t.Errorf("bootstrap: %v", err)
			}
			if created {
				mu.Lock()
				createdCount++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	list, _ := s.ListProjects(ctx)
	if createdCount != 1 || len(list) != 1 {
		t.Fatalf("created %d times, %d projects", createdCount, len(list))
	}
}

func testToolSettings(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	a, _ := s.CreateProject(ctx, "a")
	b, _ := s.CreateProject(ctx, "b")
	if err := s.SetToolsEnabled(ctx, a.ID, []string{"github_create_issue", "slack_send_message"}, false); err != nil {
		t.Fatal(err)
	}
	got, err := s.DisabledTools(ctx, a.ID, toolsVersion(t, s, a.ID))
	if err != nil || len(got) != 2 || !got["github_create_issue"] || !got["slack_send_message"] {
		t.Fatalf("disabled in a: %v, %v", got, err)
	}
	if other, _ := s.DisabledTools(ctx, b.ID, toolsVersion(t, s, b.ID)); len(other) != 0 {
		t.Fatalf("project b sees a's switches: %v", other)
	}
	if err := s.SetToolsEnabled(ctx, a.ID, []string{"github_create_issue"}, true); err != nil {
		t.Fatal(err)
	}
	got, _ = s.DisabledTools(ctx, a.ID, toolsVersion(t, s, a.ID))
	if len(got) != 1 || !got["slack_send_message"] {
		t.Fatalf("after enabling one: %v", got)
	}
}

func testToolVersionCache(t *testing.T, open Opener) {
	s := open(t, nil)
	ctx := context.Background()
	p, _ := s.CreateProject(ctx, "p")
	key, nk := newKey(t, p.ID)
	if _, err := s.CreateAPIKey(ctx, nk); err != nil {
		t.Fatal(err)
	}
	kp, err := s.ProjectForKey(ctx, apikey.Hash(key))
	if err != nil || kp.ID != p.ID {
		t.Fatalf("key: %+v %v", kp, err)
	}
	before := kp.ToolsVersion
	if set, _ := s.DisabledTools(ctx, p.ID, before); len(set) != 0 {
		t.Fatalf("fresh project: %v", set)
	}
	if err := s.SetToolsEnabled(ctx, p.ID, []string{"github_create_issue"}, false); err != nil {
		t.Fatal(err)
	}
	next, _ := s.ProjectForKey(ctx, apikey.Hash(key))
	if next.ToolsVersion == kp.ToolsVersion {
		t.Fatal("a tool switch did not change the version")
	}
	after := next.ToolsVersion
	if set, _ := s.DisabledTools(ctx, p.ID, after); !set["github_create_issue"] {
		t.Fatalf("the next request did not see the switch: %v", set)
	}
	if off, _ := s.ToolDisabled(ctx, p.ID, after, "github_create_issue"); !off {
		t.Fatal("ToolDisabled missed the switch")
	}
}

// toolsVersion is a project's tool-switch version as stored now.
func toolsVersion(t *testing.T, s *store.Store, projectID string) int64 {
	t.Helper()
	kp, err := s.ProjectVersions(context.Background(), projectID)
	if err != nil {
		t.Fatal(err)
	}
	return kp.ToolsVersion
}

// keyProject is the project id of a key hash.
func keyProject(ctx context.Context, s *store.Store, hash string) (string, error) {
	kp, err := s.ProjectForKey(ctx, hash)
	return kp.ID, err
}
