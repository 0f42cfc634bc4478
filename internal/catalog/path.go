package catalog

import (
	"strconv"
	"strings"
)

// SelectPath walks a dotted path (data.items.0.id) into a decoded JSON
// value and returns what it finds, or nil. Definitions use such paths for
// a tool's response, a trigger's body selectors and delivery ids, hook
// registration results and an account's identity label; all read them
// with this one function. A segment indexes an array when it is a
// decimal index within it (strconv.Atoi: no spaces, no 0x).
func SelectPath(v any, path string) any {
	for start := 0; ; {
		end := start
		for end < len(path) && path[end] != '.' {
			end++
		}
		part := path[start:end]
		switch x := v.(type) {
		case map[string]any:
			v = x[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(x) {
				return nil
			}
			v = x[i]
		default:
			return nil
		}
		if end == len(path) {
			return v
		}
		start = end + 1
	}
}

// DeletePath removes the field that a dotted path names from v, in place;
// where the path passes through a list, from every element of it.
func DeletePath(v any, path string) {
	part, rest, more := strings.Cut(path, ".")
	switch x := v.(type) {
	case map[string]any:
		if !more {
			delete(x, part)
			return
		}
		DeletePath(x[part], rest)
	case []any:
		for _, e := range x {
			DeletePath(e, path)
		}
	}
}
