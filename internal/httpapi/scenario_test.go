package httpapi

import (
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// Scenario is one request to the real router, on a fresh fixture, and what
// its answer must be. The fields left zero are not checked.
type Scenario struct {
	Name   string
	Method string
	Path   string
	Body   string
	// Auth is the Authorization header: empty sends the fixture's API key
	// as a bearer token, NoAuth sends none, anything else is sent as given
	// with {key} replaced by the fixture's API key.
	Auth   string
	Header map[string]string
	Status int
	// Code is the error envelope's code.
	Code string
	// Issues are the paths of the error's issues, each joined with ".", in
	// order.
	Issues []string
	// JSON maps dotted paths into the decoded answer (catalog.SelectPath)
	// to the values they must hold, as encoding/json decodes them (numbers
	// are float64).
	JSON map[string]any
	// Before prepares the fixture and returns the path to request instead
	// of Path (one with an id it created), or "" to keep Path.
	Before func(t *testing.T, f *fixture) string
	// After checks what the table cannot say.
	After func(t *testing.T, f *fixture, r response)
}

// NoAuth sends a scenario without an Authorization header.
const NoAuth = "-"

// runScenarios runs every scenario as a parallel subtest on its own fixture
// over each database of dbs.
func runScenarios(t *testing.T, scenarios []Scenario, dbs ...database) {
	t.Helper()
	if len(dbs) == 0 {
		dbs = []database{sqliteDB}
	}
	for i, db := range dbs {
		name := [...]string{"sqlite", "postgres"}[min(i, 1)]
		if len(dbs) == 1 {
			name = ""
		}
		for _, sc := range scenarios {
			t.Run(strings.TrimPrefix(name+"/"+sc.Name, "/"), func(t *testing.T) {
				t.Parallel()
				sc.run(t, setupOn(t, db))
			})
		}
	}
}

// bothDatabases are the databases a scenario table runs on to hold on both.
var bothDatabases = []database{sqliteDB, postgresDB}

func (sc Scenario) run(t *testing.T, f *fixture) {
	t.Helper()
	if sc.Before != nil {
		sc.Path = cmp.Or(sc.Before(t, f), sc.Path)
	}
	var auth string
	switch sc.Auth {
	case "":
		auth = "Bearer " + f.key
	case NoAuth:
	default:
		auth = strings.ReplaceAll(sc.Auth, "{key}", f.key)
	}
	var hdr []string
	for k, v := range sc.Header {
		hdr = append(hdr, k, v)
	}
	r := f.do(f.h, sc.Method, sc.Path, auth, sc.Body, hdr...)
	if sc.Status != 0 && r.status != sc.Status {
		t.Fatalf("%s %s: status %d, want %d: %s", sc.Method, sc.Path, r.status, sc.Status, r.body)
	}
	if sc.Code != "" {
		if got := errorCode(t, r); got != sc.Code {
			t.Fatalf("%s %s: code %s, want %s: %s", sc.Method, sc.Path, got, sc.Code, r.body)
		}
	}
	if sc.Issues != nil || sc.JSON != nil {
		var v any
		if err := json.Unmarshal(r.body, &v); err != nil {
			t.Fatalf("%s %s: answer is not JSON: %q", sc.Method, sc.Path, r.body)
		}
		if sc.Issues != nil {
			if got := issuePaths(v); !reflect.DeepEqual(got, sc.Issues) {
				t.Fatalf("%s %s: issues at %v, want %v: %s", sc.Method, sc.Path, got, sc.Issues, r.body)
			}
		}
		for path, want := range sc.JSON {
			if got := catalog.SelectPath(v, path); !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s: %s is %#v, want %#v", sc.Method, sc.Path, path, got, want)
			}
		}
	}
	if sc.After != nil {
		sc.After(t, f, r)
	}
}

// issuePaths lists an error envelope's issue paths, each joined with ".".
func issuePaths(v any) []string {
	issues, _ := catalog.SelectPath(v, "error.issues").([]any)
	out := []string{}
	for _, is := range issues {
		parts, _ := catalog.SelectPath(is, "path").([]any)
		s := make([]string, len(parts))
		for i, p := range parts {
			s[i] = fmt.Sprint(p)
		}
		out = append(out, strings.Join(s, "."))
	}
	return out
}
