package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	builtin "github.com/switchboard-gw/switchboard/catalog"
	"github.com/switchboard-gw/switchboard/internal/app"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/upstream"
)

// openAPIExtend stores, for one project, the operations of the provider's
// own OpenAPI description as extra tools of the built-in connector
// connectorID (`admin openapi import --extends`), and reports what changed.
func (p *Program) openAPIExtend(ctx context.Context, a *adminCommand, projectID, connectorID, src string, hostCheck bool) error {
	builtins, err := catalog.Load(builtin.FS)
	if err != nil {
		return err
	}
	base, ok := builtins.Connector(connectorID)
	if !ok {
		return fmt.Errorf("there is no built-in connector %q to extend (a project's own connector is re-imported with --id)", connectorID)
	}
	data, err := readDocument(ctx, src, app.OutboundGuard(a.cfg).Connector(connectorID))
	if err != nil {
		return err
	}
	ext, rep, err := upstream.ExtendOpenAPI(ctx, data, base, upstream.ExtendOptions{SkipHostCheck: !hostCheck})
	if err != nil {
		return fmt.Errorf("%s was not imported: %w", src, err)
	}
	st, err := a.openProject(ctx, projectID)
	if err != nil {
		return err
	}
	defer st.Close()
	old, err := st.GetProjectConnector(ctx, projectID, connectorID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	if err == nil && old.Origin != catalog.OriginExtension {
		return fmt.Errorf("the project already has a connector of its own with the id %q; remove it first", connectorID)
	}
	def, err := json.Marshal(ext)
	if err != nil {
		return err
	}
	changes := diffTools(old.Definition, def)
	if err := st.PutProjectConnector(ctx, store.ProjectConnector{ProjectID: projectID, ConnectorID: connectorID,
		Origin: catalog.OriginExtension, Source: src, Definition: def}); err != nil {
		return err
	}
	if *a.asJSON {
		return printJSON(p.Stdout, map[string]any{"extends": connectorID, "tools": rep.Tools, "skipped": rep.Skipped, "changes": changes})
	}
	fmt.Fprintf(p.Stdout, "extended %s: %d tools from the description (%d added, %d changed, %d removed); curated tools keep their ids and routes\n",
		connectorID, rep.Tools, len(changes["added"]), len(changes["changed"]), len(changes["removed"]))
	for _, s := range rep.Skipped {
		fmt.Fprintf(p.Stdout, "  skipped %s\n", s)
	}
	return nil
}

// adminOpenAPIRemove removes a project's extension of a built-in
// connector (`admin openapi remove --extends`) or its imported API (--id).
func (p *Program) adminOpenAPIRemove(ctx context.Context, args []string) error {
	a := p.adminFlags("openapi remove")
	projectID := a.fs.String("project", "", "project id (required)")
	id := a.fs.String("id", "", "the imported connector to remove")
	extends := a.fs.String("extends", "", "the built-in connector whose extension to remove")
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	if *projectID == "" || len(pos) != 0 || (*id == "") == (*extends == "") {
		return usagef("usage: switchboard admin openapi remove --project ID (--extends CONNECTOR | --id my_api)")
	}
	connectorID, origin := *id, catalog.OriginOpenAPI
	if *extends != "" {
		connectorID, origin = *extends, catalog.OriginExtension
	}
	st, err := a.openProject(ctx, *projectID)
	if err != nil {
		return err
	}
	defer st.Close()
	old, err := st.GetProjectConnector(ctx, *projectID, connectorID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && old.Origin != origin) {
		if origin == catalog.OriginExtension {
			return fmt.Errorf("the project has no extension of %q", connectorID)
		}
		return fmt.Errorf("the project has no imported API %q", connectorID)
	} else if err != nil {
		return err
	}
	if err := st.DeleteProjectConnector(ctx, *projectID, connectorID); err != nil {
		return err
	}
	if *a.asJSON {
		return printJSON(p.Stdout, map[string]any{"id": connectorID, "origin": origin, "removed": true})
	}
	fmt.Fprintf(p.Stdout, "removed the project's %s %s\n", map[string]string{catalog.OriginOpenAPI: "imported API",
		catalog.OriginExtension: "extension of"}[origin], connectorID)
	return nil
}
