package upstream

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// MCPServerRequest adds (or, with Refresh, discovers again) a project's
// MCP server: its Streamable HTTP URL and static headers (stored sealed);
// a refresh reuses the stored URL and headers, and Options left empty
// keep what the server was added with.
type MCPServerRequest struct {
	URL     string
	Headers map[string]string
	Options MCPOptions
	Refresh bool
}

// ParseHeaders reads static headers given as "Name: value" lines or flags.
func ParseHeaders(lines []string) (map[string]string, error) {
	headers := map[string]string{}
	for _, h := range lines {
		if strings.TrimSpace(h) == "" {
			continue
		}
		k, v, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(k) == "" {
			return nil, &ImportError{fmt.Errorf("header %q must be 'Name: value'", h)}
		}
		headers[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return headers, nil
}

// AddMCPServer discovers an MCP server's tools through client (the
// server's outbound scope) and stores it as the project's connector
// r.Options.ID, reporting the tools added, changed and removed. Problems
// the caller can fix (no such server to refresh, an id taken by an
// imported API, a server that does not answer) are an *ImportError.
// `admin mcp-server add|refresh` and the dashboard call it.
func AddMCPServer(ctx context.Context, st *store.Store, ring *secret.Keyring, client *http.Client, projectID string, r MCPServerRequest) (ProjectImport, error) {
	id := r.Options.ID
	headers := r.Headers
	if headers == nil {
		headers = map[string]string{}
	}
	var sealed []byte
	var err error
	if r.Refresh {
		old, err := st.GetProjectConnector(ctx, projectID, id)
		if err != nil || old.Origin != catalog.OriginMCP {
			return ProjectImport{}, &ImportError{fmt.Errorf("the project has no MCP server %q", id)}
		}
		var def catalog.Connector
		_ = json.Unmarshal(old.Definition, &def)
		def.Origin = old.Origin
		if def.OAuthMCP() {
			return ProjectImport{}, &ImportError{fmt.Errorf("%s lists its tools only to a signed-in user: they are listed again with a user's token each time a user connects an account of it", id)}
		}
		r.URL, sealed = old.Source, old.Headers
		was := OptionsOf(id, old.Definition)
		o := &r.Options
		o.Name, o.Description = cmp.Or(o.Name, was.Name), cmp.Or(o.Description, was.Description)
		o.Category, o.DataClass = cmp.Or(o.Category, was.Category), cmp.Or(o.DataClass, was.DataClass)
		if headers, err = OpenHeaders(ring, projectID, id, sealed); err != nil {
			return ProjectImport{}, fmt.Errorf("the server's headers cannot be read: %w", err)
		}
	} else if sealed, err = SealHeaders(ring, projectID, id, headers); err != nil {
		return ProjectImport{}, err
	}
	con, err := DiscoverMCP(ctx, client, r.URL, headers, r.Options)
	if err != nil {
		return ProjectImport{}, &ImportError{err}
	}
	def, err := json.Marshal(con)
	if err != nil {
		return ProjectImport{}, err
	}
	old, _ := st.GetProjectConnector(ctx, projectID, con.ID)
	if old.Origin != "" && old.Origin != catalog.OriginMCP {
		return ProjectImport{}, &ImportError{fmt.Errorf("the project's connector %q is an imported API; choose another id", con.ID)}
	}
	changes := DiffTools(old.Definition, def)
	if err := st.PutProjectConnector(ctx, store.ProjectConnector{ProjectID: projectID, ConnectorID: con.ID, Origin: catalog.OriginMCP,
		Source: r.URL, Definition: def, Headers: sealed}); err != nil {
		return ProjectImport{}, err
	}
	return ProjectImport{Connector: con, Report: Report{Tools: len(con.Tools)}, Changes: changes}, nil
}
