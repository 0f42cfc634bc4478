package trigger

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// pollOverlap is how far back a timestamp cursor without an item field
// looks before the previous poll, for items the provider lists late
// (a search index that lags); the items seen already are skipped by id.
const pollOverlap = 5 * time.Minute

// idleLift is how far behind the poll a timestamp cursor is moved up to
// when it is older and the poll found nothing new.
const idleLift = 24 * time.Hour

// maxRecentKeys bounds the keys a timestamp cursor remembers.
const maxRecentKeys = 1000

// cursorState is a poll trigger's stored position. Which fields are used
// depends on the cursor type:
//   - timestamp: After (Unix ms) is the latest item time seen, or without a
//     field the start of the previous poll; IDs are the items already
//     emitted within the cursor's lag before After, as "ms:id" (with a
//     field), or the ids the previous poll returned (without one); Floor
//     (the trigger's creation) bounds how far back a request ever asks.
//   - token: Token is the provider's position.
//   - count: N is how many items the list had; Placed says it was counted.
//   - upcoming: After (Unix ms) is when the previous poll began; IDs are
//     the items emitted whose time has not passed, as "ms:id".
type cursorState struct {
	After  int64    `json:"after,omitempty"`
	Floor  int64    `json:"floor,omitempty"`
	IDs    []string `json:"ids,omitempty"`
	Token  string   `json:"token,omitempty"`
	N      int      `json:"n,omitempty"`
	Placed bool     `json:"placed,omitempty"`
}

// initialCursor is the stored position of a new poll trigger created at
// now: a timestamp cursor starts at the creation (only later items are
// events); token and count cursors are placed by the first poll.
func initialCursor(def *catalog.Trigger, now time.Time) string {
	if def.Poll.Cursor.Type != catalog.CursorTimestamp {
		return ""
	}
	b, _ := json.Marshal(cursorState{After: now.UnixMilli(), Floor: now.UnixMilli(), Placed: true})
	return string(b)
}

func parseCursor(s string) (cursorState, error) {
	var c cursorState
	if s == "" {
		return c, nil
	}
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		return c, fmt.Errorf("trigger: the stored poll cursor is not readable: %w", err)
	}
	return c, nil
}

func (c cursorState) String() string {
	b, _ := json.Marshal(c)
	return string(b)
}

// queryCursor is the cursor as the provider reads it in a request.
func (c cursorState) queryCursor(pc catalog.PollCursor) string {
	switch pc.Type {
	case catalog.CursorToken:
		return c.Token
	case catalog.CursorTimestamp:
		lag := time.Duration(pc.Lag)
		if pc.Field == "" {
			lag = pollOverlap
		}
		at := max(c.Floor, c.After-lag.Milliseconds())
		return formatTime(time.UnixMilli(at).UTC(), pc.Format)
	}
	return ""
}

func formatTime(t time.Time, format string) string {
	switch format {
	case catalog.FormatUnix:
		return strconv.FormatInt(t.Unix(), 10)
	case catalog.FormatUnixMS:
		return strconv.FormatInt(t.UnixMilli(), 10)
	case catalog.FormatRFC3339MS:
		return t.Truncate(time.Millisecond).Format("2006-01-02T15:04:05.000Z07:00")
	case "", catalog.FormatRFC3339:
	default:
		// A layout of the provider's own (validated at load).
		return t.UTC().Format(format)
	}
	// Whole seconds, rounded down: the request asks from a little before
	// the cursor, and the items already seen are skipped.
	return t.Truncate(time.Second).Format(time.RFC3339)
}

// polledItem is one new item to emit: its payload and the key that tells
// it apart from every other event of the trigger.
type polledItem struct {
	key     string
	payload any
}

