package upstream

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"reflect"
	"time"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// Refresher re-discovers the tools of every project's MCP servers.
type Refresher struct {
	Store   *store.Store
	Keyring *secret.Keyring
	Client  *http.Client
	Logger  *slog.Logger
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
		var old catalog.Connector
		if err := json.Unmarshal(pc.Definition, &old); err != nil {
			continue
		}
		headers, err := OpenHeaders(r.Keyring, pc.ProjectID, pc.ConnectorID, pc.Headers)
		if err != nil {
			r.Logger.WarnContext(ctx, "cannot open an MCP server's headers", "connector", pc.ConnectorID, "project_id", pc.ProjectID)
			continue
		}
		class := ""
		if len(old.Tools) > 0 {
			class = old.Tools[0].DataClassification
		}
		con, err := DiscoverMCP(ctx, r.Client, pc.Source, headers, MCPOptions{ID: pc.ConnectorID, Name: old.Name,
			Description: old.Description, Category: old.Category, DataClass: class})
		if err != nil {
			r.Logger.WarnContext(ctx, "MCP server refresh failed; its last tool list stays", "connector", pc.ConnectorID,
				"project_id", pc.ProjectID, "error", err.Error())
			continue
		}
		def, _ := json.Marshal(con)
		var a, b any
		_ = json.Unmarshal(pc.Definition, &a)
		_ = json.Unmarshal(def, &b)
		if reflect.DeepEqual(a, b) {
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
