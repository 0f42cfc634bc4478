package httpapi

import (
	"net/http"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/session"
)

// probeMethods are the methods a 405 answer may list in Allow.
var probeMethods = []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete}

// fallback answers what no route of mux matched: 405 with Allow when the
// path is a route under other methods, else 404 NOT_FOUND. It is registered
// on mux under catchAll, the pattern that reaches it.
func (s *Server) fallback(mux *http.ServeMux, catchAll string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var allow []string
		probe := new(http.Request)
		for _, m := range probeMethods {
			*probe = *r
			probe.Method = m
			if _, pattern := mux.Handler(probe); pattern != "" && pattern != catchAll {
				allow = append(allow, m)
			}
		}
		if len(allow) > 0 {
			w.Header().Set("Allow", strings.Join(allow, ", "))
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		s.fail(w, r, apierr.New(apierr.NotFound, "no route %s %s: check the method and the path", r.Method, r.URL.Path))
	})
}

// mcpHostFallback answers the {mcp_url} host's paths that no route takes:
// another method on an endpoint path is 405, any other path 404.
func (s *Server) mcpHostFallback(w http.ResponseWriter, r *http.Request) {
	if mcpPath(r.URL.EscapedPath()) {
		w.Header().Set("Allow", http.MethodPost)
		w.WriteHeader(http.StatusMethodNotAllowed)
		return
	}
	s.fail(w, r, apierr.New(apierr.NotFound, "the MCP host serves POST /<slug>/<userId> only"))
}

// mcpPath reports whether an escaped path is one of the MCP host's:
// /<slug> or /<slug>/<userId>.
func mcpPath(p string) bool {
	rest, ok := strings.CutPrefix(p, "/")
	if !ok {
		return false
	}
	slug, user, hasUser := strings.Cut(rest, "/")
	return session.ValidSlug(slug) && (!hasUser || (user != "" && !strings.Contains(user, "/")))
}
