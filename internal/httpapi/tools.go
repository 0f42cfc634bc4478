package httpapi

import (
	"encoding/json"
	"math"
	"net/http"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
)

var dataClasses = []string{catalog.ClassStandard, catalog.ClassPII, catalog.ClassPHI}

// toolItem is a tool in GET /v1/tools (openapi.json, schema Tool). The schema fields are
// left out in view=index.
type toolItem struct {
	ID                 string          `json:"id"`
	Name               string          `json:"name"`
	Description        string          `json:"description"`
	ConnectorID        string          `json:"connectorId"`
	Effect             string          `json:"effect"`
	Category           string          `json:"category"`
	DataClassification string          `json:"dataClassification"`
	Irreversible       *bool           `json:"irreversible,omitempty"`  // present in view full
	RequiredScopes     []string        `json:"requiredScopes,omitzero"` // present, maybe empty, in view full
	InputSchema        json.RawMessage `json:"inputSchema,omitempty"`
	OutputSchema       json.RawMessage `json:"outputSchema,omitempty"`
	// Score is the tool's relevance to the query (0 to 1), present only
	// when the list is ranked by one; under catalog.MatchThreshold the tool
	// does not match the query well.
	Score *float64 `json:"score,omitempty"`
}

// noScopes is requiredScopes of a tool that needs none.
var noScopes = []string{}

// emptySchema stands for a tool without an output schema: any value.
var emptySchema = json.RawMessage(`{}`)

func newToolItem(t *catalog.Tool, full bool) toolItem {
	it := toolItem{
		ID: t.ID, Name: t.Name, Description: t.Description, ConnectorID: t.Connector().ID,
		Effect: t.Effect, Category: t.Connector().Category, DataClassification: t.Classification(),
	}
	if full {
		it.Irreversible = &t.Irreversible
		it.RequiredScopes = t.RequiredScopes
		if it.RequiredScopes == nil {
			it.RequiredScopes = noScopes
		}
		it.InputSchema = json.RawMessage(t.InputSchema)
		it.OutputSchema = emptySchema
		if len(t.OutputSchema) > 0 {
			it.OutputSchema = json.RawMessage(t.OutputSchema)
		}
	}
	return it
}

// toolFacets are the counts beside a tool page.
type toolFacets struct {
	Category           map[string]int `json:"category"`
	DataClassification map[string]int `json:"dataClassification"`
}

// handleToolList is GET /v1/tools: the project's enabled tools, sorted by
// id, or ranked by relevance when a query is given.
func (s *Server) handleToolList(w http.ResponseWriter, r *http.Request) error {
	tn := tenantOf(r)
	pid := tn.ProjectID
	q := r.URL.Query()
	var issues apierr.Issues
	query := queryText(q, "query", 1, 200, &issues)
	connectorID := queryText(q, "connectorId", 1, 200, &issues)
	category := queryEnum(q, "category", catalog.Categories, &issues)
	class := queryEnum(q, "dataClassification", dataClasses, &issues)
	view := queryEnum(q, "view", []string{"index", "full"}, &issues)
	facets := queryBool(q, "facets", &issues)
	page := parsePage(q, "tools", pid, &issues)
	if err := issues.Err(); err != nil {
		return err
	}
	disabled, err := s.store.DisabledTools(r.Context(), pid, tn.ToolsVersion)
	if err != nil {
		return err
	}

	cat := tn.Catalog
	base := cat.Tools()
	var scores map[string]float64
	if query != "" {
		hits := cat.SearchTools(query, nil)
		base = make([]*catalog.Tool, len(hits))
		scores = make(map[string]float64, len(hits))
		for i, h := range hits {
			base[i] = h.Tool
			scores[h.Tool.ID] = math.Round(h.Relevance*100) / 100
		}
	}
	usable := func(t *catalog.Tool) bool {
		return !disabled[t.ID] && (connectorID == "" || t.Connector().ID == connectorID)
	}
	inCategory := func(t *catalog.Tool) bool { return category == "" || t.Connector().Category == category }
	inClass := func(t *catalog.Tool) bool { return class == "" || t.Classification() == class }

	var matched []*catalog.Tool
	var f *toolFacets
	if facets != nil && *facets {
		f = &toolFacets{Category: map[string]int{}, DataClassification: map[string]int{}}
		for _, c := range catalog.Categories {
			f.Category[c] = 0
		}
		for _, c := range dataClasses {
			f.DataClassification[c] = 0
		}
	}
	for _, t := range base {
		if !usable(t) {
			continue
		}
		cat, cls := inCategory(t), inClass(t)
		if cat && cls {
			matched = append(matched, t)
		}
		if f != nil {
			if cls {
				f.Category[t.Connector().Category]++
			}
			if cat {
				f.DataClassification[t.Classification()]++
			}
		}
	}
	cut, next := pageOf(matched, page, "tools", pid)
	items := make([]toolItem, len(cut))
	for i, t := range cut {
		items[i] = newToolItem(t, view != "index")
		if score, ok := scores[t.ID]; ok {
			items[i].Score = &score
		}
	}
	if f != nil {
		respondPage(w, items, next, f)
	} else {
		respondPage(w, items, next, nil)
	}
	return nil
}
