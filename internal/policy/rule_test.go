package policy

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/apierr"
)

func mustRule(t *testing.T, id, endpoint, spec string) *Rule {
	t.Helper()
	sp, err := ParseSpec(json.RawMessage(spec))
	if err != nil {
		t.Fatalf("rule %s: %v", spec, err)
	}
	r, err := Compile(id, endpoint, sp)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func input(t *testing.T, s string) map[string]any {
	t.Helper()
	v, err := decodeValue(json.RawMessage(s))
	if err != nil {
		t.Fatal(err)
	}
	return v.(map[string]any)
}

func TestRule_Matches(t *testing.T) {
	t.Parallel()
	refund := Subject{ToolID: "stripe_create_refund", ConnectorID: "stripe", Effect: "write", Irreversible: true, DataClass: "pii",
		HasAccount: true}
	send := Subject{ToolID: "gmail_send_message", ConnectorID: "gmail", Effect: "write", Irreversible: true, DataClass: "pii", HasAccount: true}
	read := Subject{ToolID: "github_get_issue", ConnectorID: "github", Effect: "read", DataClass: "standard", HasAccount: true, Global: true}
	proxy := Subject{ConnectorID: "github", Effect: "read", HasAccount: true}
	cases := []struct {
		name  string
		rule  string
		sub   Subject
		input string
		want  bool
	}{
		{"empty match matches everything", `{"decision":"deny"}`, read, `{}`, true},
		{"exact tool", `{"decision":"deny","match":{"tool":"stripe_create_refund"}}`, refund, `{}`, true},
		{"exact tool, other tool", `{"decision":"deny","match":{"tool":"stripe_create_refund"}}`, send, `{}`, false},
		{"prefix", `{"decision":"deny","match":{"tool":"stripe_*"}}`, refund, `{}`, true},
		{"prefix, other connector", `{"decision":"deny","match":{"tool":"stripe_*"}}`, read, `{}`, false},
		{"tool rule never matches a proxy call", `{"decision":"deny","match":{"tool":"github_*"}}`, proxy, `{}`, false},
		{"connector matches a proxy call", `{"decision":"deny","match":{"connector":"github"}}`, proxy, `{}`, true},
		{"effect", `{"decision":"ask","match":{"effect":"write"}}`, refund, `{}`, true},
		{"effect, read", `{"decision":"ask","match":{"effect":"write"}}`, read, `{}`, false},
		{"irreversible", `{"decision":"ask","match":{"irreversible":true}}`, send, `{}`, true},
		{"irreversible false", `{"decision":"ask","match":{"irreversible":false}}`, send, `{}`, false},
		{"data class", `{"decision":"ask","match":{"dataClass":"pii"}}`, send, `{}`, true},
		{"data class, other", `{"decision":"ask","match":{"dataClass":"phi"}}`, send, `{}`, false},
		{"global account", `{"decision":"deny","match":{"account":"global"}}`, read, `{}`, true},
		{"user account", `{"decision":"deny","match":{"account":"user"}}`, read, `{}`, false},
		{"user account matches user", `{"decision":"deny","match":{"account":"user"}}`, refund, `{}`, true},
		{"amount over", `{"decision":"deny","match":{"tool":"stripe_create_refund","arguments":[{"path":"amount","greaterThan":10000}]}}`,
			refund, `{"amount":25000}`, true},
		{"amount under", `{"decision":"deny","match":{"tool":"stripe_create_refund","arguments":[{"path":"amount","greaterThan":10000}]}}`,
			refund, `{"amount":500}`, false},
		{"amount missing never holds", `{"decision":"deny","match":{"arguments":[{"path":"amount","greaterThan":10}]}}`,
			refund, `{}`, false},
		{"amount as a string is not a number", `{"decision":"deny","match":{"arguments":[{"path":"amount","greaterThan":10}]}}`,
			refund, `{"amount":"25000"}`, false},
		{"lessThan", `{"decision":"deny","match":{"arguments":[{"path":"n","lessThan":0}]}}`, refund, `{"n":-1}`, true},
		{"equals string", `{"decision":"deny","match":{"arguments":[{"path":"currency","equals":"usd"}]}}`, refund, `{"currency":"usd"}`, true},
		{"equals number by value", `{"decision":"deny","match":{"arguments":[{"path":"n","equals":1}]}}`, refund, `{"n":1.0}`, true},
		{"equals object", `{"decision":"deny","match":{"arguments":[{"path":"o","equals":{"a":[1,2]}}]}}`, refund, `{"o":{"a":[1,2]}}`, true},
		{"in", `{"decision":"deny","match":{"arguments":[{"path":"repo","in":["prod","infra"]}]}}`, read, `{"repo":"infra"}`, true},
		{"in, absent value", `{"decision":"deny","match":{"arguments":[{"path":"repo","in":["prod","infra"]}]}}`, read, `{"repo":"docs"}`, false},
		{"nested path", `{"decision":"deny","match":{"arguments":[{"path":"$.customer.email","regexp":"@corp\\.example$"}]}}`,
			refund, `{"customer":{"email":"a@corp.example"}}`, true},
		{"array index", `{"decision":"deny","match":{"arguments":[{"path":"items.1.sku","equals":"X"}]}}`, refund, `{"items":[{"sku":"A"},{"sku":"X"}]}`, true},
		{"array index out of range", `{"decision":"deny","match":{"arguments":[{"path":"items.5.sku","equals":"X"}]}}`, refund, `{"items":[{"sku":"X"}]}`, false},
		{"any element of an array", `{"decision":"deny","match":{"arguments":[{"path":"items.sku","equals":"X"}]}}`, refund, `{"items":[{"sku":"A"},{"sku":"X"}]}`, true},
		{"recipient outside the domain", `{"decision":"ask","match":{"tool":"gmail_send_message","arguments":[{"path":"to","regexp":"@ours\\.example$","not":true}]}}`,
			send, `{"to":["a@ours.example","b@elsewhere.example"]}`, true},
		{"all recipients inside the domain", `{"decision":"ask","match":{"tool":"gmail_send_message","arguments":[{"path":"to","regexp":"@ours\\.example$","not":true}]}}`,
			send, `{"to":["a@ours.example","c@ours.example"]}`, false},
		{"not on a missing value never holds", `{"decision":"ask","match":{"arguments":[{"path":"to","regexp":"x","not":true}]}}`,
			send, `{}`, false},
		{"every condition must hold", `{"decision":"deny","match":{"arguments":[{"path":"a","equals":1},{"path":"b","equals":2}]}}`,
			refund, `{"a":1,"b":3}`, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			r := mustRule(t, "r", "", c.rule)
			sub := c.sub
			sub.Input = input(t, c.input)
			if got := r.Matches(sub); got != c.want {
				t.Fatalf("Matches = %v, want %v", got, c.want)
			}
		})
	}
}

