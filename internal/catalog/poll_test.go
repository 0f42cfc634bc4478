package catalog

import (
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// pollTrigger is a good poll trigger; the cases below change one part.
const pollTrigger = `
triggers:
  - id: acme_item_created
    name: Item created
    description: Fires for each new item, found by its creation time.
    kind: poll
    poll:
      method: GET
      path: /folders/{folder}/items
      query: {since: "{cursor}", tag: "{tag}"}
      items: data.items
      id: id
      cursor: {type: timestamp, field: created_at}
      interval: 5m
      minInterval: 2m
    configSchema:
      type: object
      properties:
        folder: {type: string}
        tag: {type: string}
      required: [folder]
      additionalProperties: false
`

func TestLoad_PollTrigger_GoodDefinition(t *testing.T) {
	t.Parallel()
	cat, err := Load(fstest.MapFS{
		"connectors/acme.yaml": {Data: []byte(goodConnector + pollTrigger)},
		"logos/acme.svg":       {Data: []byte("<svg/>")},
	})
	if err != nil {
		t.Fatal(err)
	}
	tr, ok := cat.Trigger("acme_item_created")
	if !ok || !tr.Polled() || tr.Poll.Floor() != 2*time.Minute || time.Duration(tr.Poll.Interval) != 5*time.Minute {
		t.Fatalf("trigger %+v", tr)
	}
	if err := tr.ValidateConfig(map[string]any{"folder": "f1"}); err != nil {
		t.Fatal(err)
	}
}

func TestLoad_PollTrigger_RejectsBadDefinitions(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, old, new, want string
	}{
		{"unknown kind", "kind: poll", "kind: pull", `"pull" must be webhook or poll`},
		{"no poll", "    poll:\n      method: GET", "    polled:\n      method: GET", "field polled not found"},
		{"webhook parts", "    kind: poll\n", "    kind: poll\n    verification: stripe\n", "takes no match, verification or setup"},
		{"method", "method: GET", "method: DELETE", `"DELETE" must be GET or POST`},
		{"query in path", "/folders/{folder}/items", "/folders/{folder}/items?x=1", "carry no query"},
		{"optional path field", "required: [folder]", "required: []", "path placeholder {folder} must be a required config field"},
		{"unknown placeholder", `tag: "{tag}"`, `tag: "{label}"`, "placeholder {label} is neither a config field nor cursor"},
		{"bad items", "items: data.items", "items: data..items", "dotted path of the array of items"},
		{"no id", "      id: id\n", "", "items are told apart by their id"},
		{"cursor type", "type: timestamp", "type: clock", `"clock" must be timestamp, token, count or upcoming`},
		{"upcoming without lead", `{type: timestamp, field: created_at}`, `{type: upcoming, field: created_at}`, "lead: is required"},
		{"upcoming lead too long", `{type: timestamp, field: created_at}`, `{type: upcoming, field: created_at, lead: 200h}`, "between 1m and 168h0m0s"},
		{"upcoming without field", `{type: timestamp, field: created_at}`, `{type: upcoming, lead: 15m}`, "field: is required"},
		{"upcoming lead field unknown", `{type: timestamp, field: created_at}`, `{type: upcoming, field: starts_at, lead: 15m, leadField: minutes}`, `"minutes" is not a config field`},
		{"upcoming with lag", `{type: timestamp, field: created_at}`, `{type: upcoming, field: starts_at, lead: 15m, lag: 1m}`, "takes field, format, lead and leadField only"},
		{"lead on a timestamp cursor", `{type: timestamp, field: created_at}`, `{type: timestamp, field: created_at, lead: 15m}`, "lead and leadField belong to upcoming cursors"},
		{"until outside upcoming", `{since: "{cursor}", tag: "{tag}"}`, `{since: "{cursor}", before: "{until}"}`, "placeholder {until} is neither a config field nor cursor"},
		{"lag too long", "field: created_at}", "field: created_at, lag: 2h}", "lag: must be between 0 and 1h0m0s"},
		{"format", "field: created_at}", "field: created_at, format: iso}", `"iso" must be rfc3339, rfc3339ms, unix, unixms or a Go time layout`},
		{"unsent timeless cursor", `{since: "{cursor}", tag: "{tag}"}
      items: data.items
      id: id
      cursor: {type: timestamp, field: created_at}`, `{tag: "{tag}"}
      items: data.items
      id: id
      cursor: {type: timestamp}`, "put {cursor} in the query or body"},
		{"count with id", `{type: timestamp, field: created_at}`, `{type: count}`, "a count cursor numbers items by position"},
		{"token without start", `{type: timestamp, field: created_at}`, `{type: token, next: [next]}`, "start: is required"},
		{"token without next", `{type: timestamp, field: created_at}`, `{type: token, start: {method: GET, path: /start, token: t}}`, "next: is required"},
		{"interval below floor", "interval: 5m", "interval: 90s", "must be at least 2m0s"},
		{"floor below minimum", "minInterval: 2m", "minInterval: 10s", "minInterval: must be at least 1m0s"},
		{"no interval", "      interval: 5m\n", "", "interval: is required"},
		{"bad duration", "interval: 5m", "interval: often", `"often" is not a duration`},
		{"GET with body", "      items: data.items", "      body: {q: x}\n      items: data.items", "a GET request sends no body"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			def := strings.Replace(pollTrigger, c.old, c.new, 1)
			if def == pollTrigger {
				t.Fatalf("the case changes nothing: %q not found", c.old)
			}
			err := loadOne(t, goodConnector+def)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("err %v, want it to say %q", err, c.want)
			}
		})
	}
}

func TestLoad_PollTrigger_Upcoming(t *testing.T) {
	t.Parallel()
	def := strings.NewReplacer(`{since: "{cursor}", tag: "{tag}"}`, `{from: "{cursor}", to: "{until}"}`,
		`{type: timestamp, field: created_at}`, `{type: upcoming, field: start.at, lead: 15m, leadField: minutes}`,
		"        tag: {type: string}", "        minutes: {type: integer, minimum: 1, maximum: 1440}").Replace(pollTrigger)
	cat, err := Load(fstest.MapFS{
		"connectors/acme.yaml": {Data: []byte(goodConnector + def)},
		"logos/acme.svg":       {Data: []byte("<svg/>")},
	})
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := cat.Trigger("acme_item_created")
	if c := tr.Poll.Cursor; c.Type != CursorUpcoming || time.Duration(c.Lead) != 15*time.Minute || c.LeadField != "minutes" {
		t.Fatalf("cursor %+v", c)
	}
}

func TestLoad_WebhookTrigger_RefusesPollPart(t *testing.T) {
	t.Parallel()
	def := strings.Replace(pollTrigger, "kind: poll", "kind: webhook", 1)
	err := loadOne(t, goodConnector+def)
	if err == nil || !strings.Contains(err.Error(), "poll: belongs to kind poll") {
		t.Fatalf("err %v", err)
	}
}
