package upstream

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
)

func noop(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	return &mcp.CallToolResult{}, nil
}

// TestRefreshAll_PicksUpChangedTools adds a tool to an upstream server and
// checks that a refresh stores it once, bumps the catalog version, and that
// a server that stops answering keeps its last tool list.
func TestRefreshAll_PicksUpChangedTools(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "listNotes", Description: "Lists notes.",
		InputSchema: json.RawMessage(`{"type":"object"}`)}, noop)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	var down atomic.Bool
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if down.Load() {
			w.WriteHeader(http.StatusBadGateway)
			return
		}
		if r.Header.Get("X-Key") != "k1" {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	}))
	defer ts.Close()

	st := storetest.OpenSQLite(t, nil)
	ring, err := secret.NewKeyring(secret.Key{ID: "k", Material: make([]byte, secret.KeySize)})
	if err != nil {
		t.Fatal(err)
	}
	p, err := st.CreateProject(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	guard := netguard.New(netguard.Options{AllowLoopback: true, Timeout: 5 * time.Second})
	client := guard.Client()
	headers := map[string]string{"X-Key": "k1"}
	con, err := DiscoverMCP(ctx, client, ts.URL, headers, MCPOptions{ID: "notes", Name: "Notes"})
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := SealHeaders(ring, p.ID, "notes", headers)
	if err != nil {
		t.Fatal(err)
	}
	def, _ := json.Marshal(con)
	pc := storeConnector(p.ID, ts.URL, def, sealed)
	if err := st.PutProjectConnector(ctx, pc); err != nil {
		t.Fatal(err)
	}
	r := &Refresher{Store: st, Keyring: ring, Guard: guard, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))}

	if n, err := r.RefreshAll(ctx); err != nil || n != 0 {
		t.Fatalf("unchanged server: RefreshAll = %d, %v; want 0, nil", n, err)
	}
	before, _ := st.ProjectVersions(ctx, p.ID)

	srv.AddTool(&mcp.Tool{Name: "addNote", Description: "Adds a note.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"text":{"type":"string"}}}`)}, noop)
	if n, err := r.RefreshAll(ctx); err != nil || n != 1 {
		t.Fatalf("server with a new tool: RefreshAll = %d, %v; want 1, nil", n, err)
	}
	after, _ := st.ProjectVersions(ctx, p.ID)
	if after.ToolsVersion <= before.ToolsVersion {
		t.Fatalf("catalog version %d -> %d; a changed tool list must bump it", before.ToolsVersion, after.ToolsVersion)
	}
	if got := storedTools(t, st.GetProjectConnector, p.ID); len(got) != 2 {
		t.Fatalf("stored tools = %v, want listNotes and addNote", got)
	}
	if n, err := r.RefreshAll(ctx); err != nil || n != 0 {
		t.Fatalf("second refresh: RefreshAll = %d, %v; want 0, nil", n, err)
	}

	down.Store(true)
	if n, err := r.RefreshAll(ctx); err != nil || n != 0 {
		t.Fatalf("unreachable server: RefreshAll = %d, %v; want 0, nil", n, err)
	}
	if got := storedTools(t, st.GetProjectConnector, p.ID); len(got) != 2 {
		t.Fatalf("after a failed refresh stored tools = %v; the last list must stay", got)
	}
}

func storeConnector(projectID, url string, def, sealed []byte) store.ProjectConnector {
	return store.ProjectConnector{ProjectID: projectID, ConnectorID: "notes", Origin: "mcp", Source: url,
		Definition: def, Headers: sealed}
}

func storedTools(t *testing.T, get func(context.Context, string, string) (store.ProjectConnector, error), projectID string) []string {
	t.Helper()
	pc, err := get(context.Background(), projectID, "notes")
	if err != nil {
		t.Fatal(err)
	}
	var c catalog.Connector
	if err := json.Unmarshal(pc.Definition, &c); err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range c.Tools {
		names = append(names, tool.Name)
	}
	return names
}
