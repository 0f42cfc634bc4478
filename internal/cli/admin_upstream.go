package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/switchboard-gw/switchboard/internal/app"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/connect"
	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/upstream"
)

// adminOpenAPIImport imports (or re-imports) an OpenAPI document as a
// project's connector and reports what changed.
func (p *Program) adminOpenAPIImport(ctx context.Context, args []string) error {
	// --base-url here is the imported API's, not the server's public URL.
	a := p.adminFlags("openapi import", "base-url")
	projectID := a.fs.String("project", "", "project id (required)")
	id := a.fs.String("id", "", "connector id, lowercase letters, digits and underscores (required)")
	baseURL := a.fs.String("base-url", "", "API base URL (default: the document's first server)")
	name := a.fs.String("name", "", "display name (default: the document's title)")
	category := a.fs.String("category", "", "catalog category (default developer-tools)")
	description := a.fs.String("description", "", "description (default: the document's)")
	extends := a.fs.String("extends", "", "add the document's operations as tools of this built-in connector (instead of --id)")
	hostCheck := a.fs.Bool("base-url-check", true, "with --extends: refuse a document whose server is not the connector's API host")
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	if *extends != "" {
		if *id != "" || *baseURL != "" || *name != "" || *category != "" || *description != "" || *projectID == "" || len(pos) != 1 {
			return usagef("usage: switchboard admin openapi import --project ID --extends CONNECTOR FILE_OR_URL [--base-url-check=false]")
		}
		return p.openAPIExtend(ctx, a, *projectID, *extends, pos[0], *hostCheck)
	}
	if *projectID == "" || *id == "" || len(pos) != 1 {
		return usagef("usage: switchboard admin openapi import --project ID --id my_api FILE_OR_URL [--base-url …] [--name …] [--category …]")
	}
	scope := app.OutboundGuard(a.cfg).Connector(*id)
	data, err := readDocument(ctx, pos[0], scope)
	if err != nil {
		return err
	}
	st, err := a.openProject(ctx, *projectID)
	if err != nil {
		return err
	}
	defer st.Close()
	imp, err := upstream.ImportIntoProject(ctx, st, *projectID, pos[0], data, upstream.ImportOptions{ID: *id, Name: *name, Description: *description,
		Category: *category, BaseURL: *baseURL,
		// Plain http only to an internal API the operator opened to this
		// connector; the check resolves the host now, and the dialer
		// keeps every call inside the connector's scope later.
		PlainHTTPFunc: func(ctx context.Context, host string) error { return scope.OpenedHost(ctx, host, nil) }})
	if err != nil {
		return fmt.Errorf("%s was not imported: %w", pos[0], err)
	}
	con, rep, changes := imp.Connector, imp.Report, imp.Changes
	if *a.asJSON {
		out := map[string]any{"id": con.ID, "tools": rep.Tools, "skipped": rep.Skipped, "changes": changes}
		if rep.PlainHTTP {
			out["plainHttp"] = true
		}
		return printJSON(p.Stdout, out)
	}
	fmt.Fprintf(p.Stdout, "imported %s: %d tools (%d added, %d changed, %d removed)\n", con.ID, rep.Tools,
		len(changes["added"]), len(changes["changed"]), len(changes["removed"]))
	if rep.PlainHTTP {
		fmt.Fprintf(p.Stdout, "  note: %s is plain http, accepted because its host is in a private network opened to %s by SWITCHBOARD_OUTBOUND_ALLOW; "+
			"credentials travel unencrypted inside that network\n", con.API.BaseURL, con.ID)
	}
	for _, s := range rep.Skipped {
		fmt.Fprintf(p.Stdout, "  skipped %s\n", s)
	}
	return nil
}

// readDocument reads a file, or fetches a URL in the imported connector's
// outbound scope.
func readDocument(ctx context.Context, src string, scope *netguard.Scope) ([]byte, error) {
	if !strings.HasPrefix(src, "https://") && !strings.HasPrefix(src, "http://") {
		return os.ReadFile(src)
	}
	return upstream.FetchDocument(ctx, src, scope)
}

// diffTools compares two connector definitions' tools by id.
func diffTools(oldDef, newDef []byte) map[string][]string { return upstream.DiffTools(oldDef, newDef) }

