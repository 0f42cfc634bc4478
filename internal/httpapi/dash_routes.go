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

	// Part 2 (operations): execution log, approvals and policies, webhooks,
	// end users, Connect, triggers, sessions, own connectors.
	s.route(mux, "GET /dashboard/p/{project}/logs", s.dashPage(s.handleDashLogs))
	s.route(mux, "GET /dashboard/p/{project}/logs/{id}", s.dashPage(s.handleDashLog))
	s.route(mux, "GET /dashboard/p/{project}/approvals", s.dashPage(s.handleDashApprovals))
	s.route(mux, "POST /dashboard/p/{project}/approvals/{id}/approve", s.dashPage(s.handleDashApprovalApprove))
	s.route(mux, "POST /dashboard/p/{project}/approvals/{id}/deny", s.dashPage(s.handleDashApprovalDeny))
	s.route(mux, "POST /dashboard/p/{project}/policies", s.dashPage(s.handleDashPolicyCreate))
	s.route(mux, "POST /dashboard/p/{project}/policies/default", s.dashPage(s.handleDashPolicyDefault))
	s.route(mux, "POST /dashboard/p/{project}/policies/{id}/delete", s.dashPage(s.handleDashPolicyDelete))
	s.route(mux, "GET /dashboard/p/{project}/webhooks", s.dashPage(s.handleDashWebhooks))
	s.route(mux, "POST /dashboard/p/{project}/webhooks", s.dashPage(s.handleDashWebhookCreate))
	s.route(mux, "GET /dashboard/p/{project}/webhooks/{id}", s.dashPage(s.handleDashWebhook))
	s.route(mux, "POST /dashboard/p/{project}/webhooks/{id}/delete", s.dashPage(s.handleDashWebhookDelete))
	s.route(mux, "POST /dashboard/p/{project}/webhooks/{id}/test", s.dashPage(s.handleDashWebhookTest))
	s.route(mux, "POST /dashboard/p/{project}/webhooks/{id}/deliveries/{delivery}/retry", s.dashPage(s.handleDashDeliveryRetry))
	s.route(mux, "GET /dashboard/p/{project}/users", s.dashPage(s.handleDashUsers))
	s.route(mux, "POST /dashboard/p/{project}/users/accounts/{id}/rename", s.dashPage(s.handleDashAccountRename))
	s.route(mux, "POST /dashboard/p/{project}/users/accounts/{id}/default", s.dashPage(s.handleDashAccountDefault))
	s.route(mux, "POST /dashboard/p/{project}/users/accounts/{id}/delete", s.dashPage(s.handleDashAccountDelete))
	s.route(mux, "POST /dashboard/p/{project}/users/accounts/{id}/allow", s.dashPage(s.handleDashGlobalAllow))
	s.route(mux, "GET /dashboard/p/{project}/connect", s.dashPage(s.handleDashConnect))
	s.route(mux, "POST /dashboard/p/{project}/connect/links", s.dashPage(s.handleDashConnectLink))
	s.route(mux, "POST /dashboard/p/{project}/connect/settings", s.dashPage(s.handleDashConnectSettings))
	s.route(mux, "GET /dashboard/p/{project}/triggers", s.dashPage(s.handleDashTriggers))
	s.route(mux, "POST /dashboard/p/{project}/triggers/{id}/delete", s.dashPage(s.handleDashTriggerDelete))
	s.route(mux, "GET /dashboard/p/{project}/sessions", s.dashPage(s.handleDashSessions))
	s.route(mux, "GET /dashboard/p/{project}/connectors", s.dashPage(s.handleDashConnectors))
	s.route(mux, "POST /dashboard/p/{project}/connectors/openapi", s.dashPage(s.handleDashOpenAPIImport))
	s.route(mux, "POST /dashboard/p/{project}/connectors/{id}/remove", s.dashPage(s.handleDashConnectorRemove))
	s.route(mux, "POST /dashboard/p/{project}/connectors/mcp", s.dashPage(s.handleDashMCPAdd))
	s.route(mux, "POST /dashboard/p/{project}/connectors/{id}/refresh", s.dashPage(s.handleDashMCPAdd))

	// The JSON backend.
	s.route(mux, "GET /api/dashboard/me", s.dashAPI(s.handleDashAPIMe))
	s.route(mux, "GET /api/dashboard/projects/{project}/keys", s.dashAPI(s.handleDashAPIKeys))
	s.route(mux, "POST /api/dashboard/projects/{project}/keys", s.dashAPI(s.handleDashAPIKeyCreate))
	s.route(mux, "POST /api/dashboard/projects/{project}/keys/{id}/revoke", s.dashAPI(s.handleDashAPIKeyRevoke))
}
