package policy

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// TestService_SetFollowsTheVersion: the rules come from memory while the
// tenant's policies version has not moved (a change written meanwhile is
// not read), and are read again once it has.
func TestService_SetFollowsTheVersion(t *testing.T) {
	t.Parallel()
	st := storetest.OpenSQLite(t, nil)
	ctx := context.Background()
	p, err := st.CreateProject(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	svc := NewService(Options{Store: st})
	version := func() int64 {
		kp, err := st.ProjectVersions(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		return kp.PoliciesVersion
	}
	tn := tenant.Tenant{ProjectID: p.ID, PoliciesVersion: version()}
	set, err := svc.Set(ctx, tn)
	if err != nil || !set.Empty() {
		t.Fatalf("no rules: %v %v", set, err)
	}
	spec, _ := json.Marshal(Spec{Decision: Deny})
	if _, err := st.CreatePolicy(ctx, store.PolicyRule{ProjectID: p.ID, Priority: 1, Spec: spec}); err != nil {
		t.Fatal(err)
	}
	if set, _ := svc.Set(ctx, tn); !set.Empty() {
		t.Fatal("the set was read again at an unchanged version")
	}
	tn.PoliciesVersion = version()
	set, err = svc.Set(ctx, tn)
	if err != nil || set.Empty() {
		t.Fatalf("the new version did not reload the rules: %v", err)
	}
	_, err = svc.Check(ctx, tn, Call{Subject: Subject{ToolID: "x_y", ConnectorID: "x"}, UserID: "u"})
	if e, ok := apierr.As(err); !ok || e.Code != apierr.PolicyDenied {
		t.Fatalf("check: %v", err)
	}
	var held *ApprovalRequiredError
	if errors.As(err, &held) {
		t.Fatal("a deny was answered as an approval")
	}
}

// BenchmarkCheck_NoRules is the cost every call pays in a project without
// rules: one cache lookup.
func BenchmarkCheck_NoRules(b *testing.B) {
	st := benchStore(b)
	ctx := context.Background()
	p, _ := st.CreateProject(ctx, "p")
	svc := NewService(Options{Store: st})
	tn := tenant.Tenant{ProjectID: p.ID}
	call := Call{Subject: Subject{ToolID: "x_y", ConnectorID: "x"}, UserID: "u"}
	if _, err := svc.Check(ctx, tn, call); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := svc.Check(ctx, tn, call); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheck_TwentyRules matches a call against twenty rules with
// argument conditions, in memory.
func BenchmarkCheck_TwentyRules(b *testing.B) {
	st := benchStore(b)
	ctx := context.Background()
	p, _ := st.CreateProject(ctx, "p")
	svc := NewService(Options{Store: st})
	for i := range 20 {
		spec := json.RawMessage(`{"decision":"deny","match":{"tool":"other_` + string(rune('a'+i)) + `*","arguments":[{"path":"to","regexp":"@x\\.example$","not":true}]}}`)
		if _, err := st.CreatePolicy(ctx, store.PolicyRule{ProjectID: p.ID, Priority: i, Spec: spec}); err != nil {
			b.Fatal(err)
		}
	}
	kp, _ := st.ProjectVersions(ctx, p.ID)
	tn := tenant.Tenant{ProjectID: p.ID, PoliciesVersion: kp.PoliciesVersion}
	call := Call{Subject: Subject{ToolID: "gmail_send", ConnectorID: "gmail", Input: map[string]any{"to": []any{"a@x.example"}}}, UserID: "u"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := svc.Check(ctx, tn, call); err != nil {
			b.Fatal(err)
		}
	}
}

// benchStore opens a migrated SQLite store in the benchmark's temp dir.
func benchStore(b *testing.B) *store.Store {
	b.Helper()
	st, err := store.Open(context.Background(), "sqlite:"+filepath.Join(b.TempDir(), "sb.db"), store.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { st.Close() })
	if _, err := st.Migrate(context.Background()); err != nil {
		b.Fatal(err)
	}
	return st
}
