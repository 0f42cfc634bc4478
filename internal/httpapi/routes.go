package httpapi

import (
	"net/http"

	"github.com/switchboard-gw/switchboard/internal/apierr"
)

// routesV1 registers the authenticated /v1 API. Every route here runs after
// requireAPIKey, so the project is known.
func (s *Server) routesV1(mux *http.ServeMux) {
	s.route(mux, "GET /v1/connectors", s.handleConnectorList)
	s.route(mux, "GET /v1/connectors/{id}", s.handleConnectorGet)
	s.route(mux, "GET /v1/tools", s.handleToolList)
	s.route(mux, "POST /v1/tools/execute", s.handleExecute)
	s.route(mux, "POST /v1/tools/proxy", s.handleProxy)
	s.route(mux, "GET /v1/connections", s.handleConnectionList)
	s.route(mux, "POST /v1/connections", s.handleConnectionCreate)
	s.route(mux, "PATCH /v1/connections/{id}", s.handleConnectionPatch)
	s.route(mux, "DELETE /v1/connections/{id}", s.handleConnectionDelete)
	s.route(mux, "POST /v1/connections/{id}/default", s.handleConnectionDefault)
	s.route(mux, "POST /v1/sessions", s.handleSessionCreate)
	s.route(mux, "GET /v1/sessions/{id}", s.handleSessionGet)
	s.route(mux, "GET /v1/sessions/{id}/tools", s.handleSessionTools)
	s.route(mux, "POST /v1/sessions/{id}/tools/{name}", s.handleSessionCall)
	s.routeMCP(mux, "POST /v1/sessions/{id}/mcp", s.handleSessionMCP)
	s.route(mux, "POST /v1/connect-links", s.handleConnectLinkCreate)
	s.routeMCP(mux, "POST /v1/mcp/{slug}/{userId}", s.handleEndpointMCP)
	s.routeMCP(mux, "POST /v1/mcp/{slug}", s.handleEndpointMCP)
	s.route(mux, "GET /v1/triggers", s.handleTriggerList)
	s.route(mux, "POST /v1/triggers", s.handleTriggerCreate)
	s.route(mux, "DELETE /v1/triggers/{id}", s.handleTriggerDelete)
	s.route(mux, "GET /v1/webhooks", s.handleWebhookList)
	s.route(mux, "POST /v1/webhooks", s.handleWebhookCreate)
	s.route(mux, "DELETE /v1/webhooks/{id}", s.handleWebhookDelete)
	s.route(mux, "GET /v1/webhooks/{id}/deliveries", s.handleDeliveryList)
	s.route(mux, "POST /v1/webhooks/{id}/deliveries/{deliveryId}/retry", s.handleDeliveryRetry)
	s.route(mux, "GET /v1/logs", s.handleLogList)
	s.route(mux, "GET /v1/logs/{id}", s.handleLogGet)
	s.route(mux, "GET /v1/policies", s.handlePolicyList)
	s.route(mux, "POST /v1/policies", s.handlePolicyCreate)
	s.route(mux, "PUT /v1/policies/default", s.handlePolicyDefault)
	s.route(mux, "GET /v1/policies/{id}", s.handlePolicyGet)
	s.route(mux, "PUT /v1/policies/{id}", s.handlePolicyUpdate)
	s.route(mux, "DELETE /v1/policies/{id}", s.handlePolicyDelete)
	s.route(mux, "GET /v1/approvals", s.handleApprovalList)
	s.route(mux, "GET /v1/approvals/{id}", s.handleApprovalGet)
	s.route(mux, "POST /v1/approvals/{id}/approve", s.handleApprovalApprove)
	s.route(mux, "POST /v1/approvals/{id}/deny", s.handleApprovalDeny)
	s.route(mux, "GET /v1/quotas", s.handleQuotaList)
	s.route(mux, "POST /v1/quotas", s.handleQuotaCreate)
	s.route(mux, "GET /v1/quotas/{id}", s.handleQuotaGet)
	s.route(mux, "PATCH /v1/quotas/{id}", s.handleQuotaPatch)
	s.route(mux, "DELETE /v1/quotas/{id}", s.handleQuotaDelete)
	s.route(mux, "GET /v1/redaction", s.handleRedactionGet)
	s.route(mux, "PUT /v1/redaction", s.handleRedactionPut)
	s.route(mux, "DELETE /v1/redaction", s.handleRedactionDelete)
}