// newItems picks the items of one answer that are new after c, in the
// order they happened, and returns them with the cursor after them. start
// is when the poll began; until is the end of an upcoming cursor's window.
func newItems(pl *catalog.Poll, c cursorState, items []any, start, until time.Time) ([]polledItem, cursorState, error) {
	switch pl.Cursor.Type {
	case catalog.CursorCount:
		return newRows(c, items)
	case catalog.CursorUpcoming:
		return newUpcoming(pl, c, items, start, until)
	case catalog.CursorToken:
		var out []polledItem
		for _, it := range items {
			id := itemID(pl, it)
			if id == "" {
				continue
			}
			// One token's changes are new once: the key holds the token.
			out = append(out, polledItem{key: "token:" + c.Token + ":" + id, payload: it})
		}
		return out, c, nil
	}
	if pl.Cursor.Field == "" {
		next := cursorState{After: start.UnixMilli(), Floor: c.Floor, Placed: true}
		var out []polledItem
		for _, it := range items {
			id := itemID(pl, it)
			if id == "" {
				continue
			}
			next.IDs = append(next.IDs, id)
			if !slices.Contains(c.IDs, id) {
				out = append(out, polledItem{key: "id:" + id, payload: it})
			}
		}
		// Oldest first: providers of such lists answer newest first.
		slices.Reverse(out)
		return out, next, nil
	}
	type timed struct {
		key string
		at  int64
		it  any
	}
	lag := time.Duration(pl.Cursor.Lag).Milliseconds()
	from := max(c.Floor, c.After-lag)
	var fresh []timed
	for _, it := range items {
		id := itemID(pl, it)
		at, ok := parseTime(catalog.SelectPath(it, pl.Cursor.Field))
		if id == "" || !ok {
			continue
		}
		key := strconv.FormatInt(at, 10) + ":" + id
		if at < from || slices.Contains(c.IDs, key) {
			continue
		}
		fresh = append(fresh, timed{key, at, it})
	}
	sort.SliceStable(fresh, func(i, j int) bool { return fresh[i].at < fresh[j].at })
	next := cursorState{After: c.After, Floor: c.Floor, Placed: true}
	out := make([]polledItem, 0, len(fresh))
	for _, f := range fresh {
		out = append(out, polledItem{key: "at:" + f.key, payload: f.it})
		next.After = max(next.After, f.at)
	}
	if len(fresh) == 0 && c.After < start.Add(-idleLift).UnixMilli() {
		// Nothing new since an old cursor: move it up, so that requests do
		// not ask ever further back (some providers refuse a bound too
		// old). The request just made covered the time skipped.
		next.After = start.Add(-idleLift).UnixMilli()
	}
	// Remember what was seen within the lag before the cursor: such items
	// come again in the next answer.
	keep := next.After - lag
	for _, k := range c.IDs {
		if keyTime(k) >= keep && len(next.IDs) < maxRecentKeys {
			next.IDs = append(next.IDs, k)
		}
	}
	for _, f := range fresh {
		if f.at >= keep && len(next.IDs) < maxRecentKeys {
			next.IDs = append(next.IDs, f.key)
		}
	}
	return out, next, nil
}

// upcomingLead is how far ahead an upcoming cursor looks for a trigger:
// the config field the definition names (minutes), or else its lead.
func upcomingLead(pc catalog.PollCursor, cfg map[string]any) time.Duration {
	if pc.LeadField != "" {
		if m, ok := cfg[pc.LeadField].(float64); ok && m >= 1 {
			return min(time.Duration(m)*time.Minute, catalog.MaxPollLead)
		}
	}
	return time.Duration(pc.Lead)
}

