package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// authConfigView is an auth config as the admin commands print it; the
// client secret is never printed.
type authConfigView struct {
	ID           string    `json:"id"`
	Key          string    `json:"key"`
	ProjectID    string    `json:"projectId"`
	ConnectorID  string    `json:"connectorId"`
	AuthMethodID string    `json:"authMethodId"`
	Type         string    `json:"type"`
	ClientID     string    `json:"clientId,omitempty"`
	HasSecret    bool      `json:"hasClientSecret"`
	Scopes       []string  `json:"scopes"`
	Hosts        []string  `json:"hosts,omitempty"`
	Implicit     bool      `json:"implicit"`
	CreatedAt    time.Time `json:"createdAt"`
}

func viewAuthConfig(a store.AuthConfig) authConfigView {
	return authConfigView{ID: a.ID, Key: a.Key, ProjectID: a.ProjectID, ConnectorID: a.ConnectorID, AuthMethodID: a.AuthMethodID,
		Type: a.AuthType, ClientID: a.ClientID, HasSecret: len(a.ClientSecret) > 0, Scopes: a.Scopes, Hosts: a.Hosts, Implicit: a.Implicit,
		CreatedAt: a.CreatedAt}
}

// adminAuthConfigCreate stores an OAuth (or other) client for a connector,
// built in or the project's own (an imported OpenAPI connector):
// `admin authconfig create --project ID --connector github --type oauth2
// --client-id … --client-secret … [--scopes …] [--key …] [--hosts …]`. A
// client secret of "-" is read from standard input, so it stays out of
// shell history. --hosts names the hosts the client may be used with when
// the connector's OAuth URLs take a user-typed host (a self-managed
// GitLab); they replace the definition's allowedHosts.
func (p *Program) adminAuthConfigCreate(ctx context.Context, args []string, stdin io.Reader) error {
	a := p.adminFlags("authconfig create")
	projectID := a.fs.String("project", "", "project id (required)")
	connectorID := a.fs.String("connector", "", "connector id (required)")
	typ := a.fs.String("type", "oauth2", "auth method type: oauth2, oauth2_client_credentials, api_key, ...")
	methodID := a.fs.String("method", "", "auth method id, when the connector has several of the type")
	clientID := a.fs.String("client-id", "", "OAuth client id")
	clientSecret := a.fs.String("client-secret", "", `OAuth client secret, or "-" to read it from standard input`)
	scopes := a.fs.String("scopes", "", "scopes to request, space- or comma-separated (default: those the project's switched-on tools need, plus the method's base scopes)")
	key := a.fs.String("key", "", "key that names the config in this project (default <connector>_<method>)")
	hostList := a.fs.String("hosts", "", "hosts the OAuth client may be used with when the connector's OAuth URLs take a user-typed host "+
		"(gitlab.example.com, *.example.com, host:port), comma-separated; they replace the connector's allowed hosts")
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	if *projectID == "" || *connectorID == "" || len(pos) > 0 {
		return usagef("usage: switchboard admin authconfig create --project ID --connector ID --type oauth2 --client-id … --client-secret …|- [--scopes …] [--key …] [--hosts …]")
	}
	hosts := strings.Fields(strings.ReplaceAll(*hostList, ",", " "))
	for _, h := range hosts {
		if !catalog.ValidHostPattern(h) {
			return usagef("--hosts: %q is not a host name, host:port or *.domain", h)
		}
	}
	st, err := a.openProject(ctx, *projectID)
	if err != nil {
		return err
	}
	defer st.Close()
	// The project's catalog, so its own connectors (imported OpenAPI
	// documents with OAuth security schemes) can have a client too.
	tn, err := projectTenant(ctx, st, *projectID)
	if err != nil {
		return err
	}
	if _, ok := tn.Catalog.Connector(*connectorID); !ok {
		return fmt.Errorf("project %s has no connector %q; 'switchboard admin connectors list --project %s' lists its own and 'switchboard catalog export' the built-in ones",
			*projectID, *connectorID, *projectID)
	}
	if *clientSecret == "-" {
		line, err := bufio.NewReader(stdin).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("read the client secret: %w", err)
		}
		*clientSecret = strings.TrimSpace(line)
	}
	// Without --scopes the config stores none: each sign-in then asks for
	// what the project's switched-on tools need (account.RequestedScopes),
	// so a tool switch changes the next sign-in's request.
	scopeList := strings.Fields(strings.ReplaceAll(*scopes, ",", " "))
	ring, err := loadKeyring(ctx, a.cfg, st, p.stderrLogger())
	if err != nil {
		return err
	}
	// The rules are the account package's, shared with the dashboard.
	ac, err := account.NewService(st, ring).CreateAuthConfig(ctx, tn, account.AuthConfigRequest{ConnectorID: *connectorID, Type: *typ,
		MethodID: *methodID, ClientID: *clientID, ClientSecret: *clientSecret, Scopes: scopeList, Key: *key, Hosts: hosts})
	if e, ok := apierr.As(err); ok && e.Code == apierr.ValidationError {
		return usagef("%s", e.Message)
	}
	if e, ok := apierr.As(err); ok {
		return errors.New(e.Message)
	}
	if err != nil {
		return err
	}
	if *a.asJSON {
		return printJSON(p.Stdout, viewAuthConfig(ac))
	}
	fmt.Fprintf(p.Stdout, "created auth config %s (%s) for %s\n", ac.Key, ac.ID, ac.ConnectorID)
	return nil
}

