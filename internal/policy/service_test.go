package policy

import (
	"context"
	"encoding/json"
	"errors"
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