// newUpcoming emits the items due between the previous poll (or, on the
// first, this one) and until, soonest first, each once for each time it is
// due: an item moved to another time is due again. Items already begun at
// the previous poll are not emitted (an event under way is not "starting
// soon"), and the keys of items still to come are remembered.
func newUpcoming(pl *catalog.Poll, c cursorState, items []any, start, until time.Time) ([]polledItem, cursorState, error) {
	// Items that began since the previous poll are still news, but after
	// an outage no more than one lead back.
	from := start.UnixMilli()
	if c.Placed && c.After > 0 {
		from = max(min(from, c.After), start.Add(-until.Sub(start)).UnixMilli())
	}
	type timed struct {
		key string
		at  int64
		it  any
	}
	var due []timed
	for _, it := range items {
		id := itemID(pl, it)
		at, ok := parseTime(catalog.SelectPath(it, pl.Cursor.Field))
		if id == "" || !ok || at < from || at > until.UnixMilli() {
			continue
		}
		key := strconv.FormatInt(at, 10) + ":" + id
		if slices.Contains(c.IDs, key) || slices.ContainsFunc(due, func(d timed) bool { return d.key == key }) {
			continue
		}
		due = append(due, timed{key, at, it})
	}
	sort.SliceStable(due, func(i, j int) bool { return due[i].at < due[j].at })
	next := cursorState{After: start.UnixMilli(), Placed: true}
	out := make([]polledItem, 0, len(due))
	for _, d := range due {
		out = append(out, polledItem{key: "up:" + d.key, payload: d.it})
	}
	// The next poll looks from this one's start: keys of earlier times
	// cannot come again.
	for _, k := range c.IDs {
		if keyTime(k) >= next.After && len(next.IDs) < maxRecentKeys {
			next.IDs = append(next.IDs, k)
		}
	}
	for _, d := range due {
		if d.at >= next.After && len(next.IDs) < maxRecentKeys {
			next.IDs = append(next.IDs, d.key)
		}
	}
	return out, next, nil
}

// keyTime reads the time of a remembered "ms:id" key.
func keyTime(k string) int64 {
	ms, _, _ := strings.Cut(k, ":")
	n, _ := strconv.ParseInt(ms, 10, 64)
	return n
}

// newRows emits the rows past the counted ones; the first poll only counts.
func newRows(c cursorState, items []any) ([]polledItem, cursorState, error) {
	next := cursorState{N: len(items), Placed: true}
	if !c.Placed || len(items) <= c.N {
		return nil, next, nil
	}
	var out []polledItem
	for i := c.N; i < len(items); i++ {
		b, _ := json.Marshal(items[i])
		out = append(out, polledItem{key: "row:" + strconv.Itoa(i+1) + ":" + digestOf(string(b)),
			payload: map[string]any{"row": i + 1, "values": items[i]}})
	}
	return out, next, nil
}

// itemID reads an item's id as text ("" when it has none).
func itemID(pl *catalog.Poll, it any) string {
	switch v := catalog.SelectPath(it, pl.ID).(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case json.Number:
		return v.String()
	}
	return ""
}

// timeLayouts are the item time formats providers send, besides numbers.
var timeLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.000-0700", // Salesforce
	"2006-01-02T15:04:05-0700",
	"2006-01-02T15:04:05.999999999", // no zone: UTC
	"2006-01-02",
}

// msDate is a Microsoft JSON date: /Date(1573755038314+0000)/.
var msDate = regexp.MustCompile(`^/Date\((-?\d+)([+-]\d{4})?\)/$`)

// parseTime reads an item time: an RFC 3339 or similar string, or a
// number of seconds or milliseconds since 1970 (as a number or digits).
// It returns Unix milliseconds.
func parseTime(v any) (int64, bool) {
	switch x := v.(type) {
	case float64:
		return epoch(int64(x)), true
	case string:
		s := strings.TrimSpace(x)
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return epoch(n), true
		}
		if m := msDate.FindStringSubmatch(s); m != nil {
			// Microsoft's JSON date (Xero): milliseconds since 1970 in UTC;
			// the offset only says where it was shown.
			n, err := strconv.ParseInt(m[1], 10, 64)
			return n, err == nil
		}
		for _, l := range timeLayouts {
			if t, err := time.Parse(l, s); err == nil {
				return t.UnixMilli(), true
			}
		}
	}
	return 0, false
}

// epoch reads seconds or milliseconds since 1970: values past 1e11 are
// milliseconds (1e11 seconds is the year 5138).
func epoch(n int64) int64 {
	if n > 100_000_000_000 || n < -100_000_000_000 {
		return n
	}
	return n * 1000
}