func TestParseSpec_BadRulesRefusedWithIssues(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, rule string
		code       string
		path       string
	}{
		{"unknown decision", `{"decision":"maybe"}`, apierr.IssueInvalidValue, "decision"},
		{"missing decision", `{}`, apierr.IssueInvalidValue, "decision"},
		{"unknown rule field", `{"decision":"deny","mach":{}}`, apierr.IssueUnknownField, ""},
		{"unknown match field", `{"decision":"deny","match":{"tools":"x"}}`, apierr.IssueUnknownField, ""},
		{"unknown condition field", `{"decision":"deny","match":{"arguments":[{"path":"a","equal":1}]}}`, apierr.IssueUnknownField, ""},
		{"bad regexp", `{"decision":"deny","match":{"arguments":[{"path":"a","regexp":"(unclosed"}]}}`, apierr.IssueInvalidValue, "match.arguments[0].regexp"},
		{"two tests in a condition", `{"decision":"deny","match":{"arguments":[{"path":"a","equals":1,"regexp":"x"}]}}`, apierr.IssueInvalidValue, "match.arguments[0]"},
		{"no test in a condition", `{"decision":"deny","match":{"arguments":[{"path":"a"}]}}`, apierr.IssueInvalidValue, "match.arguments[0]"},
		{"empty path", `{"decision":"deny","match":{"arguments":[{"path":"","equals":1}]}}`, apierr.IssueInvalidValue, "match.arguments[0].path"},
		{"bad path", `{"decision":"deny","match":{"arguments":[{"path":"a..b","equals":1}]}}`, apierr.IssueInvalidValue, "match.arguments[0].path"},
		{"empty in", `{"decision":"deny","match":{"arguments":[{"path":"a","in":[]}]}}`, apierr.IssueInvalidValue, "match.arguments[0].in"},
		{"bad tool pattern", `{"decision":"deny","match":{"tool":"stripe_*_refund"}}`, apierr.IssueInvalidValue, "match.tool"},
		{"bad effect", `{"decision":"deny","match":{"effect":"delete"}}`, apierr.IssueInvalidValue, "match.effect"},
		{"bad data class", `{"decision":"deny","match":{"dataClass":"secret"}}`, apierr.IssueInvalidValue, "match.dataClass"},
		{"bad account", `{"decision":"deny","match":{"account":"shared"}}`, apierr.IssueInvalidValue, "match.account"},
		{"negative priority", `{"decision":"deny","priority":-1}`, apierr.IssueInvalidValue, "priority"},
		{"client approval on a deny rule", `{"decision":"deny","clientApproval":false}`, apierr.IssueInvalidValue, "clientApproval"},
		{"not an object", `[1]`, apierr.IssueInvalidType, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			_, err := ParseSpec(json.RawMessage(c.rule))
			e, ok := apierr.As(err)
			if !ok || e.Code != apierr.ValidationError || len(e.Issues) == 0 {
				t.Fatalf("got %v, want VALIDATION_ERROR with issues", err)
			}
			for _, is := range e.Issues {
				if is.Code == c.code && apierr.PathString(is.Path) == c.path {
					return
				}
			}
			t.Fatalf("issues %+v lack %s at %q", e.Issues, c.code, c.path)
		})
	}
}