// adminConnectors lists or removes a project's own connectors.
func (p *Program) adminConnectors(ctx context.Context, verb string, args []string) error {
	a := p.adminFlags("connectors " + verb)
	projectID := a.fs.String("project", "", "project id (required)")
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	if *projectID == "" || (verb == "remove" && len(pos) != 1) || (verb == "list" && len(pos) != 0) {
		return usagef("usage: switchboard admin connectors list --project ID | remove --project ID CONNECTOR_ID")
	}
	st, err := a.openProject(ctx, *projectID)
	if err != nil {
		return err
	}
	defer st.Close()
	if verb == "remove" {
		if err := st.DeleteProjectConnector(ctx, *projectID, pos[0]); errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("the project has no connector %q", pos[0])
		} else if err != nil {
			return err
		}
		if *a.asJSON {
			return printJSON(p.Stdout, map[string]any{"id": pos[0], "removed": true})
		}
		fmt.Fprintf(p.Stdout, "removed %s\n", pos[0])
		return nil
	}
	list, err := st.ListProjectConnectors(ctx, *projectID)
	if err != nil {
		return err
	}
	type row struct {
		ID        string    `json:"id"`
		Origin    string    `json:"origin"`
		Source    string    `json:"source"`
		UpdatedAt time.Time `json:"updatedAt"`
	}
	rows := []row{}
	for _, c := range list {
		rows = append(rows, row{c.ConnectorID, c.Origin, c.Source, c.UpdatedAt})
	}
	return printList(p.Stdout, *a.asJSON, rows, "ID\tORIGIN\tSOURCE\tUPDATED", func(r row) []any {
		return []any{r.ID, r.Origin, r.Source, r.UpdatedAt.Format(time.RFC3339)}
	})
}

// adminMCPServer runs `admin mcp-server add|list|refresh|remove`.
func (p *Program) adminMCPServer(ctx context.Context, verb string, args []string) error {
	a := p.adminFlags("mcp-server " + verb)
	projectID := a.fs.String("project", "", "project id (required)")
	id := a.fs.String("id", "", "connector id, lowercase letters, digits and underscores")
	serverURL := a.fs.String("url", "", "the server's Streamable HTTP URL")
	name := a.fs.String("name", "", "display name")
	description := a.fs.String("description", "", "what the server is for")
	category := a.fs.String("category", "", "catalog category (default developer-tools)")
	dataClass := a.fs.String("data-class", "", "standard, pii or phi for every tool (default pii)")
	var headerFlags multiFlag
	a.fs.Var(&headerFlags, "header", "a static header sent to the server, 'Name: value' (repeatable; stored sealed)")
	useOAuth := a.fs.Bool("oauth", false, "users sign in with the OAuth the server declares (discovered from the server; the client is registered dynamically unless --client-id)")
	clientID := a.fs.String("client-id", "", "with --oauth: a client registered at the server's authorization server, instead of dynamic registration")
	clientSecret := a.fs.String("client-secret", "", `with --client-id: its secret, or "-" to read it from standard input (none for a public client)`)
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	if *projectID == "" {
		return usagef("usage: switchboard admin mcp-server add --project ID --id my_crm --url https://… [--name …] [--header 'X-Api-Key: …'] " +
			"[--oauth [--client-id … [--client-secret …|-]]] | list | refresh --id … | remove --id …")
	}
	if (*clientID != "" || *clientSecret != "") && !*useOAuth || *clientSecret != "" && *clientID == "" || *useOAuth && verb != "add" {
		return usagef("--oauth is for add; --client-id needs --oauth, and --client-secret needs --client-id")
	}
	if verb == "list" {
		return p.adminConnectors(ctx, "list", append([]string{"--project", *projectID}, pos...))
	}
	if *id == "" {
		return usagef("--id is required")
	}
	st, err := a.openProject(ctx, *projectID)
	if err != nil {
		return err
	}
	defer st.Close()
	if verb == "remove" {
		if err := st.DeleteProjectConnector(ctx, *projectID, *id); errors.Is(err, store.ErrNotFound) {
			return fmt.Errorf("the project has no connector %q", *id)
		} else if err != nil {
			return err
		}
		fmt.Fprintf(p.Stdout, "removed MCP server %s\n", *id)
		return nil
	}
	ring, err := loadKeyring(ctx, a.cfg, st, p.stderrLogger())
	if err != nil {
		return err
	}
	headers, err := upstream.ParseHeaders(headerFlags)
	if err != nil {
		return usagef("--%s", err.Error())
	}
	if *useOAuth {
		sealed, err := upstream.SealHeaders(ring, *projectID, *id, headers)
		if err != nil {
			return err
		}
		return p.addOAuthMCPServer(ctx, a, st, ring, upstream.OAuthServer{Keyring: ring, Scope: app.OutboundGuard(a.cfg).MCPServer(*id),
			ProjectID: *projectID, URL: *serverURL, Headers: headers, SealedHeaders: sealed,
			Options:     upstream.MCPOptions{ID: *id, Name: *name, Description: *description, Category: *category, DataClass: *dataClass},
			RedirectURI: strings.TrimRight(a.cfg.BaseURL, "/") + connect.CallbackPath, ClientID: *clientID, ClientSecret: *clientSecret})
	}
	client := app.OutboundGuard(a.cfg).MCPServer(*id).Client()
	imp, err := upstream.AddMCPServer(ctx, st, ring, client, *projectID, upstream.MCPServerRequest{URL: *serverURL, Headers: headers,
		Refresh: verb == "refresh", Options: upstream.MCPOptions{ID: *id, Name: *name, Description: *description, Category: *category, DataClass: *dataClass}})
	if errors.Is(err, upstream.ErrUnauthorized) && verb == "add" {
		return fmt.Errorf("%w; if its users sign in to it with OAuth, add it with --oauth", err)
	}
	if err != nil {
		return err
	}
	con, changes := imp.Connector, imp.Changes
	if *a.asJSON {
		return printJSON(p.Stdout, map[string]any{"id": con.ID, "tools": len(con.Tools), "changes": changes})
	}
	fmt.Fprintf(p.Stdout, "MCP server %s: %d tools (%d added, %d changed, %d removed)\n", con.ID, len(con.Tools),
		len(changes["added"]), len(changes["changed"]), len(changes["removed"]))
	return nil
}

