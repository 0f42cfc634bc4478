package catalog

import (
	"encoding/json"
	"slices"
	"strings"
)

// ExportVersion is the version of the export document's layout.
const ExportVersion = 1

// Export is the whole built-in catalog as one JSON document (the output of
// `switchboard catalog export`): connectors with their auth methods,
// connection fields, tools with full definitions including the request
// mapping, and triggers, in the same field names as the YAML files.
type Export struct {
	Version    int          `json:"version"`
	Connectors []*Connector `json:"connectors"`
}

// Export returns the catalog as an Export document.
func (c *Catalog) Export() Export {
	return Export{Version: ExportVersion, Connectors: c.connectors}
}

// SpecMatchTool is one tool described in the input format of the provider
// spec checker (../shared/tools/spec_match.py).
type SpecMatchTool struct {
	Name        string      `json:"name"`
	Provider    string      `json:"provider"`
	Method      string      `json:"method,omitempty"`
	BaseURL     string      `json:"base_url,omitempty"`
	Path        string      `json:"path,omitempty"`
	Query       []SpecParam `json:"query,omitempty"`
	Headers     []SpecParam `json:"headers,omitempty"`
	Body        *SpecBody   `json:"body,omitempty"`
	BodyWrap    string      `json:"body_wrap,omitempty"`
	ContentType string      `json:"content_type,omitempty"`
	GraphQL     string      `json:"graphql,omitempty"`
	Variables   []string    `json:"variables,omitempty"`
}

// SpecParam is a named parameter with whether it is required.
type SpecParam struct {
	Name     string `json:"name"`
	Required bool   `json:"required"`
}

// SpecBody is the body fields of a request as a JSON Schema object.
type SpecBody struct {
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required"`
}

// SpecMatchTools describes every tool with a request mapping for the
// provider spec checker.
func (c *Catalog) SpecMatchTools() []SpecMatchTool {
	var out []SpecMatchTool
	for _, t := range c.tools {
		if t.Request == nil {
			continue
		}
		out = append(out, t.specMatch())
	}
	return out
}

// Split is how a request mapping distributes a tool's input fields.
type Split struct {
	Path, Query, Body []string
	Headers           map[string]string
}

// Split returns where each input field of the tool goes: path placeholders,
// explicit query, header and body lists, and the remaining fields to the
// query (GET, DELETE) or the body (POST, PUT, PATCH).
func (t *Tool) Split() Split {
	r := t.Request
	props, _, _, _ := schemaProperties(t.InputSchema)
	s := Split{Headers: r.Headers, Query: slices.Clone(r.Query), Body: slices.Clone(r.Body)}
	used := map[string]bool{}
	for _, m := range placeholderRegex.FindAllStringSubmatch(r.Path, -1) {
		s.Path = append(s.Path, m[1])
		used[m[1]] = true
	}
	for _, q := range r.Query {
		used[q] = true
	}
	for f := range r.Headers {
		used[f] = true
	}
	for _, b := range r.Body {
		used[b] = true
	}
	if r.GraphQL != "" {
		return s
	}
	var rest []string
	for name := range props {
		if !used[name] {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	explicit := len(r.Query) > 0 || len(r.Body) > 0
	if !explicit {
		if r.Method == "GET" || r.Method == "DELETE" {
			s.Query = append(s.Query, rest...)
		} else {
			s.Body = append(s.Body, rest...)
		}
	}
	return s
}

func (t *Tool) specMatch() SpecMatchTool {
	r := t.Request
	out := SpecMatchTool{Name: t.ID, Provider: t.connector.ID}
	props, required, _, _ := schemaProperties(t.InputSchema)
	if r.GraphQL != "" {
		out.GraphQL = r.GraphQL
		for name := range props {
			out.Variables = append(out.Variables, name)
		}
		slices.Sort(out.Variables)
		return out
	}
	out.Method = r.Method
	// A host placeholder with a default (Intercom's region host) is checked
	// as the request an account that keeps the default sends.
	out.BaseURL = t.connector.API.BaseURL
	for _, f := range t.connector.ConnectionFields {
		if f.Default != "" {
			out.BaseURL = strings.ReplaceAll(out.BaseURL, "{"+f.Name+"}", f.Default)
		}
	}
	out.Path = strings.ReplaceAll(r.Path, "{+", "{")
	s := t.Split()
	for _, q := range s.Query {
		out.Query = append(out.Query, SpecParam{Name: r.APIName(q), Required: slices.Contains(required, q)})
	}
	for name := range r.StaticQuery {
		out.Query = append(out.Query, SpecParam{Name: name})
	}
	for f, h := range s.Headers {
		out.Headers = append(out.Headers, SpecParam{Name: h, Required: slices.Contains(required, f)})
	}
	for h := range r.StaticHeaders {
		out.Headers = append(out.Headers, SpecParam{Name: h, Required: true})
	}
	// A connector header filled from the account (xero-tenant-id) is sent
	// with every call, as a required header parameter would be.
	for h, v := range t.connector.API.Headers {
		if Templated(v) {
			out.Headers = append(out.Headers, SpecParam{Name: h, Required: true})
		}
	}
	if len(s.Body) > 0 || len(r.StaticBody) > 0 {
		body := &SpecBody{Properties: map[string]json.RawMessage{}, Required: []string{}}
		for _, b := range s.Body {
			body.Properties[r.APIName(b)] = props[b]
			if slices.Contains(required, b) {
				body.Required = append(body.Required, r.APIName(b))
			}
		}
		for name := range r.StaticBody {
			body.Properties[name] = json.RawMessage(`{}`)
		}
		out.Body = body
		out.BodyWrap = r.BodyWrap
		out.ContentType = "application/json"
		if r.BodyType == "form" {
			out.ContentType = "application/x-www-form-urlencoded"
		}
	}
	return out
}

// APIName returns the provider's name of an input field (see Rename).
func (r *Request) APIName(field string) string {
	if n, ok := r.Rename[field]; ok {
		return n
	}
	return field
}
