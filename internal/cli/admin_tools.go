package cli

import (
	"context"
	"errors"
	"fmt"

	builtin "github.com/switchboard-gw/switchboard/catalog"
	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
	"github.com/switchboard-gw/switchboard/internal/upstream"
)

// adminToolsSwitch turns tools on or off in a project: `admin tools
// disable|enable --project ID TOOL_ID…`, where a TOOL_ID may end in * to
// name every tool with that prefix.
func (p *Program) adminToolsSwitch(ctx context.Context, args []string, enabled bool) error {
	verb := "disable"
	if enabled {
		verb = "enable"
	}
	a := p.adminFlags("tools " + verb)
	projectID := a.fs.String("project", "", "id of the project (required)")
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	if *projectID == "" || len(pos) == 0 {
		return usagef("usage: switchboard admin tools %s --project ID TOOL_ID… (a TOOL_ID may end in *)", verb)
	}
	st, tn, err := a.openTenant(ctx, *projectID)
	if err != nil {
		return err
	}
	defer st.Close()
	toolIDs, err := expandToolPatterns(tn.Catalog, pos)
	if err != nil {
		return err
	}
	if err := st.SetToolsEnabled(ctx, *projectID, toolIDs, enabled); err != nil {
		return err
	}
	if *a.asJSON {
		return printJSON(p.Stdout, map[string]any{"projectId": *projectID, "enabled": enabled, "toolIds": toolIDs})
	}
	fmt.Fprintf(p.Stdout, "%sd %d tools in project %s\n", verb, len(toolIDs), *projectID)
	return nil
}

// openTenant opens the database for an admin command on one project and
// loads the project's tenant (projectTenant); the caller closes the store.
func (a *adminCommand) openTenant(ctx context.Context, projectID string) (*store.Store, tenant.Tenant, error) {
	st, err := a.openProject(ctx, projectID)
	if err != nil {
		return nil, tenant.Tenant{}, err
	}
	tn, err := projectTenant(ctx, st, projectID)
	if err != nil {
		st.Close()
		return nil, tenant.Tenant{}, err
	}
	return st, tn, nil
}

// projectTenant is the project's tenant, loaded from the database as every
// caller without an API key loads it (upstream.Catalogs.Load): its whole
// catalog (the built-ins plus its own connectors: imported OpenAPI
// documents, MCP servers, whose tools an admin switches and permits like
// built-in ones) and its versions.
func projectTenant(ctx context.Context, st *store.Store, projectID string) (tenant.Tenant, error) {
	builtins, err := catalog.Load(builtin.FS)
	if err != nil {
		return tenant.Tenant{}, err
	}
	tn, err := upstream.NewCatalogs(builtins, st).Load(ctx, projectID)
	if err != nil {
		return tenant.Tenant{}, fmt.Errorf("catalog of project %s: %w", projectID, err)
	}
	return tn, nil
}

// expandToolPatterns resolves tool ids and `prefix*` patterns against the
// catalog; a name that matches nothing is an error.
func expandToolPatterns(cat *catalog.Catalog, patterns []string) ([]string, error) {
	return account.ExpandToolPatterns(cat, patterns)
}

func requireProject(ctx context.Context, st *store.Store, id string) error {
	_, err := st.GetProject(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return fmt.Errorf("project %s not found; 'switchboard admin project list' shows the ids", id)
	}
	return err
}

// adminToolsList prints every tool of a project (built-in and its own
// connectors') with whether it is on.
func (p *Program) adminToolsList(ctx context.Context, args []string) error {
	a := p.adminFlags("tools list")
	projectID := a.fs.String("project", "", "id of the project (required)")
	disabledOnly := a.fs.Bool("disabled", false, "list only the tools turned off")
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	if *projectID == "" || len(pos) > 0 {
		return usagef("usage: switchboard admin tools list --project ID [--disabled] [--json]")
	}
	st, tn, err := a.openTenant(ctx, *projectID)
	if err != nil {
		return err
	}
	defer st.Close()
	cat := tn.Catalog
	disabled, err := st.DisabledTools(ctx, *projectID, tn.ToolsVersion)
	if err != nil {
		return err
	}
	type row struct {
		ID          string `json:"id"`
		ConnectorID string `json:"connectorId"`
		Enabled     bool   `json:"enabled"`
	}
	rows := []row{}
	for _, t := range cat.Tools() {
		if *disabledOnly && !disabled[t.ID] {
			continue
		}
		rows = append(rows, row{ID: t.ID, ConnectorID: t.Connector().ID, Enabled: !disabled[t.ID]})
	}
	return printList(p.Stdout, *a.asJSON, rows, "TOOL\tCONNECTOR\tSTATE", func(r row) []any {
		state := "enabled"
		if !r.Enabled {
			state = "disabled"
		}
		return []any{r.ID, r.ConnectorID, state}
	})
}
