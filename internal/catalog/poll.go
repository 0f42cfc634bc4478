package catalog

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Trigger kinds.
const (
	// KindWebhook is a trigger whose provider sends each event to our ingress.
	KindWebhook = "webhook"
	// KindPoll is a trigger whose events Switchboard finds by calling a list
	// endpoint of the provider on a schedule.
	KindPoll = "poll"
)

// Cursor types of a poll trigger.
const (
	// CursorTimestamp remembers the latest item time seen (Field), or, with
	// no Field, the time of the previous poll.
	CursorTimestamp = "timestamp"
	// CursorToken remembers an opaque position the provider hands out
	// (a sync, delta or change token).
	CursorToken = "token"
	// CursorCount remembers how many items the list had (rows of a sheet).
	CursorCount = "count"
	// CursorUpcoming looks ahead: each poll lists the items whose time
	// (Field) falls in the next Lead, such as events about to start, and
	// emits each item once for each time it is due.
	CursorUpcoming = "upcoming"
)

// Cursor formats: how a timestamp cursor is written into a request.
const (
	FormatRFC3339   = "rfc3339"   // 2026-01-02T03:04:05Z, whole seconds, UTC
	FormatRFC3339MS = "rfc3339ms" // 2026-01-02T03:04:05.000Z, milliseconds, UTC
	FormatUnix      = "unix"      // seconds since 1970
	FormatUnixMS    = "unixms"    // milliseconds since 1970
)

// MinPollInterval is the floor under every poll trigger's interval.
const MinPollInterval = time.Minute

// MaxPollLag bounds a timestamp cursor's lag.
const MaxPollLag = time.Hour

// MaxPollLead bounds how far ahead an upcoming cursor looks.
const MaxPollLead = 7 * 24 * time.Hour

// Poll is the list call of a poll trigger and how to read its answer.
// Path, Query and Body take {config fields} of the trigger and {cursor}.
type Poll struct {
	Method string `yaml:"method" json:"method"`
	Path   string `yaml:"path" json:"path"`
	// Query holds query parameters; a parameter whose value comes out empty
	// (an optional config field left out) is not sent.
	Query map[string]string `yaml:"query" json:"query,omitempty"`
	// Body is a JSON body (a POST search); placeholders fill its strings.
	Body map[string]any `yaml:"body" json:"body,omitempty"`
	// Items is the dotted path of the array of items in the answer; empty
	// when the answer is the array.
	Items string `yaml:"items" json:"items,omitempty"`
	// ID is the dotted path of an item's id within the item (none for a
	// count cursor, whose items are numbered by position).
	ID     string     `yaml:"id" json:"id,omitempty"`
	Cursor PollCursor `yaml:"cursor" json:"cursor"`
	// Interval is how often the list is called; MinInterval is the
	// provider's floor (MinPollInterval when left out), which backoff
	// never undercuts either.
	Interval    Duration `yaml:"interval" json:"interval"`
	MinInterval Duration `yaml:"minInterval" json:"minInterval,omitempty"`
}

// PollCursor says how a poll trigger remembers where it is.
type PollCursor struct {
	// Type is timestamp, token or count.
	Type string `yaml:"type" json:"type"`
	// Field is the dotted path of an item's time (timestamp cursors).
	Field string `yaml:"field" json:"field,omitempty"`
	// Format is how {cursor} is written for a timestamp cursor (rfc3339,
	// rfc3339ms, unix or unixms, or a Go time layout written in UTC, such
	// as "DateTime(2006,01,02,15,04,05)"; rfc3339 when left out).
	Format string `yaml:"format" json:"format,omitempty"`
	// Lag is how late the provider may list an item after its time (a
	// search index that catches up): requests ask from that much before
	// the cursor, and the items seen already are skipped (timestamp
	// cursors with a field; at most MaxPollLag).
	Lag Duration `yaml:"lag" json:"lag,omitempty"`
	// Lead is how far ahead an upcoming cursor looks: an item is due once
	// its time is at most Lead away. {cursor} is the poll's time and
	// {until} that time plus the lead. LeadField names an integer config
	// field, in minutes, that replaces Lead for one trigger.
	Lead      Duration `yaml:"lead" json:"lead,omitempty"`
	LeadField string   `yaml:"leadField" json:"leadField,omitempty"`
	// Start is the call that yields the first token (token cursors).
	Start *PollStart `yaml:"start" json:"start,omitempty"`
	// Next lists dotted paths in the list answer where the next token may
	// be; the first non-empty one is taken (token cursors).
	Next []string `yaml:"next" json:"next,omitempty"`
	// More is the dotted path of a value that, when present (true or a
	// non-empty string), says more pages wait: the trigger is polled again
	// at once (token cursors).
	More string `yaml:"more" json:"more,omitempty"`
}

// PollStart is the call that gives a token cursor its first position.
type PollStart struct {
	Method string            `yaml:"method" json:"method"`
	Path   string            `yaml:"path" json:"path"`
	Query  map[string]string `yaml:"query" json:"query,omitempty"`
	// Body is a JSON body (an RPC-style API); placeholders are config fields.
	Body map[string]any `yaml:"body" json:"body,omitempty"`
	// Token is the dotted path of the token in the answer.
	Token string `yaml:"token" json:"token"`
}

