package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// adminGroup is one command group of `switchboard admin`: a resource and
// the commands (verbs) that act on it.
type adminGroup struct {
	name, summary string
	commands      []adminVerb
}

// adminVerb is one admin command. A group with a single command whose verb
// is empty (rekey) takes its flags right after the group name.
type adminVerb struct {
	verb, synopsis, summary string
	run                     func(p *Program, ctx context.Context, args []string) error
}

func (g *adminGroup) verbs() string {
	names := make([]string, len(g.commands))
	for i, c := range g.commands {
		names[i] = c.verb
	}
	return strings.Join(names, "|")
}

// adminGroups is the registration table of the admin commands: dispatch
// and help are both read from it, so a command cannot exist without being
// listed.
var adminGroups = []adminGroup{
	{name: "project", summary: "projects (tenants) and their Connect page settings", commands: []adminVerb{
		{"create", "NAME [--json]", "create a project", (*Program).adminProjectCreate},
		{"list", "[--json]", "list projects", (*Program).adminProjectList},
		{"set", "ID [--redirect-urls URL[,URL…]] [--connect-name …] [--connect-accent #rrggbb] [--connect-logo KEY] [--connect-self-manage] [--log-payloads] [--log-redact NAME[,NAME…]]",
			"change a project's redirect URLs, Connect page and execution log settings", (*Program).adminProjectSet},
	}},
	{name: "key", summary: "API keys of a project", commands: []adminVerb{
		{"create", "--project ID [--name N] [--expires 720h] [--json]", "create an API key (shown once)", (*Program).adminKeyCreate},
		{"list", "--project ID [--json]", "list a project's keys (hints only)", (*Program).adminKeyList},
		{"revoke", "KEY_ID [--json]", "revoke a key; it stops with its next request", (*Program).adminKeyRevoke},
	}},
	{name: "tools", summary: "switch tools off and on for a project", commands: []adminVerb{
		{"disable", "--project ID TOOL_ID…", "disable tools (a TOOL_ID may end in *)",
			func(p *Program, ctx context.Context, args []string) error {
				return p.adminToolsSwitch(ctx, args, false)
			}},
		{"enable", "--project ID TOOL_ID…", "enable tools again",
			func(p *Program, ctx context.Context, args []string) error { return p.adminToolsSwitch(ctx, args, true) }},
		{"list", "--project ID [--disabled] [--json]", "list tools and their state", (*Program).adminToolsList},
	}},
	{name: "authconfig", summary: "auth configs: a connector's auth method with the project's OAuth client", commands: []adminVerb{
		{"create", "--project ID --connector ID --type oauth2 --client-id … --client-secret …|- [--scopes …] [--key …] [--hosts …]",
			"create an auth config (secret \"-\" is read from stdin)",
			func(p *Program, ctx context.Context, args []string) error {
				return p.adminAuthConfigCreate(ctx, args, p.Stdin)
			}},
		{"list", "--project ID [--connector ID] [--json]", "list auth configs", (*Program).adminAuthConfigList},
		{"delete", "--project ID AUTH_CONFIG_ID", "delete an auth config", (*Program).adminAuthConfigDelete},
	}},
	{name: "global", summary: "project-wide (global) accounts and the tools they may serve", commands: []adminVerb{
		{"allow", "CONNECTION_ID --tools 'github_create_issue,slack_*' [--proxy]", "let a global account serve tools",
			func(p *Program, ctx context.Context, args []string) error { return p.adminGlobal(ctx, args, true) }},
		{"revoke", "CONNECTION_ID", "take every tool away from a global account",
			func(p *Program, ctx context.Context, args []string) error { return p.adminGlobal(ctx, args, false) }},
	}},
	{name: "endpoint", summary: "MCP endpoints of a project, by slug", commands: endpointVerbs()},
	{name: "webhook", summary: "webhooks receiving signed trigger.fired deliveries", commands: []adminVerb{
		{"create", "--project ID --url URL [--description …] [--json]", "register a webhook (its secret is shown once)", webhookVerb("create")},
		{"list", "--project ID [--json]", "list webhooks", webhookVerb("list")},
		{"delete", "--project ID WEBHOOK_ID", "delete a webhook", webhookVerb("delete")},
		{"deliveries", "--project ID WEBHOOK_ID [--json]", "a webhook's recent deliveries and what caused them", webhookVerb("deliveries")},
	}},
	{name: "policy", summary: "policy rules (allow, ask, deny) and the project's default decision", commands: []adminVerb{
		{"list", "--project ID [--json]", "list the rules in the order they are tried", policyVerb("list")},
		{"create", "--project ID --rule JSON [--json]", "add a rule (as POST /v1/policies takes it)", policyVerb("create")},
		{"delete", "--project ID RULE_ID", "delete a rule", policyVerb("delete")},
		{"default", "--project ID allow|ask|deny", "what calls no project rule matches get", policyVerb("default")},
	}},
	{name: "quota", summary: "call limits per minute, hour or day, per project, user, connector or tool", commands: []adminVerb{
		{"create", "--project ID --window minute|hour|day --limit N [--user U | --per-user] [--connector C] [--tool T] [--json]",
			"create a quota", quotaVerb("create")},
		{"list", "--project ID [--json]", "list a project's quotas", quotaVerb("list")},
		{"update", "--project ID --window minute|hour|day --limit N QUOTA_ID [--json]", "change a quota's window and limit", quotaVerb("update")},
		{"delete", "--project ID QUOTA_ID", "delete a quota and its counts", quotaVerb("delete")},
	}},
	{name: "redaction", summary: "what is hidden in tool outputs before they reach a model", commands: []adminVerb{
		{"show", "--project ID [--json]", "print a project's redaction rules", redactionVerb("show")},
		{"set", "--project ID [--detectors email,phone,card,iban,secret] [--pattern NAME=REGEXP]… [--rest-execute] [--json]",
			"replace a project's redaction rules", redactionVerb("set")},
		{"clear", "--project ID", "remove the rules: nothing is redacted", redactionVerb("clear")},
	}},
	{name: "asset", summary: "images for the Connect page", commands: []adminVerb{
		{"upload", "--project ID FILE [--json]", "store an image as projects/<project>/<sha256>.<ext>", (*Program).adminAssetUpload},
	}},
	{name: "openapi", summary: "a project's own REST API as a connector, or a built-in connector extended", commands: []adminVerb{
		{"import", "--project ID --id my_api FILE_OR_URL [--base-url …] [--name …] [--category …] | --project ID --extends CONNECTOR FILE_OR_URL [--base-url-check=false]",
			"import or re-import an OpenAPI 3.0/3.1 document; with --extends, add a provider's own description as tools of its built-in connector",
			(*Program).adminOpenAPIImport},
		{"remove", "--project ID (--extends CONNECTOR | --id my_api)", "remove an extension or an imported API", (*Program).adminOpenAPIRemove},
	}},
	{name: "mcp-server", summary: "a project's own MCP servers as connectors", commands: []adminVerb{
		{"add", "--project ID --id my_crm --url https://… [--name …] [--header 'X-Api-Key: …'] [--oauth [--client-id … [--client-secret …|-]]]",
			"add a server and discover its tools; with --oauth, users sign in with the OAuth the server declares", mcpServerVerb("add")},
		{"list", "--project ID [--json]", "list the project's MCP servers", mcpServerVerb("list")},
		{"refresh", "--project ID [--id …]", "discover the tools again now", mcpServerVerb("refresh")},
		{"remove", "--project ID --id …", "remove a server", mcpServerVerb("remove")},
	}},
	{name: "connectors", summary: "a project's own connectors (imported APIs and MCP servers)", commands: []adminVerb{
		{"list", "--project ID [--json]", "list them", connectorsVerb("list")},
		{"remove", "--project ID CONNECTOR_ID", "remove one", connectorsVerb("remove")},
	}},
	{name: "logs", summary: "the execution log: one record per tool call", commands: []adminVerb{
		{"", "--project ID [--user U] [--connector C] [--tool T] [--outcome O] [--since T] [--until T] [--limit 50] [--json]",
			"print a project's tool calls, newest first", (*Program).adminLogs},
	}},
	{name: "operator", summary: "dashboard operators: who signs in, and their role in each project", commands: []adminVerb{
		{"create", "EMAIL [--project ID --role owner|member] [--link]", "create an operator (password on stdin, or a one-time sign-in link)", operatorVerb("create")},
		{"link", "EMAIL", "print a one-time sign-in link (to set a forgotten password)", operatorVerb("link")},
		{"list", "[--json]", "list operators and their projects", operatorVerb("list")},
		{"role", "EMAIL --project ID --role owner|member|none", "set or remove an operator's role in a project", operatorVerb("role")},
		{"remove", "EMAIL", "remove an operator; their sessions end", operatorVerb("remove")},
	}},
	{name: "rekey", summary: "reseal every stored secret under the primary key", commands: []adminVerb{
		{"", "[--batch 200] [--json]", "reseal, then list the key ids no longer needed", (*Program).adminRekey},
	}},
}

