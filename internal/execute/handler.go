package execute

import (
	"net/url"

	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// Handler builds the provider request of a tool whose definition names it,
// for what a request mapping cannot express (a MIME message, a raw upload).
// The executor authenticates and sends what it returns.
type Handler func(tool *catalog.Tool, input map[string]any, base *url.URL) (*outgoing, error)

// builtinHandlers are the handlers tool definitions may name.
func builtinHandlers() map[string]Handler {
	return map[string]Handler{}
}
