package account

import (
	"fmt"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// The rules of a global account's allowance (what tools and whether the
// proxy it may serve), shared by `admin global allow` and the dashboard.

// ExpandToolPatterns returns the tools of cat that patterns (tool ids or
// prefixes ending in *) name, each once; a pattern that names no tool is
// an error saying which.
func ExpandToolPatterns(cat *catalog.Catalog, patterns []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	for _, pat := range patterns {
		n := 0
		for _, t := range cat.Tools() {
			if t.ID == pat || (strings.HasSuffix(pat, "*") && strings.HasPrefix(t.ID, strings.TrimSuffix(pat, "*"))) {
				n++
				if !seen[t.ID] {
					seen[t.ID] = true
					out = append(out, t.ID)
				}
			}
		}
		if n == 0 {
			return nil, fmt.Errorf("no tool matches %q; 'switchboard catalog export' lists them", pat)
		}
	}
	return out, nil
}

// SplitToolPatterns reads a comma-separated list of tool patterns.
func SplitToolPatterns(s string) []string {
	var list []string
	for _, t := range strings.Split(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			list = append(list, t)
		}
	}
	return list
}

// CheckGlobalAllowance reports what is wrong with allowing account c the
// tools patterns (against cat, the catalog of c's project): only global
// accounts take an allowance, and every pattern must name a tool.
func CheckGlobalAllowance(c store.Connection, cat *catalog.Catalog, patterns []string) error {
	if !c.Global {
		return fmt.Errorf("connection %s belongs to user %q; only global accounts take permissions", c.ID, c.UserID)
	}
	if len(patterns) > 0 {
		if _, err := ExpandToolPatterns(cat, patterns); err != nil {
			return err
		}
	}
	return nil
}
