package netguard

import (
	"fmt"
	"net/netip"
	"regexp"
	"strings"
)

// Allowances are the private networks the operator opened, each to one
// purpose. Nothing private is reachable for a purpose not named here.
type Allowances struct {
	// Connectors opens networks to every provider connector's calls.
	Connectors []netip.Prefix
	// Connector opens networks to one connector (provider calls, or its
	// MCP server when it is one), by connector id.
	Connector map[string][]netip.Prefix
	// MCP opens networks to every project's MCP servers.
	MCP []netip.Prefix
	// Webhooks opens networks to webhook deliveries.
	Webhooks []netip.Prefix
}

// connectorID is the shape of a connector id.
var connectorID = regexp.MustCompile(`^[a-z0-9][a-z0-9_]*$`)

// ParseAllowances reads SWITCHBOARD_OUTBOUND_ALLOW: entries PURPOSE=CIDR
// separated by commas, where PURPOSE is connectors, connector:ID, mcp or
// webhooks. A purpose may appear more than once.
func ParseAllowances(s string) (Allowances, error) {
	var a Allowances
	for _, entry := range strings.Split(s, ",") {
		if entry = strings.TrimSpace(entry); entry == "" {
			continue
		}
		purpose, cidr, ok := strings.Cut(entry, "=")
		if !ok {
			return Allowances{}, fmt.Errorf("netguard: %q names no purpose; write connector:ID=%s (one connector), connectors=%s, mcp=%s or webhooks=%s",
				entry, entry, entry, entry, entry)
		}
		purpose, cidr = strings.TrimSpace(purpose), strings.TrimSpace(cidr)
		p, err := netip.ParsePrefix(cidr)
		if err != nil {
			return Allowances{}, fmt.Errorf("netguard: %q in %q is not a CIDR such as 10.1.0.0/16", cidr, entry)
		}
		p = p.Masked()
		switch {
		case purpose == "connectors":
			a.Connectors = append(a.Connectors, p)
		case purpose == "mcp":
			a.MCP = append(a.MCP, p)
		case purpose == "webhooks":
			a.Webhooks = append(a.Webhooks, p)
		case strings.HasPrefix(purpose, "connector:") && connectorID.MatchString(strings.TrimPrefix(purpose, "connector:")):
			if a.Connector == nil {
				a.Connector = map[string][]netip.Prefix{}
			}
			id := strings.TrimPrefix(purpose, "connector:")
			a.Connector[id] = append(a.Connector[id], p)
		default:
			return Allowances{}, fmt.Errorf("netguard: %q is not a purpose; use connector:ID, connectors, mcp or webhooks", purpose)
		}
	}
	return a, nil
}
