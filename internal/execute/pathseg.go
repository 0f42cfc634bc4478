package execute

import (
	"net/url"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Servers do not all read a path the same way: some drop ";parameters"
// from a segment ("..;" is ".."), some fold Unicode compatibility forms
// (a full-width dot U+FF0E is "."), some decode %2F into a slash. A path
// Switchboard builds must not climb out of where it points in any of their
// eyes, so these checks refuse what any of them would read as a dot
// segment.

// plainSegment reports whether one segment of a proxy endpoint (as sent,
// percent-encoded) names a resource on every server: it decodes to valid
// UTF-8 (no overlong forms), holds no slash or backslash once folded
// (NFKC), and is not a dot segment once folded and cut at ';'.
func plainSegment(seg string) bool {
	if seg == "" {
		return true
	}
	decoded, err := url.PathUnescape(seg)
	if err != nil || !utf8.ValidString(decoded) {
		return false
	}
	folded := norm.NFKC.String(decoded)
	return !strings.ContainsAny(folded, `/\`) && !dotSegment(folded)
}

// climbs reports whether a tool's input value, placed in a path (where it
// is percent-encoded once and a server decodes it once), would be read as
// or hold a dot segment: it is split at slashes and backslashes, which a
// server may decode from %2F and %5C, after folding.
func climbs(value string) bool {
	if !utf8.ValidString(value) {
		return true
	}
	for _, piece := range strings.FieldsFunc(norm.NFKC.String(value), func(r rune) bool { return r == '/' || r == '\\' }) {
		if dotSegment(piece) {
			return true
		}
	}
	return false
}

// dotSegment reports whether a decoded, folded segment is only dots before
// any ';' ("." , "..", "..;x", "...").
func dotSegment(folded string) bool {
	folded, _, _ = strings.Cut(folded, ";")
	return folded != "" && strings.Trim(folded, ".") == ""
}
