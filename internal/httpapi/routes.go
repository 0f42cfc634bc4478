package httpapi

import "net/http"

// routesV1 registers the authenticated /v1 API. Every route here runs after
// requireAPIKey, so the project is known.
func (s *Server) routesV1(mux *http.ServeMux) {
	_ = mux // The resource routes arrive with the issues that build them.
}

// routesPublic registers the routes that need no API key (SPEC.md 4.9).
func (s *Server) routesPublic(mux *http.ServeMux) {
	s.route(mux, "GET /health", s.handleHealth)
}
