package account

import (
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/store"
)

func TestCheckName(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		required bool
		code     string
	}{
		{"", false, ""},
		{"", true, apierr.IssueInvalidValue},
		{"work", true, ""},
		{strings.Repeat("a", 64), true, ""},
		{strings.Repeat("a", 65), false, apierr.IssueTooBig},
		{strings.Repeat("é", 64), true, ""}, // 128 bytes, 64 characters
		{strings.Repeat("é", 65), true, apierr.IssueTooBig},
		{strings.Repeat("日", 64), false, ""},
	} {
		var is apierr.Issues
		CheckName(c.name, c.required, &is)
		if got := issueCode(is); got != c.code {
			t.Errorf("CheckName(%q, %v) = %q, want %q", c.name, c.required, got, c.code)
		}
	}
}

func TestCheckUserID(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		id       string
		required bool
		code     string
	}{
		{"", true, apierr.IssueRequired},
		{"", false, ""},
		{"u1", true, ""},
		{strings.Repeat("u", 256), true, ""},
		{strings.Repeat("u", 257), false, apierr.IssueTooBig},
		{strings.Repeat("ü", 256), true, ""},
		{strings.Repeat("ü", 257), true, apierr.IssueTooBig},
	} {
		var is apierr.Issues
		CheckUserID(c.id, "userId", c.required, &is)
		if got := issueCode(is); got != c.code {
			t.Errorf("CheckUserID(%d chars, %v) = %q, want %q", len([]rune(c.id)), c.required, got, c.code)
		}
		if len(is) == 1 && (len(is[0].Path) != 1 || is[0].Path[0] != "userId") {
			t.Errorf("path %v", is[0].Path)
		}
	}
}

func TestMatchesRef(t *testing.T) {
	t.Parallel()
	label := "Work Gmail"
	c := store.Connection{ID: "0190-id", Name: "default", Label: &label}
	noLabel := store.Connection{ID: "0190-other", Name: "Backup"}
	for _, tc := range []struct {
		c    store.Connection
		ref  string
		want bool
	}{
		{c, "0190-id", true},
		{c, "default", true},
		{c, "Default", false}, // names compare exactly
		{c, "Work Gmail", true},
		{c, "work gmail", true}, // labels in any case
		{c, "WORK GMAIL", true},
		{c, "work", false},
		{c, "", false},
		{noLabel, "Backup", true},
		{noLabel, "backup", false},
		{noLabel, "", false},
	} {
		if got := MatchesRef(tc.c, tc.ref); got != tc.want {
			t.Errorf("MatchesRef(%s, %q) = %v, want %v", tc.c.Name, tc.ref, got, tc.want)
		}
	}
}

func issueCode(is apierr.Issues) string {
	if len(is) == 0 {
		return ""
	}
	return is[0].Code
}

func TestCheckConnectionID(t *testing.T) {
	t.Parallel()
	for id, ok := range map[string]bool{
		"": true, "01920000-0000-7000-8000-000000000001": true,
		"not-a-uuid": false, "01920000-0000-7000-8000-00000000000": false, " 01920000-0000-7000-8000-000000000001": false,
	} {
		var is apierr.Issues
		CheckConnectionID(id, "connectionId", &is)
		if (len(is) == 0) != ok {
			t.Errorf("CheckConnectionID(%q): %v, want ok=%v", id, is, ok)
		}
	}
}
