package upstream

import (
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"time"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// Refresher re-discovers the tools of every project's MCP servers.
type Refresher struct {
	Store   *store.Store
	Keyring *secret.Keyring
	// Guard gives each server the client of its outbound scope.
	Guard  *netguard.Guard
	Logger *slog.Logger
}

// RefreshAll re-discovers every MCP server and stores a changed tool list
// (which bumps the project's catalog version). It returns how many changed.
func (r *Refresher) RefreshAll(ctx context.Context) (int, error) {
	all, err := r.Store.ListAllMCPConnectors(ctx)
	if err != nil {
		return 0, err
	}
	changed := 0
	for _, pc := range all {
		var stored catalog.Connector
		_ = json.Unmarshal(pc.Definition, &stored)
		stored.Origin = pc.Origin
		if stored.OAuthMCP() {
			// Its tools are listed with a user's token, when a user
			// connects (ToolFetcher); there is none to use here.
			continue
		}
		headers, err := OpenHeaders(r.Keyring, pc.ProjectID, pc.ConnectorID, pc.Headers)
		if err != nil {
			r.Logger.WarnContext(ctx, "cannot open an MCP server's headers", "connector", pc.ConnectorID, "project_id", pc.ProjectID)
			continue
		}
		con, err := DiscoverMCP(ctx, r.Guard.MCPServer(pc.ConnectorID).Client(), pc.Source, headers, OptionsOf(pc.ConnectorID, pc.Definition))
		if err != nil {
			r.Logger.WarnContext(ctx, "MCP server refresh failed; its last tool list stays", "connector", pc.ConnectorID,
				"project_id", pc.ProjectID, "error", Describe(err))
			continue
		}
		def, _ := json.Marshal(con)
		if SameJSON(pc.Definition, def) {
			continue
		}
		pc.Definition = def
		if err := r.Store.PutProjectConnector(ctx, pc); err != nil {
			return changed, err
		}
		changed++
	}
	return changed, nil
}

// Run refreshes every interval until ctx ends.
func (r *Refresher) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if n, err := r.RefreshAll(ctx); err != nil && ctx.Err() == nil {
				r.Logger.WarnContext(ctx, "MCP server refresh", "error", err.Error())
			} else if n > 0 {
				r.Logger.InfoContext(ctx, "MCP servers changed their tools", "servers", n)
			}
		}
	}
}

// OptionsOf returns the options an MCP server was added with, read back
// from its stored definition, so a refresh keeps its name, description,
// category and data classification.
func OptionsOf(id string, definition []byte) MCPOptions {
	var c catalog.Connector
	_ = json.Unmarshal(definition, &c)
	o := MCPOptions{ID: id, Name: c.Name, Description: c.Description, Category: c.Category, DataClass: c.ToolDataClass}
	if len(c.Tools) > 0 && o.DataClass == "" {
		o.DataClass = c.Tools[0].DataClassification
	}
	return o
}

// SameJSON reports whether two JSON documents hold the same value.
func SameJSON(a, b []byte) bool {
	var x, y any
	_ = json.Unmarshal(a, &x)
	_ = json.Unmarshal(b, &y)
	return reflect.DeepEqual(x, y)
}
