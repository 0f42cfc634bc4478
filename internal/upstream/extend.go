package upstream

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// ExtendOptions tune ExtendOpenAPI.
type ExtendOptions struct {
	// SkipHostCheck accepts a document whose first server is not on the
	// connector's API host (a mirror, a proxy): its paths are then taken
	// as relative to the connector's base URL.
	SkipHostCheck bool
}

// dataClassKey is the operation (or info) extension by which a description
// names the data class of its operations; without it they are pii.
const dataClassKey = "x-data-classification"

// ExtendOpenAPI reads the provider's own OpenAPI description of the
// built-in connector base and returns the extension that adds each of its
// operations as a tool of base: ids base.ID + "_" + the operationId in
// snake case, inputs built as ImportOpenAPI builds them, the effect from
// the method, data class pii unless the description names another, and no
// required scopes. Operations that a curated tool already covers (same id,
// or same method and path) are skipped and reported. The document's first
// server must be on the connector's API host unless o.SkipHostCheck.
func ExtendOpenAPI(ctx context.Context, data []byte, base *catalog.Connector, o ExtendOptions) (*catalog.Connector, Report, error) {
	var rep Report
	if base == nil || !base.Builtin() {
		return nil, rep, errors.New("only a built-in connector can be extended")
	}
	doc, err := loadDocument(data, true)
	if err != nil {
		return nil, rep, err
	}
	prefix, err := serverPrefix(doc, base.API.BaseURL, o.SkipHostCheck)
	if err != nil {
		return nil, rep, err
	}
	defaultClass := dataClassOf(doc.Info.Extensions, catalog.ClassPII)
	ext := &catalog.Connector{ID: base.ID, Name: base.Name, Origin: catalog.OriginExtension}
	ext.Tools = documentTools(base.ID, doc, &rep, func(tool *catalog.Tool, op *openapi3.Operation) string {
		tool.Request.Path = prefix + tool.Request.Path
		tool.DataClassification = dataClassOf(op.Extensions, defaultClass)
		return catalog.ExtensionClash(base, tool)
	})
	if len(ext.Tools) == 0 {
		return nil, rep, errors.New("the document has no operation that the connector's curated tools do not already cover")
	}
	// Validate now, against the connector it joins, so nothing is stored
	// half-made.
	added, dropped, err := catalog.CheckExtension(base, ext)
	if err != nil {
		return nil, rep, err
	}
	for _, t := range ext.Tools {
		if why, ok := dropped[t.ID]; ok {
			rep.Skipped = append(rep.Skipped, t.Request.Method+" "+t.Request.Path+" ("+t.ID+"): "+why)
		}
	}
	if len(added) == 0 {
		return nil, rep, errors.New("the document has no operation Switchboard can add to the connector")
	}
	// Only the tools that join are stored.
	keep := ext.Tools[:0]
	for _, t := range ext.Tools {
		if _, ok := dropped[t.ID]; !ok {
			keep = append(keep, t)
		}
	}
	ext.Tools = keep
	rep.Tools = len(added)
	return ext, rep, nil
}

// dataClassOf reads the data class a description names in extensions,
// or def when it names none (or none we know).
func dataClassOf(extensions map[string]any, def string) string {
	if s, ok := extensions[dataClassKey].(string); ok && catalog.ClassRank(s) >= 0 {
		return s
	}
	return def
}

// placeholderHost matches one {field} placeholder in a base URL's host.
var placeholderHost = regexp.MustCompile(`\\\{[^}]*\\\}`)

// serverPrefix checks the document's first server against the
// connector's base URL and returns what its path adds to the base URL's
// (GitHub's server is the base itself: ""; a server at /v1 under a base
// at / gives "/v1"). skipCheck accepts any server, paths then relative to
// the base URL.
func serverPrefix(doc *openapi3.T, baseURL string, skipCheck bool) (string, error) {
	if len(doc.Servers) == 0 {
		if skipCheck {
			return "", nil
		}
		return "", errors.New("the document names no server to check against the connector's base URL; give --base-url-check=false to take its paths as relative to it")
	}
	s := doc.Servers[0]
	raw := s.URL
	for name, v := range s.Variables {
		raw = strings.ReplaceAll(raw, "{"+name+"}", v.Default)
	}
	server, err := url.Parse(raw)
	if err != nil {
		return "", fmt.Errorf("the document's server %q is not a URL: %w", raw, err)
	}
	// The base URL may hold {field} placeholders (a tenant's host); any
	// value matches one.
	hostPart, basePath := splitBase(baseURL)
	hostRe := regexp.MustCompile(`(?i)^` + placeholderHost.ReplaceAllString(regexp.QuoteMeta(hostPart), `[^/]+`) + `$`)
	serverPath := strings.TrimRight(server.EscapedPath(), "/")
	if !hostRe.MatchString(server.Scheme + "://" + server.Host) {
		if skipCheck {
			return "", nil
		}
		return "", fmt.Errorf("the document's server %q is not on the connector's API host %s; give --base-url-check=false if it is the same API", raw, hostPart)
	}
	if serverPath == basePath || strings.HasPrefix(serverPath, basePath+"/") {
		return serverPath[len(basePath):], nil
	}
	if skipCheck {
		return "", nil
	}
	return "", fmt.Errorf("the document's server %q is not under the connector's base URL %s; give --base-url-check=false to take its paths as relative to it", raw, baseURL)
}

// splitBase splits a base URL into scheme and host, and its path without
// a trailing slash.
func splitBase(baseURL string) (string, string) {
	scheme, rest, _ := strings.Cut(baseURL, "://")
	host, path, _ := strings.Cut(rest, "/")
	path = strings.TrimRight(path, "/")
	if path != "" {
		path = "/" + path
	}
	return scheme + "://" + host, path
}
