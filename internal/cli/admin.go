package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/connect"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// admin dispatches `switchboard admin <group> <verb>` through adminGroups.
func (p *Program) admin(ctx context.Context, args []string) error {
	if len(args) == 0 || isHelp(args[0]) {
		if len(args) == 0 {
			p.printAdminHelp(p.Stderr)
			return usagef("usage: switchboard admin GROUP COMMAND [flags]")
		}
		p.printAdminHelp(p.Stdout)
		return nil
	}
	g := findAdminGroup(args[0])
	if g == nil {
		return usagef("unknown admin command group %q; run 'switchboard admin --help'", args[0])
	}
	if len(g.commands) == 1 && g.commands[0].verb == "" {
		return g.commands[0].run(p, ctx, args[1:])
	}
	if len(args) < 2 || isHelp(args[1]) {
		if len(args) < 2 {
			printAdminGroupHelp(p.Stderr, g)
			return usagef("usage: switchboard admin %s %s …", g.name, g.verbs())
		}
		printAdminGroupHelp(p.Stdout, g)
		return nil
	}
	for _, c := range g.commands {
		if c.verb == args[1] {
			return c.run(p, ctx, args[2:])
		}
	}
	return usagef("unknown admin command %q; run 'switchboard admin %s --help'", args[0]+" "+args[1], g.name)
}

// adminCommand is the shared part of every admin command: configuration
// flags, --json, and an open, migrated store.
type adminCommand struct {
	*configured
	asJSON *bool
	create *bool
	stderr io.Writer
}

func (p *Program) adminFlags(name string, skip ...string) *adminCommand {
	c := p.configFlags("admin "+name, skip...)
	return &adminCommand{configured: c, stderr: p.Stderr,
		asJSON: c.fs.Bool("json", false, "print one JSON document"),
		create: c.fs.Bool("create", false, "create the SQLite database if it does not exist (otherwise the command refuses)")}
}

// open opens the configured database, after saying on standard error which
// one it is; a SQLite file that does not exist is refused unless --create
// was given (checkDatabaseExists).
func (a *adminCommand) open(ctx context.Context) (*store.Store, error) {
	fmt.Fprintln(a.stderr, "switchboard: using database", databaseLabel(a.cfg.DatabaseURL))
	if err := checkDatabaseExists(a.cfg.DatabaseURL, *a.create); err != nil {
		return nil, err
	}
	return openStore(ctx, a.cfg, discardLogger())
}

