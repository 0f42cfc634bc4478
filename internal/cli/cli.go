// Package cli implements the switchboard subcommands. serve reads the
// configuration and runs the application that internal/app builds; the
// admin commands open only the parts they need.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/netip"
	"strings"
)

// Program is one run of the switchboard binary, with its standard streams
// and environment passed in so tests can run it in process.
type Program struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	Getenv func(string) string
	// OnListen, when set, is told each listener's name ("base", "mcp",
	// "assets") and bound address once serve is listening.
	OnListen func(name, addr string)
	// LookupFunc, when set, resolves host names in place of the system
	// resolver (tests; webhook URLs are resolved when registered).
	LookupFunc func(ctx context.Context, host string) ([]netip.Addr, error)
}

// Exit codes.
const (
	exitOK    = 0
	exitError = 1
	exitUsage = 2
)

// errUsage marks an error caused by the command line; the message says how
// to call the command.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

const usage = `Switchboard: an integration gateway for AI agents.

Usage:
  switchboard serve [flags]                 start the server (applies pending migrations)
  switchboard migrate [--status] [--json]   apply pending migrations, or list them
  switchboard admin project create NAME     create a project
  switchboard admin project list            list projects
  switchboard admin project set ID [--redirect-urls URL[,URL…]] [--connect-name …] [--connect-accent #rrggbb]
      [--connect-logo ASSET_KEY] [--connect-self-manage=true|false] [--log-payloads=true|false] [--log-redact NAME,…]
  switchboard admin asset upload --project ID FILE   (an image, served content-addressed)
  switchboard admin key create --project ID [--name N] [--expires 720h]
  switchboard admin key list --project ID
  switchboard admin key revoke KEY_ID
  switchboard admin tools disable|enable --project ID TOOL_ID…   (TOOL_ID may end in *)
  switchboard admin tools list --project ID [--disabled]
  switchboard admin authconfig create --project ID --connector ID --type oauth2 --client-id … --client-secret …|- [--scopes …] [--key …]
  switchboard admin authconfig list --project ID [--connector ID]
  switchboard admin authconfig delete --project ID AUTH_CONFIG_ID
  switchboard admin global allow CONNECTION_ID --tools 'github_create_issue,slack_*' [--proxy]
  switchboard admin global revoke CONNECTION_ID
  switchboard admin endpoint create --project ID --slug SLUG [--connectors …] [--actions …] [--mode tools|meta]
      [--read-only] [--max-data-class …] [--require-user] [--allow-global-accounts]
  switchboard admin endpoint list --project ID | update --slug SLUG … | delete SLUG
  switchboard admin webhook create --project ID --url URL [--description …] | list --project ID | delete --project ID ID | deliveries --project ID ID
  switchboard admin openapi import --project ID --id my_api FILE_OR_URL [--base-url …] [--name …] [--category …]
  switchboard admin openapi import --project ID --extends github FILE_OR_URL [--base-url-check=false]
  switchboard admin openapi remove --project ID (--extends github | --id my_api)
  switchboard admin mcp-server add --project ID --id my_crm --url https://… [--name …] [--header 'X-Api-Key: …']
      [--oauth [--client-id … [--client-secret …|-]]]   (users sign in with the server's own OAuth)
  switchboard admin mcp-server list|refresh|remove --project ID [--id …]
  switchboard admin connectors list --project ID | remove --project ID CONNECTOR_ID   (a project's own connectors)
  switchboard admin logs --project ID [--user U] [--connector C] [--tool T] [--outcome O] [--since T] [--until T]
      [--limit 50] [--json]   (the execution log, newest first)
  switchboard admin rekey [--batch N]        reseal every stored secret under the primary key
  switchboard catalog export [--format catalog|spec-match]
  switchboard catalog check [--dir catalog] [--only IDS] [--shared ../shared] [--index FILE] [--verbose]
      validate the catalog; hold each tool's request and outputSchema to the provider's official spec
  switchboard health [--url URL] [--timeout 5s]   exit 0 if GET /health answers ok (container health checks)
  switchboard version

Every admin command takes --json and then prints exactly one JSON document.
Run 'switchboard admin --help' for the admin command groups, and
'switchboard serve --help' for the configuration flags and variables.
`

// Run runs one command line and returns the process exit code.
func (p *Program) Run(ctx context.Context, args []string) int {
	if p.Getenv == nil {
		p.Getenv = func(string) string { return "" }
	}
	if p.Stdin == nil {
		p.Stdin = strings.NewReader("")
	}
	if len(args) == 0 {
		fmt.Fprint(p.Stderr, usage)
		return exitUsage
	}
	var err error
	switch args[0] {
	case "serve":
		err = p.serve(ctx, args[1:])
	case "migrate":
		err = p.migrate(ctx, args[1:])
	case "admin":
		err = p.admin(ctx, args[1:])
	case "catalog":
		err = p.catalogCmd(ctx, args[1:])
	case "health":
		err = p.health(ctx, args[1:])
	case "version", "--version":
		fmt.Fprintln(p.Stdout, versionLine())
	case "help", "-h", "--help":
		fmt.Fprint(p.Stdout, usage)
	default:
		err = usagef("unknown command %q; run 'switchboard help'", args[0])
	}
	var ue *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, flag.ErrHelp):
		return exitOK
	case errors.As(err, &ue):
		fmt.Fprintln(p.Stderr, "switchboard:", ue.msg)
		return exitUsage
	default:
		fmt.Fprintln(p.Stderr, "switchboard:", err)
		return exitError
	}
}

// parseArgs parses flags that may stand before, between or after the
// positional arguments, and returns the positional ones.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, err
			}
			return nil, usagef("%v", err)
		}
		args = fs.Args()
		if len(args) == 0 {
			return positional, nil
		}
		positional = append(positional, args[0])
		args = args[1:]
	}
}

// newFlagSet returns a flag set that reports errors rather than exiting.
func (p *Program) newFlagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(p.Stderr)
	return fs
}

// expectArgs checks the number of positional arguments.
func expectArgs(got []string, want int, synopsis string) error {
	if len(got) != want {
		return usagef("usage: switchboard %s", synopsis)
	}
	return nil
}
