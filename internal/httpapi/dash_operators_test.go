package httpapi

import (
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

func TestDashboardOperators_OwnersManageMembersLook(t *testing.T) {
	f := setup(t)
	owner := dashOperator(t, f, "owner@example.com", store.RoleOwner)
	dashOperator(t, f, "member@example.com", store.RoleMember)
	base := "/dashboard/p/" + f.project.ID + "/operators"

	m := newDashClient(t, f.h)
	m.signIn("member@example.com", dashPassword)
	page := m.do("GET", base, nil)
	if page.status != 200 || !strings.Contains(string(page.body), "owner@example.com") || strings.Contains(string(page.body), "Add operator") {
		t.Fatalf("member's view: %d %s", page.status, page.body)
	}
	mtok := m.csrf(base)
	if r := m.do("POST", base, url.Values{"csrf": {mtok}, "email": {"x@example.com"}, "role": {"owner"}}); r.status != 403 {
		t.Fatalf("member adds an operator: %d", r.status)
	}
	if r := m.do("POST", base+"/"+owner.ID+"/remove", url.Values{"csrf": {mtok}}); r.status != 403 {
		t.Fatalf("member removes the owner: %d", r.status)
	}

	o := newDashClient(t, f.h)
	o.signIn("owner@example.com", dashPassword)
	tok := o.csrf(base)
	// The only owner cannot step down or leave.
	if r := o.do("POST", base+"/"+owner.ID+"/role", url.Values{"csrf": {tok}, "role": {"member"}}); r.status != 409 || !strings.Contains(string(r.body), "at least one owner") {
		t.Fatalf("last owner steps down: %d %s", r.status, r.body)
	}
	if r := o.do("POST", base+"/"+owner.ID+"/remove", url.Values{"csrf": {tok}}); r.status != 409 {
		t.Fatalf("last owner leaves: %d", r.status)
	}
	// A new email: an operator with a one-time link, shown once.
	r := o.do("POST", base, url.Values{"csrf": {tok}, "email": {"New@Example.com"}, "role": {"member"}})
	link := regexp.MustCompile(`http://web\.sb\.test/dashboard/signin/link/([0-9a-f]{64})`).FindSubmatch(r.body)
	if r.status != 200 || link == nil {
		t.Fatalf("add a new operator: %d %s", r.status, r.body)
	}
	n := newDashClient(t, f.h)
	lpath := "/dashboard/signin/link/" + string(link[1])
	ltok := n.csrf(lpath)
	if r := n.do("POST", lpath, url.Values{"csrf": {ltok}, "password": {"the new one's password"}}); r.status != 303 {
		t.Fatalf("the new operator's link: %d %s", r.status, r.body)
	}
	if r := n.do("GET", "/dashboard/p/"+f.project.ID+"/keys", nil); r.status != 200 {
		t.Fatalf("the new operator in the project: %d", r.status)
	}
	newOp, _ := f.store.OperatorByEmail(t.Context(), "new@example.com")
	if r := o.do("POST", base+"/"+newOp.ID+"/role", url.Values{"csrf": {tok}, "role": {"owner"}}); r.status != 303 {
		t.Fatalf("make owner: %d %s", r.status, r.body)
	}
	if r := o.do("POST", base+"/"+owner.ID+"/role", url.Values{"csrf": {tok}, "role": {"member"}}); r.status != 303 {
		t.Fatalf("step down with another owner: %d %s", r.status, r.body)
	}
	// Now a member, the former owner cannot manage operators.
	if r := o.do("POST", base+"/"+newOp.ID+"/remove", url.Values{"csrf": {tok}}); r.status != 403 {
		t.Fatalf("a former owner removes: %d", r.status)
	}
	if r := n.do("POST", base+"/"+owner.ID+"/remove", url.Values{"csrf": {n.csrf(base)}}); r.status != 303 {
		t.Fatalf("the new owner removes the old one: %d %s", r.status, r.body)
	}
	if r := o.do("GET", "/dashboard/p/"+f.project.ID+"/keys", nil); r.status != 404 {
		t.Fatalf("a removed operator still sees the project: %d", r.status)
	}
	// An existing operator is added without a link.
	if r := n.do("POST", base, url.Values{"csrf": {n.csrf(base)}, "email": {"owner@example.com"}, "role": {"member"}}); r.status != 303 {
		t.Fatalf("re-add an existing operator: %d %s", r.status, r.body)
	}
	if r := n.do("POST", base, url.Values{"csrf": {n.csrf(base)}, "email": {"nope"}, "role": {"member"}}); r.status != 422 {
		t.Fatalf("a bad email: %d", r.status)
	}
}