func endpointVerbs() []adminVerb {
	run := func(verb string) func(*Program, context.Context, []string) error {
		return func(p *Program, ctx context.Context, args []string) error { return p.adminEndpoint(ctx, verb, args) }
	}
	flags := "[--connectors …] [--actions …] [--mode tools|meta] [--read-only] [--max-data-class …] [--require-user] [--allow-global-accounts]"
	return []adminVerb{
		{"create", "--project ID --slug SLUG " + flags, "create an endpoint", run("create")},
		{"list", "--project ID [--json]", "list endpoints with their scope", run("list")},
		{"update", "--slug SLUG " + flags, "replace an endpoint's settings", run("update")},
		{"delete", "SLUG", "delete an endpoint", run("delete")},
	}
}

func webhookVerb(verb string) func(*Program, context.Context, []string) error {
	return func(p *Program, ctx context.Context, args []string) error { return p.adminWebhook(ctx, verb, args) }
}

func quotaVerb(verb string) func(*Program, context.Context, []string) error {
	return func(p *Program, ctx context.Context, args []string) error { return p.adminQuota(ctx, verb, args) }
}

func redactionVerb(verb string) func(*Program, context.Context, []string) error {
	return func(p *Program, ctx context.Context, args []string) error { return p.adminRedaction(ctx, verb, args) }
}