// routesPublic registers the routes that need no API key (openapi.json: the operations without security).
func (s *Server) routesPublic(mux *http.ServeMux) {
	s.route(mux, "GET /health", s.handleHealth)
	s.route(mux, "GET /ready", s.handleReady)
	s.route(mux, "GET /openapi.json", s.handleOpenAPI)
	s.route(mux, "GET /api/catalog", s.handlePublicCatalog)
	s.route(mux, "GET /api/catalog/{connectorId}", s.handlePublicCatalogGet)
	s.routeBare(mux, "POST /api/triggers/{token}", s.handleTriggerIngress)
	s.route(mux, "GET /connect/{token}", s.handleConnectPage)
	s.route(mux, "GET /connect/static/{file}", s.handleConnectStatic)
	s.route(mux, "GET /api/connect/{token}", s.handleConnectGet)
	s.route(mux, "POST /api/connect/{token}/authorize", s.handleConnectAuthorize)
	s.route(mux, "POST /api/connect/{token}/accounts", s.handleConnectAccounts)
	s.route(mux, "GET /api/connect/{token}/connections", s.handleConnectConnections)
	s.route(mux, "PATCH /api/connect/{token}/connections/{id}", s.handleConnectRename)
	s.route(mux, "DELETE /api/connect/{token}/connections/{id}", s.handleConnectRemove)
	s.route(mux, "OPTIONS /api/connect/", s.handleConnectPreflight)
	s.route(mux, "GET /api/oauth/callback", s.handleOAuthCallback)
	s.route(mux, "GET /approvals/{token}", s.handleApprovalPage)
	s.route(mux, "POST /approvals/{token}", s.handleApprovalPageDecide)
	s.routesAssets(mux, "/assets")
}

// routesMCPHost registers the {mcp_url} host: POST /:slug/:userId and
// POST /:slug, each behind the API key of the slug's project (or an MCP
// access token of the endpoint), and the protected-resource metadata of
// the endpoints with OAuth sign-in. Another method on an endpoint path is
// 405; any other path is 404.
func (s *Server) routesMCPHost(mux *http.ServeMux) {
	inner := http.NewServeMux()
	s.routeMCP(inner, "POST /{slug}/{userId}", s.handleEndpointMCP)
	s.routeMCP(inner, "POST /{slug}", s.handleEndpointMCP)
	mux.Handle("POST /{slug}/{userId}", s.requireCaller(inner, true))
	mux.Handle("POST /{slug}", s.requireCaller(inner, true))
	if s.mcpAuth != nil {
		// The protected-resource metadata of {mcp_url}/:slug (openapi.json
		// describes it with the base host's
		// /.well-known/oauth-protected-resource/v1/mcp/{slug}).
		s.routeWith(mux, "GET /.well-known/oauth-protected-resource/{slug}", s.handleResourceMetadata,
			func(w http.ResponseWriter, r *http.Request, e *apierr.Error) { s.fail(w, r, e) })
	}
	mux.Handle("/", http.HandlerFunc(s.mcpHostFallback))
}

// routesOAuth registers the authorization server of the oauth endpoints
// (docs/mcp-oauth.md) on the base host.
func (s *Server) routesOAuth(mux *http.ServeMux) {
	s.route(mux, "GET /.well-known/oauth-authorization-server", s.handleASMetadata)
	s.route(mux, "GET /.well-known/openid-configuration", s.handleASMetadata)
	s.route(mux, "GET /.well-known/oauth-protected-resource/v1/mcp/{slug}", s.handleResourceMetadata)
	s.route(mux, "OPTIONS /.well-known/", s.handleOAuthPreflight)
	s.route(mux, "POST /oauth/register", s.handleOAuthRegister)
	s.route(mux, "GET /oauth/authorize", s.handleOAuthAuthorize)
	s.route(mux, "POST /oauth/token", s.handleOAuthToken)
	s.route(mux, "POST /oauth/revoke", s.handleOAuthRevoke)
	s.route(mux, "OPTIONS /oauth/", s.handleOAuthPreflight)
	s.route(mux, "GET /oauth/handoff", s.handleOAuthHandoff)
	s.route(mux, "GET /oauth/oidc/callback", s.handleOAuthOIDCCallback)
	s.route(mux, "GET /oauth/consent/{id}", s.handleOAuthConsent)
	s.route(mux, "POST /oauth/consent/{id}", s.handleOAuthDecide)
}

// routesAssets registers the asset keys under prefix: /assets on the base
// host, the root on the assets host.
func (s *Server) routesAssets(mux *http.ServeMux, prefix string) {
	s.route(mux, "GET "+prefix+"/logos/{id}", s.handleLogo)
	s.route(mux, "GET "+prefix+"/projects/{project}/{file}", s.handleProjectAsset)
	s.route(mux, prefix+"/", s.handleAssetMissing)
}
