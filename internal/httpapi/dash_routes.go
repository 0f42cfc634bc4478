package httpapi

import "net/http"

// routesDashboard registers the dashboard's pages and its JSON backend
// (docs/dashboard.md). One line per route; each screen's handlers are in
// dash_<screen>.go and its template in internal/dashboard/web/<screen>.html.
func (s *Server) routesDashboard(mux *http.ServeMux) {
	// Signing in and out, static files.
	s.route(mux, "GET /dashboard", s.handleDashHome)
	s.route(mux, "GET /dashboard/{$}", s.handleDashHome)
	s.route(mux, "GET /dashboard/static/{file}", s.handleDashStatic)
	s.route(mux, "GET /dashboard/signin", s.handleDashSigninPage)
	s.route(mux, "POST /dashboard/signin", s.handleDashSignin)
	s.route(mux, "GET /dashboard/signin/link/{token}", s.handleDashLinkPage)
	s.route(mux, "POST /dashboard/signin/link/{token}", s.handleDashLink)
	s.route(mux, "POST /dashboard/signout", s.dashPage(s.handleDashSignout))
	s.route(mux, "GET /dashboard/switch", s.dashPage(s.handleDashSwitch))

	// Screens.
	s.route(mux, "GET /dashboard/projects", s.dashPage(s.handleDashProjects))
	s.route(mux, "POST /dashboard/projects", s.dashPage(s.handleDashProjectCreate))
	s.route(mux, "POST /dashboard/projects/{project}/rename", s.dashPage(s.handleDashProjectRename))
	s.route(mux, "GET /dashboard/p/{project}/keys", s.dashPage(s.handleDashKeys))
	s.route(mux, "POST /dashboard/p/{project}/keys", s.dashPage(s.handleDashKeyCreate))
	s.route(mux, "POST /dashboard/p/{project}/keys/{id}/revoke", s.dashPage(s.handleDashKeyRevoke))
	s.route(mux, "GET /dashboard/p/{project}/endpoints", s.dashPage(s.handleDashEndpoints))
	s.route(mux, "POST /dashboard/p/{project}/endpoints", s.dashPage(s.handleDashEndpointCreate))
	s.route(mux, "GET /dashboard/p/{project}/endpoints/{slug}", s.dashPage(s.handleDashEndpointEdit))
	s.route(mux, "POST /dashboard/p/{project}/endpoints/{slug}", s.dashPage(s.handleDashEndpointUpdate))
	s.route(mux, "POST /dashboard/p/{project}/endpoints/{slug}/delete", s.dashPage(s.handleDashEndpointDelete))
	s.route(mux, "GET /dashboard/p/{project}/catalog", s.dashPage(s.handleDashCatalog))
	s.route(mux, "GET /dashboard/p/{project}/catalog/{connector}", s.dashPage(s.handleDashConnector))
	s.route(mux, "POST /dashboard/p/{project}/catalog/{connector}/tools", s.dashPage(s.handleDashToolSwitch))
	s.route(mux, "GET /dashboard/p/{project}/authconfigs", s.dashPage(s.handleDashAuthConfigs))
	s.route(mux, "POST /dashboard/p/{project}/authconfigs", s.dashPage(s.handleDashAuthConfigCreate))
	s.route(mux, "POST /dashboard/p/{project}/authconfigs/{id}/delete", s.dashPage(s.handleDashAuthConfigDelete))
	s.route(mux, "GET /dashboard/p/{project}/operators", s.dashPage(s.handleDashOperators))
	s.route(mux, "POST /dashboard/p/{project}/operators", s.dashPage(s.handleDashOperatorAdd))
	s.route(mux, "POST /dashboard/p/{project}/operators/{id}/role", s.dashPage(s.handleDashOperatorRole))
	s.route(mux, "POST /dashboard/p/{project}/operators/{id}/remove", s.dashPage(s.handleDashOperatorRemove))

	// The JSON backend.
	s.route(mux, "GET /api/dashboard/me", s.dashAPI(s.handleDashAPIMe))
	s.route(mux, "GET /api/dashboard/projects/{project}/keys", s.dashAPI(s.handleDashAPIKeys))
	s.route(mux, "POST /api/dashboard/projects/{project}/keys", s.dashAPI(s.handleDashAPIKeyCreate))
	s.route(mux, "POST /api/dashboard/projects/{project}/keys/{id}/revoke", s.dashAPI(s.handleDashAPIKeyRevoke))
}
