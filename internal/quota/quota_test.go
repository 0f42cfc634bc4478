package quota_test

import (
	"context"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	builtin "github.com/switchboard-gw/switchboard/catalog"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/quota"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

func TestMatches(t *testing.T) {
	t.Parallel()
	call := quota.Call{UserID: "alice", ConnectorID: "github", ToolID: "github_create_issue"}
	proxy := quota.Call{UserID: "alice", ConnectorID: "github"}
	for _, c := range []struct {
		name  string
		q     store.Quota
		call  quota.Call
		match bool
	}{
		{"project-wide", store.Quota{}, call, true},
		{"project-wide counts the proxy", store.Quota{}, proxy, true},
		{"this user", store.Quota{UserID: "alice"}, call, true},
		{"another user", store.Quota{UserID: "bob"}, call, false},
		{"per user", store.Quota{PerUser: true}, call, true},
		{"connector", store.Quota{ConnectorID: "github"}, call, true},
		{"connector counts the proxy", store.Quota{ConnectorID: "github"}, proxy, true},
		{"other connector", store.Quota{ConnectorID: "slack"}, call, false},
		{"tool", store.Quota{ToolID: "github_create_issue"}, call, true},
		{"other tool", store.Quota{ToolID: "github_list_issues"}, call, false},
		{"tool prefix", store.Quota{ToolID: "github_create_*"}, call, true},
		{"other prefix", store.Quota{ToolID: "gitlab_*"}, call, false},
		{"tool quota skips the proxy", store.Quota{ToolID: "github_*"}, proxy, false},
		{"all filters", store.Quota{UserID: "alice", ConnectorID: "github", ToolID: "github_*"}, call, true},
	} {
		if got := quota.Matches(c.q, c.call); got != c.match {
			t.Errorf("%s: Matches = %v", c.name, got)
		}
	}
}

func setup(t *testing.T, now func() time.Time) (*quota.Service, *store.Store, tenant.Tenant) {
	t.Helper()
	st := storetest.OpenSQLite(t, now)
	p, err := st.CreateProject(context.Background(), "p")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.LoadOnly(builtin.FS, []string{"github", "slack"})
	if err != nil {
		t.Fatal(err)
	}
	return quota.New(st, now), st, tenant.Tenant{ProjectID: p.ID, Catalog: cat}
}

// current returns t at the project's tools_version now, as the API key
// lookup would give it.
func current(t *testing.T, st *store.Store, tn tenant.Tenant) tenant.Tenant {
	t.Helper()
	kp, err := st.ProjectVersions(context.Background(), tn.ProjectID)
	if err != nil {
		t.Fatal(err)
	}
	tn.ToolsVersion = kp.ToolsVersion
	return tn
}

func TestAdmit_OverTheLimit_RateLimitedWithRetryAfter(t *testing.T) {
	t.Parallel()
	clock := storetest.NewClock() // 03:04:05: 55 seconds left in the minute
	svc, st, tn := setup(t, clock.Now)
	ctx := context.Background()
	limit := int64(2)
	if _, err := svc.Create(ctx, tn, quota.Request{Window: "minute", Limit: &limit, PerUser: true, ConnectorID: "github"}); err != nil {
		t.Fatal(err)
	}
	tn = current(t, st, tn)
	call := quota.Call{UserID: "alice", ConnectorID: "github", ToolID: "github_create_issue"}
	for range 2 {
		if err := svc.Admit(ctx, tn, call); err != nil {
			t.Fatal(err)
		}
	}
	err := svc.Admit(ctx, tn, call)
	e, ok := apierr.As(err)
	if !ok || e.Code != apierr.RateLimited || e.HTTPStatus() != 429 || e.RetryAfter != "55" {
		t.Fatalf("third call: %#v", err)
	}
	if !strings.Contains(e.Message, "2 calls per minute for each user on github") {
		t.Errorf("message does not say which limit: %q", e.Message)
	}
	// Another user, another connector: not limited.
	if err := svc.Admit(ctx, tn, quota.Call{UserID: "bob", ConnectorID: "github", ToolID: "github_create_issue"}); err != nil {
		t.Fatal(err)
	}
	if err := svc.Admit(ctx, tn, quota.Call{UserID: "alice", ConnectorID: "slack", ToolID: "slack_send_message"}); err != nil {
		t.Fatal(err)
	}
	// The next window admits again.
	clock.Advance(55 * time.Second)
	if err := svc.Admit(ctx, tn, call); err != nil {
		t.Fatalf("next window: %v", err)
	}
}

// TestAdmit_NoQuotas_NoQuery: a project without quotas is answered from
// the cache (here, with the database closed), and a new quota is seen at
// the next version.
func TestAdmit_NoQuotas_NoQuery(t *testing.T) {
	t.Parallel()
	svc, st, tn := setup(t, nil)
	ctx := context.Background()
	tn = current(t, st, tn)
	call := quota.Call{UserID: "alice", ConnectorID: "github", ToolID: "github_create_issue"}
	if err := svc.Admit(ctx, tn, call); err != nil {
		t.Fatal(err)
	}
	limit := int64(1)
	if _, err := svc.Create(ctx, tn, quota.Request{Window: "hour", Limit: &limit}); err != nil {
		t.Fatal(err)
	}
	// At the old version the cached answer (no quotas) still holds.
	if err := svc.Admit(ctx, tn, call); err != nil {
		t.Fatal(err)
	}
	tn = current(t, st, tn)
	if err := svc.Admit(ctx, tn, call); err != nil {
		t.Fatal(err)
	}
	if err := svc.Admit(ctx, tn, call); err == nil {
		t.Fatal("the new quota was not applied at the new version")
	}

	other, _ := st.CreateProject(ctx, "other")
	otn := current(t, st, tenant.Tenant{ProjectID: other.ID, Catalog: tn.Catalog})
	if err := svc.Admit(ctx, otn, call); err != nil {
		t.Fatal(err)
	}
	st.Close()
	if err := svc.Admit(ctx, otn, call); err != nil {
		t.Fatalf("a project without quotas queried the database: %v", err)
	}
}

func TestCreate_BadQuotasRefusedWithIssues(t *testing.T) {
	t.Parallel()
	svc, _, tn := setup(t, nil)
	ctx := context.Background()
	one, zero := int64(1), int64(0)
	for name, r := range map[string]quota.Request{
		"no window":         {Limit: &one},
		"bad window":        {Window: "week", Limit: &one},
		"no limit":          {Window: "hour"},
		"zero limit":        {Window: "hour", Limit: &zero},
		"unknown connector": {Window: "hour", Limit: &one, ConnectorID: "nope"},
		"unknown tool":      {Window: "hour", Limit: &one, ToolID: "nope_tool"},
		"tool of another":   {Window: "hour", Limit: &one, ConnectorID: "slack", ToolID: "github_create_issue"},
		"prefix of nothing": {Window: "hour", Limit: &one, ToolID: "zzz_*"},
		"bare star":         {Window: "hour", Limit: &one, ToolID: "*"},
		"user id too long":  {Window: "hour", Limit: &one, UserID: strings.Repeat("u", 257)},
		"limit too large":   {Window: "hour", Limit: func() *int64 { n := int64(quota.MaxLimit + 1); return &n }()},
	} {
		_, err := svc.Create(ctx, tn, r)
		if e, ok := apierr.As(err); !ok || e.Code != apierr.ValidationError || len(e.Issues) == 0 {
			t.Errorf("%s: %v", name, err)
		}
	}
	q, err := svc.Create(ctx, tn, quota.Request{Window: "day", Limit: &one, ConnectorID: "github", ToolID: "github_create_*"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Update(ctx, tn, q.ID, quota.Request{Window: "hour", Limit: &one, ConnectorID: "slack"}); err == nil {
		t.Fatal("an update changed a filter")
	}
	if _, err := svc.Update(ctx, tn, "missing", quota.Request{Window: "hour", Limit: &one}); err == nil {
		t.Fatal("an update of no quota succeeded")
	} else if e, _ := apierr.As(err); e == nil || e.Code != apierr.NotFound {
		t.Fatalf("update of no quota: %v", err)
	}
}

// TestAdmit_TwoReplicasOnPostgres: two services, each with a store of its
// own on one PostgreSQL database (two replicas), see a quota created
// through either one at the next version and admit exactly its limit
// between them under concurrent calls.
func TestAdmit_TwoReplicasOnPostgres(t *testing.T) {
	t.Parallel()
	url := storetest.PostgresSchemaURL(t)
	ctx := context.Background()
	open := func() *store.Store {
		s, err := store.Open(ctx, url, store.Options{MaxConns: 4})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	stA, stB := open(), open()
	if _, err := stA.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	cat, err := catalog.LoadOnly(builtin.FS, []string{"github"})
	if err != nil {
		t.Fatal(err)
	}
	p, _ := stA.CreateProject(ctx, "p")
	a, b := quota.New(stA, nil), quota.New(stB, nil)
	tn := tenant.Tenant{ProjectID: p.ID, Catalog: cat}
	call := quota.Call{UserID: "alice", ConnectorID: "github", ToolID: "github_create_issue"}
	// Both replicas cache "no quotas" at the first version.
	tn = current(t, stA, tn)
	if a.Admit(ctx, tn, call) != nil || b.Admit(ctx, tn, call) != nil {
		t.Fatal("no quotas yet")
	}
	const limit = 20
	n := int64(limit)
	if _, err := a.Create(ctx, tn, quota.Request{Window: "day", Limit: &n, ToolID: "github_create_*"}); err != nil {
		t.Fatal(err)
	}
	tn = current(t, stB, tn)
	var admitted atomic.Int64
	var wg sync.WaitGroup
	for i := range 3 * limit {
		wg.Add(1)
		go func() {
			defer wg.Done()
			svc := a
			if i%2 == 1 {
				svc = b
			}
			err := svc.Admit(ctx, tn, call)
			switch e, _ := apierr.As(err); {
			case err == nil:
				admitted.Add(1)
			case e == nil || e.Code != apierr.RateLimited:
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if admitted.Load() != limit {
		t.Fatalf("two replicas admitted %d calls, want exactly %d", admitted.Load(), limit)
	}
}

// TestAdmit_NoQuotas_NoAllocations: the hot path of a project without
// quotas (a cached answer) allocates nothing.
func TestAdmit_NoQuotas_NoAllocations(t *testing.T) {
	svc, st, tn := setup(t, nil)
	ctx := context.Background()
	tn = current(t, st, tn)
	call := quota.Call{UserID: "alice", ConnectorID: "github", ToolID: "github_create_issue"}
	if err := svc.Admit(ctx, tn, call); err != nil {
		t.Fatal(err)
	}
	if n := testing.AllocsPerRun(1000, func() { _ = svc.Admit(ctx, tn, call) }); n != 0 {
		t.Fatalf("Admit without quotas allocates %v times per call", n)
	}
}
