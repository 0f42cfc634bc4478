package catalog

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// Catalog is the loaded, validated set of built-in connectors. It is
// immutable after Load and safe for concurrent use.
type Catalog struct {
	connectors []*Connector // most popular first, then by id
	byID       map[string]*Connector
	tools      []*Tool // by id
	toolByID   map[string]*Tool
	triggers   map[string]*Trigger
	toolIndex  *Index
	connIndex  *Index
	toolClass  []int    // verb class of each tool, by position
	toolVerb   []string // first word of each tool's id after the connector
	toolConn   []int    // position of each tool's connector in connectors
	connOrd    map[string]int
	aliases    *aliasTable
	speller    *speller
}

func newCatalog(cs []*Connector) (*Catalog, []string) {
	var problems []string
	c := &Catalog{byID: map[string]*Connector{}, toolByID: map[string]*Tool{}, triggers: map[string]*Trigger{}}
	for _, con := range cs {
		if _, dup := c.byID[con.ID]; dup {
			problems = append(problems, fmt.Sprintf("connector id %q appears twice", con.ID))
			continue
		}
		c.byID[con.ID] = con
		c.connectors = append(c.connectors, con)
		for _, t := range con.Tools {
			if _, dup := c.toolByID[t.ID]; dup {
				problems = append(problems, fmt.Sprintf("%s: tool id %q appears twice", con.ID, t.ID))
				continue
			}
			c.toolByID[t.ID] = t
			c.tools = append(c.tools, t)
		}
		for _, tr := range con.Triggers {
			if _, dup := c.triggers[tr.ID]; dup {
				problems = append(problems, fmt.Sprintf("%s: trigger id %q appears twice", con.ID, tr.ID))
				continue
			}
			c.triggers[tr.ID] = tr
		}
	}
	sort.Slice(c.connectors, func(i, j int) bool { return lessConnector(c.connectors[i], c.connectors[j]) })
	sort.Slice(c.tools, func(i, j int) bool { return c.tools[i].ID < c.tools[j].ID })
	toolDocs := make([][]field, len(c.tools))
	for i, t := range c.tools {
		toolDocs[i] = toolDocument(t)
	}
	c.toolIndex = newIndex(toolDocs)
	c.connOrd = make(map[string]int, len(c.connectors))
	for i, con := range c.connectors {
		c.connOrd[con.ID] = i
	}
	c.toolConn = make([]int, len(c.tools))
	for i, t := range c.tools {
		c.toolConn[i] = c.connOrd[t.connector.ID]
	}
	c.toolClass = make([]int, len(c.tools))
	c.toolVerb = make([]string, len(c.tools))
	for i, t := range c.tools {
		c.toolClass[i], c.toolVerb[i] = toolClassOf(t)
	}
	c.aliases = newAliasTable(c.connectors)
	c.speller = newSpeller(c.toolIndex, c.aliases)
	connDocs := make([][]field, len(c.connectors))
	for i, con := range c.connectors {
		connDocs[i] = connectorDocument(con)
	}
	c.connIndex = newIndex(connDocs)
	return c, problems
}

// lessConnector orders ranked connectors by rank, before unranked ones, then by id.
func lessConnector(a, b *Connector) bool {
	switch {
	case a.Popularity > 0 && b.Popularity > 0 && a.Popularity != b.Popularity:
		return a.Popularity < b.Popularity
	case (a.Popularity > 0) != (b.Popularity > 0):
		return a.Popularity > 0
	}
	return a.ID < b.ID
}

// Connectors returns every connector, most popular first, then by id.
func (c *Catalog) Connectors() []*Connector { return c.connectors }

// Connector returns one connector.
func (c *Catalog) Connector(id string) (*Connector, bool) {
	con, ok := c.byID[id]
	return con, ok
}

// Tools returns every tool sorted by id.
func (c *Catalog) Tools() []*Tool { return c.tools }

// Tool returns one tool.
func (c *Catalog) Tool(id string) (*Tool, bool) {
	t, ok := c.toolByID[id]
	return t, ok
}

// Trigger returns one trigger definition.
func (c *Catalog) Trigger(id string) (*Trigger, bool) {
	t, ok := c.triggers[id]
	return t, ok
}

