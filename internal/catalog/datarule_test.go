package catalog

import (
	"strings"
	"testing"
	"testing/fstest"

	builtin "github.com/switchboard-gw/switchboard/catalog"
)

func builtinDataRule(t *testing.T) *DataRule {
	t.Helper()
	raw, err := builtin.FS.ReadFile("data-rule.yaml")
	if err != nil {
		t.Fatal(err)
	}
	r, err := ParseDataRule(raw)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// Every built-in tool is classified at least as its name asks
// (catalog/data-rule.yaml), and every sending verb is marked irreversible.
func TestDataRule_EveryBuiltInTool(t *testing.T) {
	t.Parallel()
	cat, err := Load(builtin.FS)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range builtinDataRule(t).Check(cat, false) {
		t.Error(p)
	}
}

func TestDataRule_Required(t *testing.T) {
	t.Parallel()
	r := builtinDataRule(t)
	for _, c := range []struct{ connector, tool, class, word string }{
		{"jira", "jira_get_issue", ClassPII, "issue"},
		{"jira", "jira_list_issue_types", ClassStandard, ""},
		{"github", "github_list_repository_issues", ClassPII, "issue"},
		{"github", "github_list_branches", ClassStandard, ""},
		{"gmail", "gmail_list_replies", ClassPII, "reply"},
		{"pipedrive", "pipedrive_list_activities", ClassStandard, ""},
		{"cloudflare", "cloudflare_list_dns_records", ClassStandard, ""},
		{"notion", "notion_search", ClassPII, "search"},
		{"acme", "acme_get_patient_records", ClassPHI, "patient"},
		{"acme", "acme_search_patients", ClassPHI, "patient"},
		{"acme", "acme_issue_refund", ClassStandard, ""}, // "issue" as the verb is no record
	} {
		class, word := r.Required(c.connector, c.tool)
		if class != c.class || word != c.word {
			t.Errorf("%s: %s (%q), want %s (%q)", c.tool, class, word, c.class, c.word)
		}
	}
}

func TestDataRule_ReportsEachKindOfProblem(t *testing.T) {
	t.Parallel()
	cat, err := Load(fsWith(t, `
  - id: acme_list_messages
    name: List messages
    description: Lists the messages people sent to the account, with text.
    effect: read
    dataClassification: standard
    inputSchema: {type: object, properties: {}, additionalProperties: false}
    request: {method: GET, path: /messages}
  - id: acme_send_message
    name: Send message
    description: Sends a message to a person outside, which cannot be called back.
    effect: write
    dataClassification: pii
    inputSchema: {type: object, properties: {}, additionalProperties: false}
    request: {method: POST, path: /messages}
`))
	if err != nil {
		t.Fatal(err)
	}
	r := &DataRule{PII: []string{"message"}, IrreversibleVerbs: []string{"send"},
		Exceptions: map[string]string{"acme_get_item": "x", "acme_gone": "y", "other_tool": "z"}}
	got := strings.Join(r.Check(cat, true), "\n")
	for _, want := range []string{
		`acme_list_messages: dataClassification is standard, but "message"`,
		`acme_send_message: "send" cannot be called back`,
		"acme_get_item: listed in exceptions, but no word of its name asks for more than standard",
		"acme_gone: listed in exceptions, but there is no such built-in tool",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in\n%s", want, got)
		}
	}
	if strings.Contains(got, "other_tool") {
		t.Errorf("a partial catalog judged another connector's exception:\n%s", got)
	}
}

// fsWith is the loader tests' acme connector with more tools appended.
func fsWith(t *testing.T, tools string) fstest.MapFS {
	t.Helper()
	return fstest.MapFS{
		"connectors/acme.yaml": {Data: []byte(goodConnector + strings.TrimPrefix(tools, "\n"))},
		"logos/acme.svg":       {Data: []byte("<svg/>")},
	}
}
