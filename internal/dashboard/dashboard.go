// Package dashboard holds the operator dashboard's templates and static
// files (embedded) and renders its pages. The handlers live in
// internal/httpapi (dash_*.go), one file per screen; each screen's
// template is web/<screen>.html, executed inside web/layout.html.
package dashboard

import (
	"bytes"
	"embed"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// Web holds the templates and the static files (web/static).
//
//go:embed web
var Web embed.FS

// View is what every page template gets: the layout reads the operator,
// the projects and the current project; a screen reads Data.
type View struct {
	Title string
	// Email is the signed-in operator's (empty on the sign-in pages).
	Email string
	// CSRF is the session's token for the hidden csrf field of every form.
	CSRF string
	// Projects are the operator's projects; Project the current one (its
	// ProjectID is empty on pages outside a project) and Screen the
	// current screen's name, for the navigation.
	Projects []store.OperatorProject
	Project  store.OperatorProject
	Screen   string
	// Flash is a message from the previous request (after a redirect),
	// Error a problem with what was just submitted.
	Flash, Error string
	Data         any
}

// Owner reports whether the operator owns the current project.
func (v View) Owner() bool { return v.Project.Role == store.RoleOwner }

var funcs = template.FuncMap{
	"when": func(t any) string {
		switch v := t.(type) {
		case time.Time:
			if v.IsZero() {
				return "never"
			}
			return v.UTC().Format("2006-01-02 15:04 UTC")
		case *time.Time:
			if v == nil {
				return "never"
			}
			return v.UTC().Format("2006-01-02 15:04 UTC")
		}
		return fmt.Sprint(t)
	},
	"join": strings.Join,
	// dict makes a map of key, value pairs, to pass several values to a
	// shared part ({{template "copyfield" dict "ID" … "Label" … "Value" …}}).
	"dict": func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i+1 < len(kv); i += 2 {
			m[fmt.Sprint(kv[i])] = kv[i+1]
		}
		return m
	},
}

var (
	mu    sync.Mutex
	pages = map[string]*template.Template{}
)

// page returns the parsed template set of a screen: the layout, the
// shared parts (web/parts/*.html, each a {{define}} several screens use)
// and web/<name>.html.
func page(name string) (*template.Template, error) {
	mu.Lock()
	defer mu.Unlock()
	if t, ok := pages[name]; ok {
		return t, nil
	}
	t, err := template.New("layout.html").Funcs(funcs).ParseFS(Web, "web/layout.html", "web/parts/*.html", "web/"+name+".html")
	if err != nil {
		return nil, err
	}
	pages[name] = t
	return t, nil
}

// Render writes the page of a screen: web/<name>.html inside the layout.
// The page is executed into a buffer first, so a template error writes
// nothing.
func Render(w io.Writer, name string, v View) error {
	t, err := page(name)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := t.Execute(&buf, v); err != nil {
		return err
	}
	_, err = w.Write(buf.Bytes())
	return err
}

// Static returns a static file (web/static/<name>) and its content type.
func Static(name string) ([]byte, string, error) {
	name = path.Base(name)
	data, err := fs.ReadFile(Web, "web/static/"+name)
	if err != nil {
		return nil, "", err
	}
	switch path.Ext(name) {
	case ".css":
		return data, "text/css; charset=utf-8", nil
	case ".js":
		return data, "text/javascript; charset=utf-8", nil
	case ".svg":
		return data, "image/svg+xml", nil
	}
	return nil, "", fs.ErrNotExist
}
