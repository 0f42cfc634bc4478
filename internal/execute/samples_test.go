package execute

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"go.yaml.in/yaml/v3"

	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// sampleResponse is a provider's answer to one built-in tool, written from
// the provider's API reference (testdata/responses/<connector>.yaml, keyed
// by tool id). It is the provider's body, not the tool's result: a tool
// with request.response selects its part of it. A sample carries more than
// the tool's outputSchema names, as the provider's answers do.
type sampleResponse struct {
	// Status is the HTTP status, 200 when left out (204 for no content).
	Status int `yaml:"status"`
	// Body is the JSON answer; Text a non-JSON one.
	Body        any    `yaml:"body"`
	Text        string `yaml:"text"`
	ContentType string `yaml:"contentType"`

	raw []byte
}

func (s *sampleResponse) status() int {
	if s.Status == 0 {
		return 200
	}
	return s.Status
}

// loadSamples reads every testdata/responses file.
func loadSamples(t *testing.T) map[string]*sampleResponse {
	t.Helper()
	files, err := filepath.Glob("testdata/responses/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*sampleResponse{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]*sampleResponse
		dec := yaml.NewDecoder(bytes.NewReader(b))
		dec.KnownFields(true)
		if err := dec.Decode(&m); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		connector := strings.TrimSuffix(filepath.Base(f), ".yaml")
		for id, s := range m {
			if !strings.HasPrefix(id, connector+"_") {
				t.Errorf("%s: %s is not a tool of %s", f, id, connector)
			}
			if _, dup := out[id]; dup {
				t.Errorf("%s: %s twice", f, id)
			}
			switch {
			case s.Text != "":
				s.raw = []byte(s.Text)
				if s.ContentType == "" {
					s.ContentType = "text/plain"
				}
			case s.Body != nil:
				if s.raw, err = json.Marshal(s.Body); err != nil {
					t.Fatalf("%s: %s: %v", f, id, err)
				}
			}
			out[id] = s
		}
	}
	return out
}

// checkOutput validates a tool's result against its outputSchema, and holds
// the schema to the sample: every property it names occurs in the result,
// so that a schema cannot describe fields the provider does not send.
func checkOutput(tool *catalog.Tool, result any) error {
	raw, err := json.Marshal(result)
	if err != nil {
		return err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	sch, err := compileOutput(tool)
	if err != nil {
		return err
	}
	if err := sch.Validate(doc); err != nil {
		return fmt.Errorf("the result does not match the outputSchema: %v", err)
	}
	var schema any
	if err := json.Unmarshal(tool.OutputSchema, &schema); err != nil {
		return err
	}
	var missing []string
	unseenFields(schema, []any{doc}, "", &missing)
	if len(missing) > 0 {
		sort.Strings(missing)
		return fmt.Errorf("the outputSchema names fields the sample response never has: %s", strings.Join(missing, ", "))
	}
	return nil
}

func compileOutput(tool *catalog.Tool) (*jsonschema.Schema, error) {
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(tool.OutputSchema))
	if err != nil {
		return nil, err
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "mem:///" + tool.ID + "/output.json"
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// unseenFields collects the properties of schema that none of the values
// carries, walking objects, arrays and anyOf/oneOf branches.
func unseenFields(schema any, values []any, at string, missing *[]string) {
	s, ok := schema.(map[string]any)
	if !ok {
		return
	}
	// anyOf and oneOf branches are alternatives one sample need not show.
	if list, ok := s["allOf"].([]any); ok {
		for _, sub := range list {
			unseenFields(sub, values, at, missing)
		}
	}
	if props, ok := s["properties"].(map[string]any); ok {
		for name, sub := range props {
			var children []any
			for _, v := range values {
				if m, ok := v.(map[string]any); ok {
					if c, ok := m[name]; ok {
						children = append(children, c)
					}
				}
			}
			objects := 0
			for _, v := range values {
				if _, ok := v.(map[string]any); ok {
					objects++
				}
			}
			if objects > 0 && len(children) == 0 {
				*missing = append(*missing, at+"/"+name)
				continue
			}
			unseenFields(sub, children, at+"/"+name, missing)
		}
	}
	if sub, ok := s["additionalProperties"].(map[string]any); ok {
		// A map: every value of every object is one of its entries.
		var entries []any
		for _, v := range values {
			if m, ok := v.(map[string]any); ok {
				for _, e := range m {
					entries = append(entries, e)
				}
			}
		}
		unseenFields(sub, entries, at+"/*", missing)
	}
	if items, ok := s["items"]; ok {
		var elems []any
		lists := 0
		for _, v := range values {
			if list, ok := v.([]any); ok {
				lists++
				elems = append(elems, list...)
			}
		}
		if sub, _ := items.(map[string]any); lists > 0 && len(elems) == 0 && sub["properties"] != nil {
			*missing = append(*missing, at+"/items (every list in the sample is empty)")
			return
		}
		unseenFields(items, elems, at+"/items", missing)
	}
}

// sampleResult is what the executor makes of a sample answer, for a tool
// this test cannot run with its auth method.
func sampleResult(tool *catalog.Tool, s *sampleResponse) any {
	r, err := toolResult(tool, &response{Status: s.status(), ContentType: s.ContentType, Body: s.raw})
	if err != nil {
		return err.Error()
	}
	return r
}

// secretKeys finds, in a result, members named like a credential
// (auth_token, client_secret, private_key, …) and returns their paths.
func secretKeys(v any, at string, allowed map[string]bool, found *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			// A flag (Calendly's secret event types, Dropbox's
			// require_password) or an empty placeholder is no credential.
			if str, ok := e.(string); ok && str != "" && secretName(k) && !allowed[at+"/"+k] {
				*found = append(*found, at+"/"+k)
			}
			secretKeys(e, at+"/"+k, allowed, found)
		}
	case []any:
		for _, e := range x {
			secretKeys(e, at+"/*", allowed, found)
		}
	}
}

func secretName(k string) bool {
	n := strings.NewReplacer("_", "", "-", "").Replace(strings.ToLower(k))
	switch n {
	case "authtoken", "accesstoken", "refreshtoken", "idtoken", "clientsecret", "password", "apikey", "apisecret",
		"secret", "privatekey", "secretkey", "signingsecret", "webhooksecret", "sessiontoken":
		return true
	}
	return strings.HasSuffix(n, "secret") || strings.HasSuffix(n, "password")
}

// meetingPasscodes are a Zoom meeting's passcode in its forms for the
// app, phone and H.323 joiners: the host shares it with the invitees, and
// an agent that schedules a meeting passes it on; it opens no account.
var meetingPasscodes = map[string]bool{"/password": true, "/h323_password": true, "/pstn_password": true, "/encrypted_password": true}
