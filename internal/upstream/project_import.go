package upstream

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sort"
	"time"

	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// ProjectImport is an OpenAPI document imported as a project's connector:
// the connector, the import's report and the tools added, changed and
// removed against the connector's previous definition.
type ProjectImport struct {
	Connector *catalog.Connector
	Report    Report
	Changes   map[string][]string
}

// ImportError is a problem with the document or the options given (not
// a fault of the server): its message says what to fix.
type ImportError struct{ Err error }

func (e *ImportError) Error() string { return e.Err.Error() }
func (e *ImportError) Unwrap() error { return e.Err }

// ImportIntoProject imports (or re-imports) an OpenAPI document as a
// project's own connector and stores it; source is where it came from (a
// file name or URL). An id the project uses for an MCP server or an
// extension is refused. Problems with the document or options are an
// *ImportError. `admin openapi import` and the dashboard call it.
func ImportIntoProject(ctx context.Context, st *store.Store, projectID, source string, data []byte, o ImportOptions) (ProjectImport, error) {
	con, rep, err := ImportOpenAPI(ctx, data, o)
	if err != nil {
		return ProjectImport{}, &ImportError{err}
	}
	old, err := st.GetProjectConnector(ctx, projectID, con.ID)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return ProjectImport{}, err
	}
	if err == nil && old.Origin != catalog.OriginOpenAPI {
		return ProjectImport{}, &ImportError{fmt.Errorf("the project's connector %q is an MCP server or an extension; choose another id", con.ID)}
	}
	def, err := json.Marshal(con)
	if err != nil {
		return ProjectImport{}, err
	}
	changes := DiffTools(old.Definition, def)
	if err := st.PutProjectConnector(ctx, store.ProjectConnector{ProjectID: projectID, ConnectorID: con.ID, Origin: catalog.OriginOpenAPI,
		Source: source, Definition: def}); err != nil {
		return ProjectImport{}, err
	}
	return ProjectImport{Connector: con, Report: rep, Changes: changes}, nil
}

// DiffTools compares two connector definitions' tools by id: the ids
// added, changed and removed, each sorted.
func DiffTools(oldDef, newDef []byte) map[string][]string {
	index := func(def []byte) map[string]json.RawMessage {
		var c struct {
			Tools []json.RawMessage `json:"tools"`
		}
		_ = json.Unmarshal(def, &c)
		out := map[string]json.RawMessage{}
		for _, t := range c.Tools {
			var id struct{ ID string }
			_ = json.Unmarshal(t, &id)
			out[id.ID] = t
		}
		return out
	}
	before, after := index(oldDef), index(newDef)
	changes := map[string][]string{"added": {}, "changed": {}, "removed": {}}
	for id, t := range after {
		if old, ok := before[id]; !ok {
			changes["added"] = append(changes["added"], id)
		} else if !SameJSON(old, t) {
			changes["changed"] = append(changes["changed"], id)
		}
	}
	for id := range before {
		if _, ok := after[id]; !ok {
			changes["removed"] = append(changes["removed"], id)
		}
	}
	for _, v := range changes {
		sort.Strings(v)
	}
	return changes
}

// MaxDocument bounds an OpenAPI document read from a URL.
const MaxDocument = 20 << 20

// FetchDocument fetches an OpenAPI document from an http(s) URL in the
// imported connector's outbound scope (the address rules of its calls).
func FetchDocument(ctx context.Context, src string, scope *netguard.Scope) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src, nil)
	if err != nil {
		return nil, err
	}
	resp, err := scope.Client().Do(req)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", src, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch %s: HTTP %d", src, resp.StatusCode)
	}
	return io.ReadAll(io.LimitReader(resp.Body, MaxDocument))
}
