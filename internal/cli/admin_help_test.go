package cli

import (
	"strings"
	"testing"
)

// TestAdminHelp_ListsEveryRegisteredGroup reads the groups from the
// registration table, so a group added later is held to the same rule.
func TestAdminHelp_ListsEveryRegisteredGroup(t *testing.T) {
	t.Parallel()
	for _, flag := range []string{"--help", "-h", "help"} {
		code, out, stderr := runCLI(t, nil, "admin", flag)
		if code != exitOK {
			t.Fatalf("admin %s: exit %d, stderr %q", flag, code, stderr)
		}
		for _, g := range adminGroups {
			line := lineStarting(out, "  "+g.name+" ")
			if line == "" || !strings.Contains(line, g.summary) {
				t.Errorf("admin %s does not list group %q with its description:\n%s", flag, g.name, out)
			}
		}
	}
	for _, g := range adminGroups {
		code, out, stderr := runCLI(t, nil, "admin", g.name, "--help")
		if code != exitOK {
			t.Errorf("admin %s --help: exit %d, stderr %q", g.name, code, stderr)
			continue
		}
		for _, c := range g.commands {
			want := strings.TrimSpace("switchboard admin " + g.name + " " + c.verb)
			if c.verb == "" {
				// A group that is one command prints that command's flags:
				// the first its synopsis names (rekey's --batch, logs'
				// --project) must be among them.
				first := c.synopsis[strings.Index(c.synopsis, "--")+1:]
				first, _, _ = strings.Cut(first, " ")
				first = strings.TrimRight(first, "]")
				if !strings.Contains(stderr+out, "\n  "+first+" ") {
					t.Errorf("admin %s --help printed no flag %s: %q %q", g.name, first, out, stderr)
				}
				continue
			}
			if !strings.Contains(out, want+" ") {
				t.Errorf("admin %s --help does not list %q:\n%s", g.name, want, out)
			}
		}
	}
}

func TestAdminHelp_WithoutGroupIsUsageWithTheList(t *testing.T) {
	t.Parallel()
	code, _, stderr := runCLI(t, nil, "admin")
	if code != exitUsage || !strings.Contains(stderr, "  mcp-server ") {
		t.Fatalf("admin alone: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runCLI(t, nil, "admin", "key")
	if code != exitUsage || !strings.Contains(stderr, "switchboard admin key revoke") {
		t.Fatalf("admin key alone: exit %d, stderr %q", code, stderr)
	}
}

func lineStarting(text, prefix string) string {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}