// openProject opens the store and checks that the project exists.
func (a *adminCommand) openProject(ctx context.Context, projectID string) (*store.Store, error) {
	st, err := a.open(ctx)
	if err != nil {
		return nil, err
	}
	if err := requireProject(ctx, st, projectID); err != nil {
		st.Close()
		return nil, err
	}
	return st, nil
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// printList prints rows as one JSON document when asJSON, else as a table
// under header (tab-separated column names), one line of cells per row.
func printList[T any](w io.Writer, asJSON bool, rows []T, header string, cells func(T) []any) error {
	if asJSON {
		return printJSON(w, rows)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		for i, c := range cells(r) {
			if i > 0 {
				fmt.Fprint(tw, "\t")
			}
			fmt.Fprint(tw, cellText(c))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// cellText is a table cell as text: JSON (json.RawMessage or []byte
// holding JSON) compact on one line, other bytes as text, lists joined
// by commas, never the numbers of a byte array as fmt prints them.
func cellText(c any) string {
	switch v := c.(type) {
	case json.RawMessage:
		return compactJSON(v)
	case []byte:
		return compactJSON(v)
	case []string:
		return strings.Join(v, ",")
	case fmt.Stringer:
		return v.String()
	}
	return fmt.Sprint(c)
}

func compactJSON(b []byte) string {
	var buf bytes.Buffer
	if json.Compact(&buf, b) == nil {
		return buf.String()
	}
	return strings.ToValidUTF8(string(b), "\ufffd")
}

func (p *Program) adminProjectCreate(ctx context.Context, args []string) error {
	a := p.adminFlags("project create")
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	if err := expectArgs(pos, 1, "admin project create NAME [--json]"); err != nil {
		return err
	}
	if pos[0] == "" || len(pos[0]) > 128 {
		return usagef("a project name is 1 to 128 characters")
	}
	st, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	proj, err := st.CreateProject(ctx, pos[0])
	if err != nil {
		return err
	}
	if *a.asJSON {
		return printJSON(p.Stdout, map[string]string{"id": proj.ID, "name": proj.Name})
	}
	fmt.Fprintf(p.Stdout, "created project %q with id %s\n", proj.Name, proj.ID)
	return nil
}

func (p *Program) adminProjectList(ctx context.Context, args []string) error {
	a := p.adminFlags("project list")
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	if err := expectArgs(pos, 0, "admin project list [--json]"); err != nil {
		return err
	}
	st, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	projects, err := st.ListProjects(ctx)
	if err != nil {
		return err
	}
	return printList(p.Stdout, *a.asJSON, projects, "ID\tNAME\tCREATED", func(pr store.Project) []any {
		return []any{pr.ID, pr.Name, pr.CreatedAt.Format(time.RFC3339)}
	})
}

func (p *Program) adminKeyCreate(ctx context.Context, args []string) error {
	a := p.adminFlags("key create")
	projectID := a.fs.String("project", "", "id of the project the key belongs to (required)")
	name := a.fs.String("name", "", "a name for the key, to recognise it in listings")
	expires := a.fs.Duration("expires", 0, "lifetime of the key, such as 720h; none by default")
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	if err := expectArgs(pos, 0, "admin key create --project ID [--name N] [--expires 720h] [--json]"); err != nil {
		return err
	}
	if *projectID == "" {
		return usagef("--project is required: the id of the project the key belongs to")
	}
	if err := apikey.CheckNew(*name, *expires); err != nil {
		return usagef("%s", err.Error())
	}
	st, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	key, hash, hint, err := apikey.Generate()
	if err != nil {
		return err
	}
	nk := store.NewAPIKey{ProjectID: *projectID, Name: *name, Hash: hash, Hint: hint}
	if *expires > 0 {
		at := time.Now().Add(*expires)
		nk.ExpiresAt = &at
	}
	k, err := st.CreateAPIKey(ctx, nk)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("project %s not found; 'switchboard admin project list' shows the ids", *projectID)
	}
	if err != nil {
		return err
	}
	if *a.asJSON {
		return printJSON(p.Stdout, struct {
			ID        string     `json:"id"`
			ProjectID string     `json:"projectId"`
			Key       string     `json:"key"`
			ExpiresAt *time.Time `json:"expiresAt"`
		}{k.ID, k.ProjectID, key, k.ExpiresAt})
	}
	fmt.Fprintf(p.Stdout, "created API key %s for project %s:\n\n    %s\n\nThis key will not be shown again: store it now.\n", k.ID, k.ProjectID, key)
	return nil
}

func (p *Program) adminKeyList(ctx context.Context, args []string) error {
	a := p.adminFlags("key list")
	projectID := a.fs.String("project", "", "id of the project (required)")
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	if err := expectArgs(pos, 0, "admin key list --project ID [--json]"); err != nil {
		return err
	}
	if *projectID == "" {
		return usagef("--project is required")
	}
	st, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	if _, err := st.GetProject(ctx, *projectID); errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("project %s not found; 'switchboard admin project list' shows the ids", *projectID)
	} else if err != nil {
		return err
	}
	keys, err := st.ListAPIKeys(ctx, *projectID)
	if err != nil {
		return err
	}
	now := time.Now()
	return printList(p.Stdout, *a.asJSON, keys, "ID\tNAME\tKEY\tCREATED\tEXPIRES\tSTATE", func(k store.APIKey) []any {
		state := "active"
		switch {
		case k.RevokedAt != nil:
			state = "revoked " + k.RevokedAt.Format(time.RFC3339)
		case k.ExpiresAt != nil && !k.ExpiresAt.After(now):
			state = "expired"
		}
		return []any{k.ID, k.Name, k.Hint, k.CreatedAt.Format(time.RFC3339), formatOptionalTime(k.ExpiresAt), state}
	})
}

func formatOptionalTime(t *time.Time) string {
	if t == nil {
		return "never"
	}
	return t.Format(time.RFC3339)
}

func (p *Program) adminKeyRevoke(ctx context.Context, args []string) error {
	a := p.adminFlags("key revoke")
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	if err := expectArgs(pos, 1, "admin key revoke KEY_ID [--json]"); err != nil {
		return err
	}
	st, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	k, err := st.RevokeAPIKey(ctx, pos[0])
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("API key %s not found; 'switchboard admin key list --project ID' shows the ids", pos[0])
	}
	if err != nil {
		return err
	}
	if *a.asJSON {
		return printJSON(p.Stdout, map[string]any{"id": k.ID, "projectId": k.ProjectID, "revokedAt": k.RevokedAt})
	}
	fmt.Fprintf(p.Stdout, "revoked API key %s; it stops working with its next request\n", k.ID)
	return nil
}

// adminProjectSet changes a project's settings: `admin project set ID
// --redirect-urls https://app.example/done,https://…` (an empty value
// clears the list).
func (p *Program) adminProjectSet(ctx context.Context, args []string) error {
	a := p.adminFlags("project set")
	redirects := a.fs.String("redirect-urls", "", "comma-separated URLs connect links may send users back to (replaces the list)")
	connectName := a.fs.String("connect-name", "", "name shown on the hosted Connect page")
	connectAccent := a.fs.String("connect-accent", "", "accent colour of the Connect page, as #rrggbb")
	connectLogo := a.fs.String("connect-logo", "", "asset key of the Connect page logo (from 'admin asset upload')")
	selfManage := a.fs.Bool("connect-self-manage", false, "let users rename and remove their accounts on the Connect page")
	logPayloads := a.fs.Bool("log-payloads", false, "also store tool inputs and outputs in the execution log, redacted and capped (docs/execution-log.md)")
	logRedact := a.fs.String("log-redact", "", "comma-separated field names the execution log redacts beside the built-in ones (replaces the list)")
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("usage: switchboard admin project set PROJECT_ID [--redirect-urls URL[,URL…]] [--connect-name …] [--connect-accent #rrggbb] [--connect-logo KEY] [--connect-self-manage=true|false] [--log-payloads=true|false] [--log-redact NAME[,NAME…]] [--json]")
	}
	set := map[string]bool{}
	a.fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if len(set) == 0 || (len(set) == 1 && set["json"]) {
		return usagef("nothing to set: give --redirect-urls, a --connect-… or a --log-… setting")
	}
	if set["connect-accent"] {
		if err := connect.CheckAccent(*connectAccent); err != nil {
			return usagef("--connect-%s", err.Error())
		}
	}
	urls, err := connect.ParseRedirectURLs(strings.Split(*redirects, ","))
	if err != nil {
		return usagef("%s", err.Error())
	}
	st, err := a.openProject(ctx, pos[0])
	if err != nil {
		return err
	}
	defer st.Close()
	if set["redirect-urls"] {
		if err := st.SetRedirectURLs(ctx, pos[0], urls); err != nil {
			return err
		}
	}
	cs, err := st.GetConnectSettings(ctx, pos[0])
	if err != nil {
		return err
	}
	if set["connect-name"] {
		cs.Name = *connectName
	}
	if set["connect-accent"] {
		cs.Accent = *connectAccent
	}
	if set["connect-logo"] {
		if _, err := st.GetAsset(ctx, *connectLogo); *connectLogo != "" && err != nil {
			return fmt.Errorf("no asset %q; upload one with 'switchboard admin asset upload'", *connectLogo)
		}
		cs.LogoKey = *connectLogo
	}
	if set["connect-self-manage"] {
		cs.SelfManage = *selfManage
	}
	if err := st.SetConnectSettings(ctx, pos[0], cs); err != nil {
		return err
	}
	ls, err := st.GetLogSettings(ctx, pos[0])
	if err != nil {
		return err
	}
	if set["log-payloads"] || set["log-redact"] {
		if set["log-payloads"] {
			ls.Payloads = *logPayloads
		}
		if set["log-redact"] {
			ls.Redact = nil
			for _, n := range strings.Split(*logRedact, ",") {
				if n = strings.TrimSpace(n); n != "" {
					ls.Redact = append(ls.Redact, n)
				}
			}
		}
		if err := st.SetLogSettings(ctx, pos[0], ls); err != nil {
			return err
		}
	}
	if ls.Redact == nil {
		ls.Redact = []string{}
	}
	allowed, err := st.RedirectURLs(ctx, pos[0])
	if err != nil {
		return err
	}
	if allowed == nil {
		allowed = []string{}
	}
	if *a.asJSON {
		return printJSON(p.Stdout, map[string]any{"id": pos[0], "redirectUrls": allowed, "connect": map[string]any{
			"name": cs.Name, "accent": cs.Accent, "logo": cs.LogoKey, "selfManage": cs.SelfManage},
			"log": map[string]any{"payloads": ls.Payloads, "redact": ls.Redact}})
	}
	fmt.Fprintf(p.Stdout, "project %s: %d redirect URLs; Connect page name %q, accent %q, self-management %v; log payloads %v\n",
		pos[0], len(allowed), cs.Name, cs.Accent, cs.SelfManage, ls.Payloads)
	return nil
}