// addOAuthMCPServer adds an MCP server whose users sign in with the OAuth
// it declares, and says what the operator has to know: the client it
// uses, and whether its tools wait for the first user.
func (p *Program) addOAuthMCPServer(ctx context.Context, a *adminCommand, st *store.Store, ring *secret.Keyring, o upstream.OAuthServer) error {
	if o.ClientSecret == "-" {
		line, err := bufio.NewReader(p.Stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read the client secret: %w", err)
		}
		o.ClientSecret = strings.TrimSpace(line)
	}
	if o.URL == "" {
		return usagef("--url is required")
	}
	old, _ := st.GetProjectConnector(ctx, o.ProjectID, o.Options.ID)
	if old.Origin != "" && old.Origin != catalog.OriginMCP {
		return fmt.Errorf("the project's connector %q is an imported API; choose another --id", o.Options.ID)
	}
	o.Store = st
	added, err := upstream.AddOAuthMCP(ctx, o)
	if err != nil {
		return fmt.Errorf("MCP server %s was not added: %w", o.Options.ID, err)
	}
	con := added.Connector
	if *a.asJSON {
		return printJSON(p.Stdout, map[string]any{"id": con.ID, "tools": len(con.Tools), "toolsPending": added.ToolsPending,
			"authConfig": viewAuthConfig(added.AuthConfig), "registered": added.Registered, "resource": con.AuthMethods[0].OAuth2.Resource})
	}
	how := "configured"
	switch {
	case added.Registered:
		how = "registered dynamically"
	case added.Reused:
		how = "kept from before"
	}
	fmt.Fprintf(p.Stdout, "MCP server %s: users sign in at %s (client %s, %s; auth config %s)\n", con.ID,
		con.AuthMethods[0].OAuth2.AuthorizeURL, added.AuthConfig.ClientID, how, added.AuthConfig.Key)
	if added.ToolsPending && len(con.Tools) == 0 {
		fmt.Fprintf(p.Stdout, "  its tools are listed with the first user's token: send a user a connect link for %s\n", con.ID)
	} else {
		fmt.Fprintf(p.Stdout, "  %d tools\n", len(con.Tools))
	}
	return nil
}

// multiFlag collects a repeated string flag.
type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ", ") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }
