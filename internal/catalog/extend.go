package catalog

import (
	"fmt"
	"regexp"
)

// A project may extend a built-in connector with tools imported from the
// provider's own API description (`admin openapi import --extends`). The
// extension is stored as a connector with the built-in's id, Origin
// OriginExtension and only tools; With merges those tools into a copy of
// the built-in, so they use its auth methods, connection fields, base URL,
// headers and accounts. Curated tools always win: an extension tool whose
// id a catalog tool has, or whose method and path a curated tool of the
// connector calls, is left out.

// anyPlaceholder matches a path placeholder, whatever its name.
var anyPlaceholder = regexp.MustCompile(`\{\+?[^}]*\}`)

// RouteKey is a request's method and path with its placeholders unnamed,
// so that /repos/{owner}/{repo} and /repos/{o}/{r} are the same route.
func RouteKey(method, path string) string {
	return method + " " + anyPlaceholder.ReplaceAllString(path, "{}")
}

// ExtensionClash says why an extension tool t may not join the built-in
// connector base ("" when it may): a curated tool of base has its id, or
// calls its method and path.
func ExtensionClash(base *Connector, t *Tool) string {
	var route string
	if t.Request != nil {
		route = RouteKey(t.Request.Method, t.Request.Path)
	}
	for _, b := range base.Tools {
		if b.Extended {
			continue
		}
		if b.ID == t.ID {
			return "the curated tool " + b.ID + " has this id"
		}
		if b.Request != nil && route != "" && RouteKey(b.Request.Method, b.Request.Path) == route {
			return "the curated tool " + b.ID + " calls " + route
		}
	}
	return ""
}

// extend returns a copy of the built-in connector ext extends with ext's
// tools added, each validated as a project's own tool; clashing tools are
// left out (the built-in catalog may have gained them since the import),
// and an extension of a connector the catalog no longer has is nil.
func (c *Catalog) extend(ext *Connector) (*Connector, []string) {
	base, ok := c.byID[ext.ID]
	if !ok || !base.Builtin() {
		// A release that drops the connector leaves its extensions
		// inert rather than breaking the project's catalog.
		return nil, nil
	}
	merged := *base
	merged.Tools = append(make([]*Tool, 0, len(base.Tools)+len(ext.Tools)), base.Tools...)
	v := &validator{relaxed: true}
	for i, t := range ext.Tools {
		if _, taken := c.toolByID[t.ID]; taken || ExtensionClash(base, t) != "" {
			continue
		}
		t.connector, t.Extended = &merged, true
		v.tool(fmt.Sprintf("tools[%d] (%s)", i, t.ID), &merged, t)
		merged.Tools = append(merged.Tools, t)
	}
	var problems []string
	for _, p := range v.problems {
		problems = append(problems, "extension of "+ext.ID+": "+p)
	}
	return &merged, problems
}

// CheckExtension validates an extension of the built-in connector base as
// With would, and returns the tools that would join it.
func CheckExtension(base *Connector, ext *Connector) ([]*Tool, error) {
	cat, errs := newCatalog([]*Connector{base})
	if len(errs) > 0 {
		return nil, fmt.Errorf("catalog: %v", errs)
	}
	out, err := cat.With([]*Connector{ext})
	if err != nil {
		return nil, err
	}
	var added []*Tool
	for _, t := range out.byID[base.ID].Tools {
		if t.Extended {
			added = append(added, t)
		}
	}
	return added, nil
}
