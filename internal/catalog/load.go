package catalog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"
)

// UnmarshalYAML converts a YAML schema to JSON text.
func (s *Schema) UnmarshalYAML(n *yaml.Node) error {
	var v any
	if err := n.Decode(&v); err != nil {
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("schema is not JSON-compatible: %w", err)
	}
	*s = b
	return nil
}

// Load reads every connectors/<id>.yaml of fsys, with logos under
// logos/<id>.svg, and validates it strictly. The error names every file and
// field that is wrong, not only the first.
func Load(fsys fs.FS) (*Catalog, error) { return LoadOnly(fsys, nil) }

// LoadOnly is Load restricted to the connectors whose ids are listed (all
// when only is empty), for checking some definitions while others are
// being written.
func LoadOnly(fsys fs.FS, only []string) (*Catalog, error) {
	files, err := fs.Glob(fsys, "connectors/*.yaml")
	if err != nil {
		return nil, fmt.Errorf("catalog: %w", err)
	}
	sort.Strings(files)
	if len(only) > 0 {
		files = slices.DeleteFunc(files, func(f string) bool {
			return !slices.Contains(only, strings.TrimSuffix(path.Base(f), ".yaml"))
		})
	}
	// Files are decoded and validated (most of it compiling schemas) on
	// every core: serve and each admin command load the whole catalog.
	type loaded struct {
		c    *Connector
		errs []string
	}
	results := make([]loaded, len(files))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(files)) {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(files); i = int(next.Add(1) - 1) {
				c, errs := loadFile(fsys, files[i])
				results[i] = loaded{c, errs}
			}
		})
	}
	wg.Wait()
	var problems []string
	var connectors []*Connector
	for i, r := range results {
		for _, e := range r.errs {
			problems = append(problems, files[i]+": "+e)
		}
		if r.c != nil {
			connectors = append(connectors, r.c)
		}
	}
	cat, errs := newCatalog(connectors)
	problems = append(problems, errs...)
	if len(problems) > 0 {
		return nil, fmt.Errorf("catalog: %d problems:\n  %s", len(problems), strings.Join(problems, "\n  "))
	}
	return cat, nil
}

func loadFile(fsys fs.FS, file string) (*Connector, []string) {
	data, err := fs.ReadFile(fsys, file)
	if err != nil {
		return nil, []string{err.Error()}
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var c Connector
	if err := dec.Decode(&c); err != nil {
		return nil, []string{strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	v := &validator{}
	want := strings.TrimSuffix(path.Base(file), ".yaml")
	if c.ID != want {
		v.add("id", "is %q but the file is named %s.yaml", c.ID, want)
	}
	if _, err := fs.Stat(fsys, "logos/"+c.ID+".svg"); err != nil {
		v.add("logo", "catalog/logos/%s.svg is missing", c.ID)
	}
	v.connector(&c)
	return &c, v.problems
}

// compileSchema compiles a JSON Schema 2020-12 document.
func compileSchema(name string, s Schema) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(s))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "mem:///" + name + ".json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	sch, err := c.Compile(url)
	if err != nil {
		var se *jsonschema.SchemaValidationError
		if errors.As(err, &se) {
			return nil, fmt.Errorf("not a valid JSON Schema: %v", se.Err)
		}
		return nil, err
	}
	return sch, nil
}