// Duration is a time.Duration written as "5m" in YAML and JSON.
type Duration time.Duration

// UnmarshalYAML reads a Go duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	var s string
	if err := n.Decode(&s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return fmt.Errorf("%q is not a duration such as 5m", s)
	}
	*d = Duration(v)
	return nil
}

// MarshalJSON writes the duration as a string.
func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(d).String()) }

// UnmarshalJSON reads a duration string.
func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	v, err := time.ParseDuration(s)
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// Polled reports whether the trigger is a poll trigger.
func (t *Trigger) Polled() bool { return t.Kind == KindPoll }

// Floor returns the shortest wait between two polls of the trigger.
func (p *Poll) Floor() time.Duration {
	return max(time.Duration(p.MinInterval), MinPollInterval)
}

// pollTrigger checks a poll trigger: nothing of a webhook trigger, a list
// call whose placeholders are config fields or the cursor, and a cursor
// whose parts fit its type.
func (v *validator) pollTrigger(p string, tr *Trigger, configProps map[string]json.RawMessage, configRequired []string) {
	if len(tr.Match.Headers) > 0 || len(tr.Match.Body) > 0 || tr.Verification != "" || tr.Setup.Manual ||
		tr.Setup.Register != nil || tr.Setup.Unregister != nil {
		v.add(p, "a poll trigger takes no match, verification or setup")
	}
	pl := tr.Poll
	if pl == nil {
		v.add(p+".poll", "is required for kind poll")
		return
	}
	pp := p + ".poll"
	if pl.Method != "GET" && pl.Method != "POST" {
		v.add(pp+".method", "%q must be GET or POST", pl.Method)
	}
	if pl.Method == "GET" && len(pl.Body) > 0 {
		v.add(pp+".body", "a GET request sends no body")
	}
	usesCursor := false
	config := func(where string, cursorOK bool) func(string) {
		return func(name string) {
			if name == "until" && pl.Cursor.Type == CursorUpcoming {
				if !cursorOK {
					v.add(pp+"."+where, "{until} cannot go here")
				}
				return
			}
			if name == "cursor" {
				if !cursorOK {
					v.add(pp+"."+where, "{cursor} cannot go here")
				}
				usesCursor = true
				return
			}
			if _, ok := configProps[name]; !ok {
				v.add(pp+"."+where, "placeholder {%s} is neither a config field nor cursor", name)
			}
		}
	}
	v.pollPath(pp+".path", pl.Path, configProps, configRequired)
	for k, val := range pl.Query {
		if k == "" {
			v.add(pp+".query", "a parameter has no name")
		}
		eachPlaceholder(val, config("query."+k, true))
	}
	walkStrings(pl.Body, func(s string) { eachPlaceholder(s, config("body", true)) })
	if pl.Items != "" && !dottedPath(pl.Items) {
		v.add(pp+".items", "%q is not the dotted path of the array of items in the answer (leave it out when the answer is the array)", pl.Items)
	}
	if pl.ID != "" && !dottedPath(pl.ID) {
		v.add(pp+".id", "%q is not a dotted path", pl.ID)
	}
	c := pl.Cursor
	cp := pp + ".cursor"
	switch c.Type {
	case CursorTimestamp:
		if pl.ID == "" {
			v.add(pp+".id", "is required: items are told apart by their id")
		}
		if c.Field != "" && !dottedPath(c.Field) {
			v.add(cp+".field", "%q is not a dotted path", c.Field)
		}
		if !slices.Contains([]string{"", FormatRFC3339, FormatRFC3339MS, FormatUnix, FormatUnixMS}, c.Format) && !strings.Contains(c.Format, "2006") {
			v.add(cp+".format", "%q must be rfc3339, rfc3339ms, unix, unixms or a Go time layout (2006-01-02 15:04)", c.Format)
		}
		if c.Lag < 0 || time.Duration(c.Lag) > MaxPollLag || (c.Lag != 0 && c.Field == "") {
			v.add(cp+".lag", "must be between 0 and %s, and only with a field", MaxPollLag)
		}
		if c.Field == "" && !usesCursor {
			v.add(cp, "a timestamp cursor without a field must be sent: put {cursor} in the query or body")
		}
		if c.Start != nil || len(c.Next) > 0 || c.More != "" {
			v.add(cp, "start, next and more belong to token cursors")
		}
	case CursorToken:
		if pl.ID == "" {
			v.add(pp+".id", "is required: items are told apart by their id")
		}
		if !usesCursor {
			v.add(cp, "a token cursor must be sent: put {cursor} in the query or body")
		}
		if c.Start == nil {
			v.add(cp+".start", "is required: the call that gives the first token")
		} else {
			if c.Start.Method != "GET" && c.Start.Method != "POST" {
				v.add(cp+".start.method", "%q must be GET or POST", c.Start.Method)
			}
			v.pollPath(cp+".start.path", c.Start.Path, configProps, configRequired)
			for k, val := range c.Start.Query {
				eachPlaceholder(val, config("cursor.start.query."+k, false))
			}
			walkStrings(c.Start.Body, func(s string) { eachPlaceholder(s, config("cursor.start.body", false)) })
			if c.Start.Method == "GET" && len(c.Start.Body) > 0 {
				v.add(cp+".start.body", "a GET request sends no body")
			}
			if !dottedPath(c.Start.Token) {
				v.add(cp+".start.token", "is required: where the token is in the answer")
			}
		}
		if len(c.Next) == 0 {
			v.add(cp+".next", "is required: where the next token is in the answer")
		}
		for i, n := range c.Next {
			if !dottedPath(n) {
				v.add(fmt.Sprintf("%s.next[%d]", cp, i), "%q is not a dotted path", n)
			}
		}
		if c.More != "" && !dottedPath(c.More) {
			v.add(cp+".more", "%q is not a dotted path", c.More)
		}
		if c.Field != "" || c.Format != "" || c.Lag != 0 {
			v.add(cp, "field, format and lag belong to timestamp cursors")
		}
	case CursorUpcoming:
		if pl.ID == "" {
			v.add(pp+".id", "is required: items are told apart by their id")
		}
		if !dottedPath(c.Field) {
			v.add(cp+".field", "is required: the dotted path of the time an item is due (an event's start)")
		}
		if !slices.Contains([]string{"", FormatRFC3339, FormatRFC3339MS, FormatUnix, FormatUnixMS}, c.Format) && !strings.Contains(c.Format, "2006") {
			v.add(cp+".format", "%q must be rfc3339, rfc3339ms, unix, unixms or a Go time layout (2006-01-02 15:04)", c.Format)
		}
		if c.Lead < Duration(time.Minute) || time.Duration(c.Lead) > MaxPollLead {
			v.add(cp+".lead", "is required: how far ahead to look, between 1m and %s", MaxPollLead)
		}
		if c.LeadField != "" {
			if _, ok := configProps[c.LeadField]; !ok {
				v.add(cp+".leadField", "%q is not a config field", c.LeadField)
			}
		}
		if !usesCursor {
			v.add(cp, "an upcoming cursor must be sent: put {cursor} (now) and {until} (now plus the lead) in the query or body")
		}
		if c.Lag != 0 || c.Start != nil || len(c.Next) > 0 || c.More != "" {
			v.add(cp, "an upcoming cursor takes field, format, lead and leadField only")
		}
	case CursorCount:
		if pl.ID != "" {
			v.add(pp+".id", "a count cursor numbers items by position; leave id out")
		}
		if usesCursor {
			v.add(cp, "a count cursor is not sent to the provider; leave {cursor} out")
		}
		if c.Field != "" || c.Format != "" || c.Lag != 0 || c.Start != nil || len(c.Next) > 0 || c.More != "" {
			v.add(cp, "a count cursor takes only its type")
		}
	default:
		v.add(cp+".type", "%q must be timestamp, token, count or upcoming", c.Type)
	}
	if c.Type != CursorUpcoming && (c.Lead != 0 || c.LeadField != "") {
		v.add(cp, "lead and leadField belong to upcoming cursors")
	}
	if pl.MinInterval != 0 && time.Duration(pl.MinInterval) < MinPollInterval {
		v.add(pp+".minInterval", "must be at least %s", MinPollInterval)
	}
	if time.Duration(pl.Interval) < pl.Floor() {
		v.add(pp+".interval", "is required and must be at least %s (the provider's floor)", pl.Floor())
	}
}

