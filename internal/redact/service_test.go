package redact_test

import (
	"context"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/redact"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

func at(t *testing.T, st *store.Store, tn tenant.Tenant) tenant.Tenant {
	t.Helper()
	kp, err := st.ProjectVersions(context.Background(), tn.ProjectID)
	if err != nil {
		t.Fatal(err)
	}
	tn.ToolsVersion = kp.ToolsVersion
	return tn
}

// TestService_RulesFollowTheVersion: a project without rules gets a nil
// set from the cache without allocating; rules put through the service
// apply at the next version, and removing them ends redaction.
func TestService_RulesFollowTheVersion(t *testing.T) {
	st := storetest.OpenSQLite(t, nil)
	ctx := context.Background()
	p, _ := st.CreateProject(ctx, "p")
	svc := redact.New(st)
	tn := at(t, st, tenant.Tenant{ProjectID: p.ID})
	if set, err := svc.For(ctx, tn); set != nil || err != nil {
		t.Fatalf("no rules: %v %v", set, err)
	}
	if n := testing.AllocsPerRun(1000, func() { _, _ = svc.For(ctx, tn) }); n != 0 {
		t.Fatalf("For without rules allocates %v times per call", n)
	}
	if err := st.SetRedactionRules(ctx, p.ID, []byte(`{"detectors":["email"]}`)); err != nil {
		t.Fatal(err)
	}
	if set, _ := svc.For(ctx, tn); set != nil {
		t.Fatal("the old version's answer changed without a version change")
	}
	tn = at(t, st, tn)
	set, err := svc.For(ctx, tn)
	if err != nil || set.Text("mail jane@example.com") != "mail [redacted:email]" {
		t.Fatalf("rules at the new version: %v", err)
	}
	if set2, _ := svc.ForProject(ctx, p.ID); set2 != set {
		t.Fatal("ForProject did not use the cached set")
	}
	if err := st.SetRedactionRules(ctx, p.ID, nil); err != nil {
		t.Fatal(err)
	}
	if set, _ := svc.For(ctx, at(t, st, tn)); set != nil {
		t.Fatal("removed rules still apply")
	}
}
