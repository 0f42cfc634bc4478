package httpapi

import (
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// connectorQuery is the parsed query of GET /v1/connectors and GET /api/catalog.
type connectorQuery struct {
	query    string
	category string
	popular  *bool
	facets   bool
	page     Page
}

func parseConnectorQuery(q url.Values, kind, scope string) (connectorQuery, error) {
	var issues apierr.Issues
	cq := connectorQuery{
		query:    queryText(q, "query", 1, 200, &issues),
		category: queryEnum(q, "category", catalog.Categories, &issues),
		popular:  queryBool(q, "popular", &issues),
		page:     parsePage(q, kind, scope, &issues),
	}
	if f := queryBool(q, "facets", &issues); f != nil {
		cq.facets = *f
	}
	return cq, issues.Err()
}

// connectorFacets are the counts beside a connector page.
type connectorFacets struct {
	Category map[string]int `json:"category"`
	Popular  int            `json:"popular"`
}

// listConnectors applies the query to the catalog: search ranking when a
// query is given, else most popular first, then by id. It returns the
// matches and, when asked, facet counts that respect every other filter.
func (s *Server) listConnectors(cat *catalog.Catalog, cq connectorQuery) ([]*catalog.Connector, *connectorFacets) {
	base := cat.Connectors()
	if cq.query != "" {
		base = cat.SearchConnectors(cq.query, nil)
	}
	inCategory := func(c *catalog.Connector) bool { return cq.category == "" || c.Category == cq.category }
	inPopular := func(c *catalog.Connector) bool { return cq.popular == nil || c.Popular() == *cq.popular }
	var out []*catalog.Connector
	for _, c := range base {
		if inCategory(c) && inPopular(c) {
			out = append(out, c)
		}
	}
	if cq.popular != nil && *cq.popular && cq.query == "" {
		// Popular connectors come in rank order, which the catalog order already is.
		slices.SortStableFunc(out, func(a, b *catalog.Connector) int { return a.Popularity - b.Popularity })
	}
	if !cq.facets {
		return out, nil
	}
	f := &connectorFacets{Category: map[string]int{}}
	for _, cat := range catalog.Categories {
		f.Category[cat] = 0
	}
	for _, c := range base {
		if inPopular(c) {
			f.Category[c.Category]++
		}
		if inCategory(c) && c.Popular() {
			f.Popular++
		}
	}
	return out, f
}

// pageOf cuts one page from items, returning the cursor of the next.
func pageOf[T any](items []T, p Page, kind, scope string) ([]T, string) {
	start := 0
	if p.After != "" {
		start, _ = strconv.Atoi(p.After)
	}
	if start > len(items) {
		start = len(items)
	}
	end := min(start+p.Limit, len(items))
	next := ""
	if end < len(items) {
		next = encodeCursor(kind, scope, strconv.Itoa(end))
	}
	return items[start:end], next
}

// connectorItem is a connector in GET /v1/connectors (openapi.json, schema Connector).
type connectorItem struct {
	ID          string           `json:"id"`
	Name        string           `json:"name"`
	Description string           `json:"description"`
	Category    string           `json:"category"`
	Logo        string           `json:"logo"`
	AuthMethods []authMethodItem `json:"authMethods"`
	MCP         bool             `json:"mcp"`
}

type authMethodItem struct {
	ID   string `json:"id"`
	Type string `json:"type"`
	Name string `json:"name"`
}

// connectorDetail is GET /v1/connectors/:id.
type connectorDetail struct {
	connectorItem
	ToolIDs []string `json:"toolIds,omitempty"`
}

func (s *Server) connectorItem(c *catalog.Connector) connectorItem {
	methods := make([]authMethodItem, len(c.AuthMethods))
	for i, m := range c.AuthMethods {
		methods[i] = authMethodItem{ID: m.ID, Type: m.Type, Name: m.Name}
	}
	return connectorItem{
		ID: c.ID, Name: c.Name, Description: c.Description, Category: c.Category,
		Logo: s.logoURL(c.ID), AuthMethods: methods, MCP: c.MCP(),
	}
}

func (s *Server) logoURL(connectorID string) string {
	return s.assetsURL + "/logos/" + connectorID
}

// handleConnectorList is GET /v1/connectors.
func (s *Server) handleConnectorList(w http.ResponseWriter, r *http.Request) error {
	tn := tenantOf(r)
	pid := tn.ProjectID
	cq, err := parseConnectorQuery(r.URL.Query(), "connectors", pid)
	if err != nil {
		return err
	}
	all, facets := s.listConnectors(tn.Catalog, cq)
	page, next := pageOf(all, cq.page, "connectors", pid)
	items := make([]connectorItem, len(page))
	for i, c := range page {
		items[i] = s.connectorItem(c)
	}
	if facets != nil {
		respondPage(w, items, next, facets)
	} else {
		respondPage(w, items, next, nil)
	}
	return nil
}

// handleConnectorGet is GET /v1/connectors/:id.
func (s *Server) handleConnectorGet(w http.ResponseWriter, r *http.Request) error {
	tn := tenantOf(r)
	c, ok := tn.Catalog.Connector(r.PathValue("id"))
	if !ok {
		return apierr.New(apierr.ConnectorNotFound, "no connector %q; GET /v1/connectors lists them", r.PathValue("id"))
	}
	disabled, err := s.store.DisabledTools(r.Context(), tn.ProjectID, tn.ToolsVersion)
	if err != nil {
		return err
	}
	ids := make([]string, 0, len(c.Tools))
	for _, t := range c.Tools {
		if !disabled[t.ID] {
			ids = append(ids, t.ID)
		}
	}
	slices.Sort(ids)
	if c.MCP() {
		ids = nil // an MCP server's tools come from the server
	}
	respond(w, http.StatusOK, connectorDetail{connectorItem: s.connectorItem(c), ToolIDs: ids})
	return nil
}