func TestSet_Evaluate_Precedence(t *testing.T) {
	t.Parallel()
	sub := Subject{ToolID: "stripe_create_refund", ConnectorID: "stripe", Effect: "write", Irreversible: true, DataClass: "pii",
		HasAccount: true, Input: map[string]any{"amount": json.Number("500")}}
	allowStripe := mustRule(t, "allow-stripe", "", `{"decision":"allow","priority":20,"match":{"connector":"stripe"}}`)
	askRefund := mustRule(t, "ask-refund", "", `{"decision":"ask","priority":10,"match":{"tool":"stripe_create_refund"}}`)
	denyWrites := mustRule(t, "deny-writes", "", `{"decision":"deny","priority":30,"match":{"effect":"write"}}`)
	epDeny := mustRule(t, "ep-deny", "support", `{"decision":"deny","match":{"tool":"stripe_*"}}`)
	epAllow := mustRule(t, "ep-allow", "support", `{"decision":"allow"}`)
	sessionAllow := mustRule(t, "s-allow", "", `{"decision":"allow"}`)
	sessionAsk := mustRule(t, "s-ask", "", `{"decision":"ask","match":{"irreversible":true}}`)

	cases := []struct {
		name     string
		def      Decision
		rules    []*Rule
		endpoint string
		session  []*Rule
		want     Decision
		rule     string
		level    string
	}{
		{"no rules allows", Allow, nil, "", nil, Allow, "", LevelDefault},
		{"deny by default", Deny, nil, "", nil, Deny, "", LevelDefault},
		{"first match by priority wins within a level", Allow, []*Rule{allowStripe, askRefund, denyWrites}, "", nil, Ask, "ask-refund", LevelProject},
		{"a matching allow beats a later deny", Deny, []*Rule{denyWrites, allowStripe}, "", nil, Allow, "allow-stripe", LevelProject},
		{"project allow overrides deny by default", Deny, []*Rule{allowStripe}, "", nil, Allow, "allow-stripe", LevelProject},
		{"endpoint narrows", Allow, []*Rule{allowStripe, epDeny}, "support", nil, Deny, "ep-deny", LevelEndpoint},
		{"endpoint rules apply only to their endpoint", Allow, []*Rule{allowStripe, epDeny}, "other", nil, Allow, "allow-stripe", LevelProject},
		{"endpoint allow cannot widen a project deny", Allow, []*Rule{denyWrites, epAllow}, "support", nil, Deny, "deny-writes", LevelProject},
		{"endpoint allow cannot widen deny by default", Deny, []*Rule{epAllow}, "support", nil, Deny, "", LevelDefault},
		{"session allow cannot widen a project ask", Allow, []*Rule{askRefund}, "", []*Rule{sessionAllow}, Ask, "ask-refund", LevelProject},
		{"session narrows allow to ask", Allow, []*Rule{allowStripe}, "", []*Rule{sessionAsk}, Ask, "s-ask", LevelSession},
		{"session ask does not soften a deny", Allow, []*Rule{denyWrites}, "", []*Rule{sessionAsk}, Deny, "deny-writes", LevelProject},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			v := NewSet(c.def, c.rules).Evaluate(sub, c.endpoint, c.session)
			id := ""
			if v.Rule != nil {
				id = v.Rule.ID
			}
			if v.Decision != c.want || id != c.rule || v.Level != c.level {
				t.Fatalf("got %s by %q at %s, want %s by %q at %s", v.Decision, id, v.Level, c.want, c.rule, c.level)
			}
		})
	}
}

func TestSet_Empty(t *testing.T) {
	t.Parallel()
	if !NewSet(Allow, nil).Empty() {
		t.Fatal("no rules, default allow: not empty")
	}
	if NewSet(Deny, nil).Empty() {
		t.Fatal("deny by default reads as empty")
	}
	if NewSet(Allow, []*Rule{mustRule(t, "r", "ep", `{"decision":"deny"}`)}).Empty() {
		t.Fatal("an endpoint rule reads as empty")
	}
}

func TestCanonical_OrderAndSpacesDoNotMatter(t *testing.T) {
	t.Parallel()
	a, ha, _ := Canonical(input(t, `{"b": [1, 2], "a": {"y": "x", "x": 1}}`))
	b, hb, _ := Canonical(input(t, `{"a":{"x":1,"y":"x"},"b":[1,2]}`))
	if string(a) != string(b) || ha != hb {
		t.Fatalf("%s %s", a, b)
	}
	_, hc, _ := Canonical(input(t, `{"a":{"x":2,"y":"x"},"b":[1,2]}`))
	if hc == ha || strings.Contains(string(a), " ") {
		t.Fatal("a different input has the same hash, or spaces kept")
	}
}