// pollPath checks a poll call's path: it starts with / and its
// placeholders are required config fields.
func (v *validator) pollPath(field, path string, configProps map[string]json.RawMessage, configRequired []string) {
	if !strings.HasPrefix(path, "/") || strings.ContainsAny(path, "?#") {
		v.add(field, "%q must start with / and carry no query (give it as query)", path)
	}
	eachPlaceholder(path, func(name string) {
		if _, ok := configProps[name]; !ok || !slices.Contains(configRequired, name) {
			v.add(field, "path placeholder {%s} must be a required config field", name)
		}
	})
}

// eachPlaceholder calls fn with the name of every {placeholder} of s.
func eachPlaceholder(s string, fn func(string)) {
	for _, m := range placeholderRegex.FindAllStringSubmatch(s, -1) {
		fn(m[1])
	}
}

// walkStrings calls fn with every string in a decoded YAML or JSON value.
func walkStrings(v any, fn func(string)) {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			walkStrings(e, fn)
		}
	case []any:
		for _, e := range x {
			walkStrings(e, fn)
		}
	case string:
		fn(x)
	}
}

// dottedPath reports whether p is a non-empty dotted path without empty parts.
func dottedPath(p string) bool {
	return p != "" && !strings.HasPrefix(p, ".") && !strings.HasSuffix(p, ".") && !strings.Contains(p, "..")
}