func (p *Program) adminAuthConfigList(ctx context.Context, args []string) error {
	a := p.adminFlags("authconfig list")
	projectID := a.fs.String("project", "", "project id (required)")
	connectorID := a.fs.String("connector", "", "only this connector's configs")
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	if *projectID == "" || len(pos) > 0 {
		return usagef("usage: switchboard admin authconfig list --project ID [--connector ID] [--json]")
	}
	st, err := a.openProject(ctx, *projectID)
	if err != nil {
		return err
	}
	defer st.Close()
	configs, err := st.ListAuthConfigs(ctx, *projectID, *connectorID)
	if err != nil {
		return err
	}
	views := make([]authConfigView, len(configs))
	for i, c := range configs {
		views[i] = viewAuthConfig(c)
	}
	return printList(p.Stdout, *a.asJSON, views, "ID\tKEY\tCONNECTOR\tTYPE\tCLIENT ID\tIMPLICIT", func(v authConfigView) []any {
		return []any{v.ID, v.Key, v.ConnectorID, v.Type, v.ClientID, v.Implicit}
	})
}

func (p *Program) adminAuthConfigDelete(ctx context.Context, args []string) error {
	a := p.adminFlags("authconfig delete")
	projectID := a.fs.String("project", "", "project id (required)")
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	if *projectID == "" || len(pos) != 1 {
		return usagef("usage: switchboard admin authconfig delete --project ID AUTH_CONFIG_ID")
	}
	st, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	switch err := st.DeleteAuthConfig(ctx, *projectID, pos[0]); {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("no auth config %s in project %s", pos[0], *projectID)
	case errors.Is(err, store.ErrConflict):
		return fmt.Errorf("auth config %s is used by connections; delete them first", pos[0])
	case err != nil:
		return err
	}
	if *a.asJSON {
		return printJSON(p.Stdout, map[string]any{"id": pos[0], "deleted": true})
	}
	fmt.Fprintf(p.Stdout, "deleted auth config %s\n", pos[0])
	return nil
}

// adminGlobal allows or revokes what a global account may run:
// `admin global allow CONNECTION_ID --tools 'github_create_issue,slack_*' [--proxy]`
// and `admin global revoke CONNECTION_ID`.
func (p *Program) adminGlobal(ctx context.Context, args []string, allow bool) error {
	verb := "revoke"
	if allow {
		verb = "allow"
	}
	a := p.adminFlags("global " + verb)
	tools := a.fs.String("tools", "", "comma-separated tool ids or prefix* patterns the account may run")
	proxy := a.fs.Bool("proxy", false, "also allow the raw proxy")
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || (allow && *tools == "" && !*proxy) {
		return usagef("usage: switchboard admin global allow CONNECTION_ID --tools 'a,b_*' [--proxy], or admin global revoke CONNECTION_ID")
	}
	st, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	c, err := st.ConnectionByID(ctx, pos[0])
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("no connection %s", pos[0])
	}
	if err != nil {
		return err
	}
	if !c.Global {
		return account.CheckGlobalAllowance(c, nil, nil)
	}
	if !allow {
		if err := st.DeleteGlobalPermission(ctx, c.ID); err != nil {
			return err
		}
		if *a.asJSON {
			return printJSON(p.Stdout, map[string]any{"connectionId": c.ID, "tools": []string{}, "proxy": false})
		}
		fmt.Fprintf(p.Stdout, "global account %s may run nothing now\n", c.ID)
		return nil
	}
	list := account.SplitToolPatterns(*tools)
	if len(list) > 0 {
		// The account's project's catalog: a global account of the
		// project's own connector runs that connector's tools.
		tn, err := projectTenant(ctx, st, c.ProjectID)
		if err != nil {
			return err
		}
		if err := account.CheckGlobalAllowance(c, tn.Catalog, list); err != nil {
			return err
		}
	}
	if err := st.SetGlobalPermission(ctx, c.ID, store.GlobalPermission{Tools: list, Proxy: *proxy}); err != nil {
		return err
	}
	if *a.asJSON {
		return printJSON(p.Stdout, map[string]any{"connectionId": c.ID, "tools": list, "proxy": *proxy})
	}
	fmt.Fprintf(p.Stdout, "global account %s may run %s (proxy: %v)\n", c.ID, strings.Join(list, ", "), *proxy)
	return nil
}
