package tenant_test

import (
	"errors"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

func TestCheck_MissingProjectOrCatalogIsAnError(t *testing.T) {
	t.Parallel()
	cat := &catalog.Catalog{}
	for _, c := range []struct {
		name string
		t    tenant.Tenant
		ok   bool
	}{
		{"zero", tenant.Tenant{}, false},
		{"no catalog", tenant.Tenant{ProjectID: "p"}, false},
		{"no project", tenant.Tenant{Catalog: cat}, false},
		{"whole", tenant.Tenant{ProjectID: "p", Catalog: cat}, true},
	} {
		err := c.t.Check()
		if c.ok != (err == nil) || (err != nil && !errors.Is(err, tenant.ErrMissing)) {
			t.Errorf("%s: Check() = %v", c.name, err)
		}
	}
}