func mcpServerVerb(verb string) func(*Program, context.Context, []string) error {
	return func(p *Program, ctx context.Context, args []string) error { return p.adminMCPServer(ctx, verb, args) }
}

func connectorsVerb(verb string) func(*Program, context.Context, []string) error {
	return func(p *Program, ctx context.Context, args []string) error { return p.adminConnectors(ctx, verb, args) }
}

func findAdminGroup(name string) *adminGroup {
	for i := range adminGroups {
		if adminGroups[i].name == name {
			return &adminGroups[i]
		}
	}
	return nil
}

func isHelp(arg string) bool {
	return arg == "--help" || arg == "-h" || arg == "help" || arg == "-help"
}

// printAdminHelp lists every command group with a line about it.
func (p *Program) printAdminHelp(w io.Writer) {
	fmt.Fprint(w, "Usage: switchboard admin GROUP COMMAND [flags]\n\nCommand groups:\n")
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, g := range adminGroups {
		verbs := g.verbs()
		if verbs != "" {
			verbs = " " + verbs
		}
		fmt.Fprintf(tw, "  %s%s\t%s\n", g.name, verbs, g.summary)
	}
	tw.Flush()
	fmt.Fprint(w, `
Run 'switchboard admin GROUP --help' for a group's commands, and add --help
to a command for its flags. Admin commands use the database serve uses
(--database-url, SWITCHBOARD_DATABASE_URL) and say which on standard error;
they do not create a new SQLite database unless given --create.
Every admin command takes --json and then prints exactly one JSON document.
`)
}

// printAdminGroupHelp lists a group's commands with their synopsis.
func printAdminGroupHelp(w io.Writer, g *adminGroup) {
	fmt.Fprintf(w, "switchboard admin %s: %s\n\nCommands:\n", g.name, g.summary)
	for _, c := range g.commands {
		name := strings.TrimSpace(g.name + " " + c.verb)
		fmt.Fprintf(w, "  switchboard admin %s %s\n      %s\n", name, c.synopsis, c.summary)
	}
}
