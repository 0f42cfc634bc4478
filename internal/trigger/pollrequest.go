package trigger

import (
	"fmt"
	"math"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// pollVars are the values a poll call's placeholders take: the trigger's
// config fields and, under "cursor", the cursor as the provider reads it.
type pollVars map[string]string

// configText writes a config value into a request: a whole number as its
// digits (JSON numbers decode as float64, which fmt would write as
// 4.58317339380314e+15), anything else as fmt does.
func configText(v any) string {
	if f, ok := v.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10)
	}
	return fmt.Sprint(v)
}

// setCursor sets {cursor} for a poll beginning at start: the cursor as the
// provider reads it, or for an upcoming cursor the poll's time, with
// {until} the end of the window ahead, which it returns.
func (v pollVars) setCursor(pc catalog.PollCursor, cur cursorState, cfg map[string]any, start time.Time) (until time.Time) {
	if pc.Type != catalog.CursorUpcoming {
		v["cursor"] = cur.queryCursor(pc)
		return time.Time{}
	}
	until = start.Add(upcomingLead(pc, cfg))
	v["cursor"] = formatTime(start, pc.Format)
	v["until"] = formatTime(until, pc.Format)
	return until
}

// fill replaces the {placeholders} of s; an unknown one (an optional config
// field left out) becomes empty.
func (v pollVars) fill(s string) string {
	return placeholder.ReplaceAllStringFunc(s, func(m string) string {
		return v[placeholder.FindStringSubmatch(m)[1]]
	})
}

// pollTarget builds the path and query of a poll call. Path values are
// escaped as one segment each; a query parameter that comes out empty is
// not sent.
func pollTarget(path string, query map[string]string, vars pollVars) string {
	p := placeholder.ReplaceAllStringFunc(path, func(m string) string {
		return url.PathEscape(vars[placeholder.FindStringSubmatch(m)[1]])
	})
	keys := make([]string, 0, len(query))
	for k := range query {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var q []string
	for _, k := range keys {
		val := strings.TrimSpace(vars.fill(query[k]))
		if val == "" {
			continue
		}
		q = append(q, queryEscape(k)+"="+queryEscape(val))
	}
	if len(q) == 0 {
		return p
	}
	return p + "?" + strings.Join(q, "&")
}

// queryEscape escapes a query name or value, writing spaces as %20 (not
// every API reads +) and leaving / : $ as they are.
func queryEscape(s string) string {
	return strings.NewReplacer("+", "%20", "%2F", "/", "%3A", ":", "%24", "$").Replace(url.QueryEscape(s))
}

// pollBody fills the placeholders of a poll call's JSON body: a string
// that is only an unknown placeholder drops its field.
func pollBody(v any, vars pollVars) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, val := range x {
			if s, ok := val.(string); ok {
				if m := placeholder.FindStringSubmatch(s); m != nil && m[0] == s {
					if _, known := vars[m[1]]; !known {
						continue
					}
				}
			}
			out[k] = pollBody(val, vars)
		}
		return out
	case []any:
		out := make([]any, 0, len(x))
		for _, val := range x {
			out = append(out, pollBody(val, vars))
		}
		return out
	case string:
		return vars.fill(x)
	}
	return v
}
