package connect

import (
	"embed"
	"html/template"
)

// Web holds the hosted Connect page: its HTML templates, stylesheet and script.
//
//go:embed web
var Web embed.FS

// Templates are the page (page.html) and the OAuth callback result (callback.html).
var Templates = template.Must(template.ParseFS(Web, "web/*.html"))
