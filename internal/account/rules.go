package account

import (
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// The request rules about accounts, kept here once so the REST API, the
// Connect page, sessions and MCP endpoints cannot drift apart. Lengths
// count characters (docs/README.md, "Limits", says characters), not bytes.

// MaxNameLen bounds an account name (docs/README.md, "Limits").
const MaxNameLen = 64

// MaxUserIDLen bounds a user id (docs/README.md, "Limits").
const MaxUserIDLen = 256

// CheckName records an issue for an account name longer than MaxNameLen
// characters, or empty when required (a rename; on create an empty name
// means the next free one).
func CheckName(name string, required bool, issues *apierr.Issues) {
	switch {
	case name == "" && required:
		issues.Add(apierr.IssueInvalidValue, []any{"name"}, "must be 1 to %d characters", MaxNameLen)
	case utf8.RuneCountInString(name) > MaxNameLen:
		issues.Add(apierr.IssueTooBig, []any{"name"}, "must be at most %d characters", MaxNameLen)
	}
}

// CheckUserID records an issue at field for a user id longer than
// MaxUserIDLen characters, or empty when required.
func CheckUserID(userID, field string, required bool, issues *apierr.Issues) {
	switch n := utf8.RuneCountInString(userID); {
	case n == 0 && required:
		issues.Add(apierr.IssueRequired, []any{field}, "is required")
	case n > MaxUserIDLen:
		issues.Add(apierr.IssueTooBig, []any{field}, "must be at most %d characters", MaxUserIDLen)
	}
}

// CheckConnectionID records an issue at field for a connection id that is
// set but not a UUID (every account id is one).
func CheckConnectionID(id, field string, issues *apierr.Issues) {
	if id != "" && uuid.Validate(id) != nil {
		issues.Add(apierr.IssueInvalidValue, []any{field}, "must be a UUID")
	}
}

// MatchesRef reports whether ref names the account: its id or name
// exactly, or its label in any case. Names are unique per user and
// connector and compared as stored; a label is display text ("Work
// Gmail") that a person or a model retypes, so its case does not matter.
// Session accounts (checked at create), account resolution and the
// disconnect meta tool all use this one rule.
func MatchesRef(c store.Connection, ref string) bool {
	return ref != "" && (c.ID == ref || c.Name == ref || (c.Label != nil && strings.EqualFold(*c.Label, ref)))
}
