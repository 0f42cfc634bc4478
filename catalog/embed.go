// Package catalog embeds the built-in connector definitions
// (connectors/<id>.yaml) and their logos (logos/<id>.svg). The format is
// documented in internal/catalog and in catalog/README.md.
package catalog

import "embed"

// FS holds connectors/*.yaml and logos/*.svg.
//
//go:embed connectors/*.yaml logos/*.svg spec-exceptions.yaml data-rule.yaml
var FS embed.FS