// Connector returns the connector the tool belongs to.
func (t *Tool) Connector() *Connector { return t.connector }

// Classification returns the tool's data class, pii when none is set.
func (t *Tool) Classification() string {
	if t.DataClassification == "" {
		return ClassPII
	}
	return t.DataClassification
}

// Popular reports whether the connector has a popularity rank.
func (c *Connector) Popular() bool { return c.Popularity > 0 }

// Connector returns the connector the trigger belongs to.
func (t *Trigger) Connector() *Connector { return t.connector }

// ValidateInput checks a tool input against the tool's input schema. The
// error, a *jsonschema.ValidationError, lists every problem.
func (t *Tool) ValidateInput(input any) error { return t.input.Validate(input) }

// ValidateConfig checks a trigger config against its schema; a trigger
// without a config schema accepts only an empty or absent config.
func (t *Trigger) ValidateConfig(config map[string]any) error {
	if t.config == nil {
		if len(config) > 0 {
			return fmt.Errorf("trigger %s takes no config", t.ID)
		}
		return nil
	}
	return t.config.Validate(config)
}

// ToolHit is a tool ranked for a query.
type ToolHit struct {
	Tool *Tool
	// Score orders the hits of one query; it does not compare across queries.
	Score float64
	// Relevance, from 0 to 1, is how much of the request the tool covers;
	// under MatchThreshold the tool does not match it well.
	Relevance float64
}

// SearchTools ranks the tools that match query, best first, keeping only
// those keep accepts (nil keeps all). The index was built at load, so a
// search reads postings and never scans the catalog's text. A request of
// several steps interleaves the steps' rankings (see SearchSteps).
func (c *Catalog) SearchTools(query string, keep func(*Tool) bool) []ToolHit {
	return c.SearchSteps(query, keep).Hits
}

// SearchConnectors ranks the connectors that match query, best first: the
// ones it names, then by BM25 over their id, name and description.
func (c *Catalog) SearchConnectors(query string, keep func(*Connector) bool) []*Connector {
	var k func(int) bool
	if keep != nil {
		k = func(doc int) bool { return keep(c.connectors[doc]) }
	}
	// The connectors the query names, by name, alias or abbreviation
	// ("gh", "gcal", "sfdc", a misspelt "salesfroce"), come first.
	p := c.plan(query)
	var out []*Connector
	for _, id := range append(append([]string(nil), p.named...), p.common...) {
		if con := c.byID[id]; con != nil && (keep == nil || keep(con)) && !slices.Contains(out, con) {
			out = append(out, con)
		}
	}
	for _, h := range c.connIndex.Search(query, k) {
		if con := c.connectors[h.Doc]; !slices.Contains(out, con) {
			out = append(out, con)
		}
	}
	return out
}

// With returns a catalog of c's connectors and a project's own connectors
// (extra), validated as strictly as built-ins (but without logo files).
// An extra connector may not take a built-in id, except an extension
// (OriginExtension), whose tools join the built-in connector of its id.
func (c *Catalog) With(extra []*Connector) (*Catalog, error) {
	var problems []string
	all := append([]*Connector(nil), c.connectors...)
	for _, con := range extra {
		if con.Origin == OriginExtension {
			if merged, _ := c.extend(con); merged != nil {
				i := slices.Index(all, c.byID[con.ID])
				all[i] = merged
			}
			continue
		}
		if _, taken := c.byID[con.ID]; taken {
			problems = append(problems, fmt.Sprintf("connector id %q is a built-in connector's", con.ID))
			continue
		}
		v := &validator{relaxed: true}
		v.connector(con)
		for _, p := range v.problems {
			problems = append(problems, con.ID+": "+p)
		}
		all = append(all, con)
	}
	out, errs := newCatalog(all)
	problems = append(problems, errs...)
	if len(problems) > 0 {
		return nil, fmt.Errorf("catalog: %d problems:\n  %s", len(problems), strings.Join(problems, "\n  "))
	}
	return out, nil
}

// CheckOwn validates a project's own connector as With would.
func CheckOwn(con *Connector) error {
	_, err := (&Catalog{byID: map[string]*Connector{}}).With([]*Connector{con})
	return err
}
