package catalog

import (
	"fmt"
	"regexp"
	"strings"
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
func ExtensionClash(base *Connector, t *Tool) string { return newClashes(base).of(t) }

// clashes indexes a built-in connector's curated tools by id and route.
type clashes struct{ ids, routes map[string]string }

func newClashes(base *Connector) clashes {
	c := clashes{ids: map[string]string{}, routes: map[string]string{}}
	for _, b := range base.Tools {
		if b.Extended {
			continue
		}
		c.ids[b.ID] = b.ID
		if b.Request != nil {
			c.routes[RouteKey(b.Request.Method, b.Request.Path)] = b.ID
		}
	}
	return c
}

func (c clashes) of(t *Tool) string {
	if _, ok := c.ids[t.ID]; ok {
		return "the curated tool " + t.ID + " has this id"
	}
	if t.Request != nil {
		route := RouteKey(t.Request.Method, t.Request.Path)
		if id, ok := c.routes[route]; ok {
			return "the curated tool " + id + " calls " + route
		}
	}
	return ""
}

// extend returns a copy of the built-in connector ext extends with ext's
// tools added, each validated as a project's own tool. It leaves out, and
// returns with the reason, tools that clash with curated ones (the built-in
// catalog may have gained them since the import) and tools that do not
// validate (the rules may have tightened since), so neither breaks the
// project's catalog. An extension of a connector the catalog no longer
// has is nil.
func (c *Catalog) extend(ext *Connector) (*Connector, map[string]string) {
	base, ok := c.byID[ext.ID]
	if !ok || !base.Builtin() {
		return nil, nil
	}
	merged := *base
	merged.Tools = append(make([]*Tool, 0, len(base.Tools)+len(ext.Tools)), base.Tools...)
	dropped := map[string]string{}
	curated := newClashes(base)
	for _, t := range ext.Tools {
		if _, taken := c.toolByID[t.ID]; taken {
			dropped[t.ID] = "a built-in tool has this id"
			continue
		}
		if why := curated.of(t); why != "" {
			dropped[t.ID] = why
			continue
		}
		t.connector, t.Extended = &merged, true
		v := &validator{relaxed: true}
		v.tool(t.ID, &merged, t)
		if len(v.problems) > 0 {
			dropped[t.ID] = strings.Join(v.problems, "; ")
			continue
		}
		merged.Tools = append(merged.Tools, t)
	}
	return &merged, dropped
}

// CheckExtension validates an extension of the built-in connector base as
// With does: it returns the tools that join base and, by id, why each
// other tool does not.
func CheckExtension(base *Connector, ext *Connector) ([]*Tool, map[string]string, error) {
	cat, errs := newCatalog([]*Connector{base})
	if len(errs) > 0 {
		return nil, nil, fmt.Errorf("catalog: %v", errs)
	}
	merged, dropped := cat.extend(ext)
	if merged == nil {
		return nil, nil, fmt.Errorf("%q is not a built-in connector", ext.ID)
	}
	return merged.Tools[len(base.Tools):], dropped, nil
}
