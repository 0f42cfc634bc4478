package netguard

import (
	"context"
	"errors"
	"net/netip"
	"testing"
)

// TestScope_OpenedHost: a host counts as opened to a purpose only when every
// address it has lies in a network opened to that purpose; a public
// address, another purpose's network or a resolver failure does not.
func TestScope_OpenedHost(t *testing.T) {
	t.Parallel()
	allow, err := ParseAllowances("connector:billing=10.1.0.0/16,connectors=10.9.0.0/24,mcp=10.3.0.0/16")
	if err != nil {
		t.Fatal(err)
	}
	g := New(Options{Allow: allow})
	dns := map[string][]netip.Addr{
		"billing.internal": {netip.MustParseAddr("10.1.2.3")},
		"mixed.internal":   {netip.MustParseAddr("10.1.2.3"), netip.MustParseAddr("93.184.216.34")},
		"public.example":   {netip.MustParseAddr("93.184.216.34")},
		"mapped.internal":  {netip.MustParseAddr("::ffff:10.1.0.9")},
	}
	lookup := func(_ context.Context, _, host string) ([]netip.Addr, error) {
		if a, ok := dns[host]; ok {
			return a, nil
		}
		return nil, errors.New("no such host")
	}
	for _, c := range []struct {
		scope *Scope
		host  string
		ok    bool
	}{
		{g.Connector("billing"), "10.1.2.3", true},
		{g.Connector("billing"), "billing.internal", true},
		{g.Connector("billing"), "mapped.internal", true},
		{g.Connector("billing"), "10.9.0.5", true}, // every connector's network
		{g.Connector("billing"), "mixed.internal", false},
		{g.Connector("billing"), "public.example", false},
		{g.Connector("billing"), "93.184.216.34", false},
		{g.Connector("billing"), "10.3.0.1", false}, // opened to MCP servers only
		{g.Connector("billing"), "127.0.0.1", false},
		{g.Connector("billing"), "nowhere.internal", false},
		{g.Connector("other"), "billing.internal", false},
		{g.Connector("other"), "10.9.0.5", true},
		{g.Webhooks(), "10.1.2.3", false},
		{New(Options{AllowLoopback: true}).Connector("x"), "127.0.0.1", true},
	} {
		err := c.scope.OpenedHost(context.Background(), c.host, lookup)
		if (err == nil) != c.ok {
			t.Errorf("%s: err %v, want ok=%v", c.host, err, c.ok)
		}
	}
}
