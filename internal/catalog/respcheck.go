package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
)

// CheckOutputs holds the outputSchema of every tool whose verdict names a
// provider operation to that operation's success response schema in
// specsDir (../shared/provider-specs): every property the outputSchema
// names, at every depth, must be one the provider's schema has, with a type
// it allows. The result has one entry per such tool, in verdict order.
func CheckOutputs(specsDir string, verdicts []SpecVerdict, cat *Catalog) ([]OutputCheck, error) {
	docs := map[string]*specDoc{}
	docErr := map[string]string{}
	var out []OutputCheck
	for _, v := range verdicts {
		t, ok := cat.Tool(v.Tool)
		if !ok || v.Operation == nil || len(t.OutputSchema) == 0 {
			continue
		}
		r := OutputCheck{Tool: v.Tool, Operation: *v.Operation}
		d, loaded := docs[v.Provider]
		if !loaded && docErr[v.Provider] == "" {
			var err error
			d, err = loadSpecDoc(filepath.Join(specsDir, v.Provider))
			switch {
			case errors.Is(err, errNoSpec):
				docErr[v.Provider] = "no spec document the response check reads"
			case err != nil:
				return nil, fmt.Errorf("response check: %s: %w", v.Provider, err)
			case d.format == specStone:
				// Stone routes name result types in their own language;
				// reading it is left for later.
				docErr[v.Provider] = "Dropbox Stone descriptions are not read by the response check"
			default:
				docs[v.Provider] = d
			}
		}
		if why := docErr[v.Provider]; why != "" {
			r.Skipped = why
			out = append(out, r)
			continue
		}
		var ours map[string]any
		if err := json.Unmarshal(t.OutputSchema, &ours); err != nil {
			return nil, fmt.Errorf("response check: %s outputSchema: %w", t.ID, err)
		}
		schema, res, found := d.responseSchema(*v.Operation)
		if !found {
			r.Skipped = "operation " + *v.Operation + " not found in the spec document"
			out = append(out, r)
			continue
		}
		c := compareOutput(res, schema, ours, responsePath(t))
		c.Tool, c.Operation = r.Tool, r.Operation
		out = append(out, c)
	}
	return out, nil
}

// responsePath is the dotted path of the tool's result in the response.
func responsePath(t *Tool) string {
	if t.Request == nil {
		return ""
	}
	return t.Request.Response
}

// Findings are the field paths the check refutes: unknown fields and type
// conflicts, each with what is wrong.
func (c OutputCheck) Findings() []OutputFinding {
	var out []OutputFinding
	for _, f := range c.Unknown {
		out = append(out, OutputFinding{Field: f, Problem: "not in the spec's response schema"})
	}
	for _, f := range c.Conflicts {
		field, problem, _ := strings.Cut(f, ": ")
		out = append(out, OutputFinding{Field: field, Problem: "type conflict: " + problem})
	}
	return out
}

// OutputFinding is one field an outputSchema names that its provider's
// response schema refutes.
type OutputFinding struct {
	Field   string
	Problem string
}

// ExceptionKey is the key of spec-exceptions.yaml that accepts this
// finding of tool: "<tool id>:<field path>".
func (f OutputFinding) ExceptionKey(tool string) string {
	return tool + ":" + f.Field
}

// SplitSpecExceptions separates the entries of spec-exceptions.yaml:
// request exceptions are keyed by tool id, output exceptions by
// "<tool id>:<field path>" (see OutputFinding.ExceptionKey).
func SplitSpecExceptions(all map[string]string) (request, output map[string]string) {
	request, output = map[string]string{}, map[string]string{}
	for k, v := range all {
		if strings.Contains(k, ":") {
			output[k] = v
		} else {
			request[k] = v
		}
	}
	return request, output
}
