package httpapi

import (
	"net/http"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// publicCacheControl lets clients and CDNs keep public catalog answers for
// five minutes (docs/README.md, "Limits").
const publicCacheControl = "public, max-age=300"

// publicConnectorItem is a connector in GET /api/catalog (openapi.json, schema PublicConnector).
type publicConnectorItem struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Description  string `json:"description"`
	Category     string `json:"category"`
	Logo         string `json:"logo"`
	Popular      bool   `json:"popular"`
	Verification string `json:"verification"`
	Actions      int    `json:"actions"`
}

// publicConnectorDetail is GET /api/catalog/:connectorId.
type publicConnectorDetail struct {
	ID           string              `json:"id"`
	Name         string              `json:"name"`
	Description  string              `json:"description"`
	Category     string              `json:"category"`
	Logo         string              `json:"logo"`
	Popular      bool                `json:"popular"`
	Proxy        bool                `json:"proxy"`
	Verification string              `json:"verification"`
	AuthMethods  []publicAuthMethod  `json:"authMethods"`
	Tools        []publicToolItem    `json:"tools"`
	Triggers     []publicTriggerItem `json:"triggers"`
}

type publicAuthMethod struct {
	Name        string `json:"name"`
	Type        string `json:"type"`
	Description string `json:"description,omitempty"`
}

type publicToolItem struct {
	ID                 string `json:"id"`
	Description        string `json:"description"`
	Effect             string `json:"effect"`
	DataClassification string `json:"dataClassification"`
}

type publicTriggerItem struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description"`
}

func verification(c *catalog.Connector) string {
	if c.Verification == "" {
		return "unverified"
	}
	return c.Verification
}

// handlePublicCatalog is GET /api/catalog: built-in connectors only.
func (s *Server) handlePublicCatalog(w http.ResponseWriter, r *http.Request) error {
	cq, err := parseConnectorQuery(r.URL.Query(), "catalog", "public")
	if err != nil {
		return err
	}
	all, facets := s.listConnectors(s.catalog, cq)
	page, next := pageOf(all, cq.page, "catalog", "public")
	items := make([]publicConnectorItem, len(page))
	for i, c := range page {
		items[i] = publicConnectorItem{
			ID: c.ID, Name: c.Name, Description: c.Description, Category: c.Category,
			Logo: s.logoURL(c.ID), Popular: c.Popular(), Verification: verification(c), Actions: len(c.Tools),
		}
	}
	w.Header().Set("Cache-Control", publicCacheControl)
	if facets != nil {
		respondPage(w, items, next, facets)
	} else {
		respondPage(w, items, next, nil)
	}
	return nil
}

// handlePublicCatalogGet is GET /api/catalog/:connectorId.
func (s *Server) handlePublicCatalogGet(w http.ResponseWriter, r *http.Request) error {
	c, ok := s.catalog.Connector(r.PathValue("connectorId"))
	if !ok {
		return apierr.New(apierr.NotFound, "no built-in connector %q", r.PathValue("connectorId"))
	}
	d := publicConnectorDetail{
		ID: c.ID, Name: c.Name, Description: c.Description, Category: c.Category, Logo: s.logoURL(c.ID),
		Popular: c.Popular(), Proxy: c.API.Proxy, Verification: verification(c),
		AuthMethods: make([]publicAuthMethod, len(c.AuthMethods)),
		Tools:       make([]publicToolItem, len(c.Tools)),
		Triggers:    make([]publicTriggerItem, len(c.Triggers)),
	}
	for i, m := range c.AuthMethods {
		d.AuthMethods[i] = publicAuthMethod{Name: m.Name, Type: m.Type, Description: m.Description}
	}
	for i, t := range c.Tools {
		d.Tools[i] = publicToolItem{ID: t.ID, Description: t.Description, Effect: t.Effect, DataClassification: t.Classification()}
	}
	for i, t := range c.Triggers {
		d.Triggers[i] = publicTriggerItem{ID: t.ID, Name: t.Name, Description: t.Description}
	}
	w.Header().Set("Cache-Control", publicCacheControl)
	respond(w, http.StatusOK, d)
	return nil
}
