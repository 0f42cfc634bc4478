// Package httpapi serves Switchboard over HTTP: the authenticated /v1 REST
// API, the public routes, and the listeners of the MCP and assets hosts.
// Handlers are thin: they decode, validate, call a feature package and
// respond; errors travel back as values and one function writes them.
package httpapi

import (
	"io/fs"
	"log/slog"
	"net/http"
	"time"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/connect"
	"github.com/switchboard-gw/switchboard/internal/execlog"
	"github.com/switchboard-gw/switchboard/internal/execute"
	"github.com/switchboard-gw/switchboard/internal/mcpauth"
	"github.com/switchboard-gw/switchboard/internal/mcpserver"
	"github.com/switchboard-gw/switchboard/internal/netguard"
	"github.com/switchboard-gw/switchboard/internal/operator"
	"github.com/switchboard-gw/switchboard/internal/policy"
	"github.com/switchboard-gw/switchboard/internal/quota"
	"github.com/switchboard-gw/switchboard/internal/redact"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/session"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/telemetry"
	"github.com/switchboard-gw/switchboard/internal/trigger"
	"github.com/switchboard-gw/switchboard/internal/upstream"
	"github.com/switchboard-gw/switchboard/internal/webhook"
)

// Options configure a Server.
type Options struct {
	Store   *store.Store
	Logger  *slog.Logger
	Catalog *catalog.Catalog
	// Catalogs builds the tenant of each request: its project's catalog with
	// its own connectors, and its versions (required).
	Catalogs *upstream.Catalogs
	// Accounts and Executor are the connection and execution services.
	Accounts *account.Service
	Executor *execute.Executor
	// Sessions, MCP and Links serve sessions, their MCP servers and connect links.
	Sessions *session.Service
	MCP      *mcpserver.Server
	Links    *connect.Service
	// Page is the hosted Connect page's backend.
	Page *connect.Page
	// MCPAuth is the authorization server of the oauth endpoints.
	MCPAuth *mcpauth.Service
	// Triggers and Webhooks serve triggers, their ingress and webhook endpoints.
	Triggers *trigger.Service
	Webhooks *webhook.Service
	// ExecLog records tool calls (execute, proxy); nil records nothing.
	ExecLog *execlog.Log
	// Policies holds policy rules and approvals.
	Policies *policy.Service
	// Quotas and Redact keep the projects' quotas and redaction rules.
	Quotas *quota.Service
	Redact *redact.Service
	// Operators signs operators in to the dashboard; nil makes one on
	// Store with the default settings.
	Operators *operator.Service
	// Logos holds logos/<connector id>.svg.
	Logos fs.FS
	// Guard is the outbound guard; the dashboard fetches OpenAPI documents
	// by URL through it (nil: fetching by URL is off).
	Guard *netguard.Guard
	// Keyring seals an MCP server's headers added from the dashboard.
	Keyring *secret.Keyring
	// BaseURL, WebURL and AssetsURL are the public addresses of {base_url},
	// {web_url} and {assets_url}.
	BaseURL   string
	WebURL    string
	AssetsURL string
	// MCPURL is {mcp_url}: the protected-resource metadata and the
	// endpoints' URLs the dashboard shows.
	MCPURL string
	// MaxBodyBytes bounds a request body; 0 means 1 MiB.
	MaxBodyBytes int64
	// BodyReadTimeout bounds how long a request body may take to arrive,
	// counted from the start of the handler; 0 means 30 seconds.
	BodyReadTimeout time.Duration
	// Metrics counts requests by route pattern and status class; Tracer
	// makes a span per request. nil turns each off.
	Metrics *telemetry.Metrics
	Tracer  *telemetry.Tracer
}

// Server holds what every handler needs.
type Server struct {
	store     *store.Store
	log       *slog.Logger
	catalog   *catalog.Catalog
	catalogs  *upstream.Catalogs
	accounts  *account.Service
	executor  *execute.Executor
	sessions  *session.Service
	mcp       *mcpserver.Server
	links     *connect.Service
	page      *connect.Page
	mcpAuth   *mcpauth.Service
	triggers  *trigger.Service
	webhooks  *webhook.Service
	execlog   *execlog.Log
	policies  *policy.Service
	quotas    *quota.Service
	redact    *redact.Service
	operators *operator.Service
	logos     fs.FS
	guard     *netguard.Guard
	keyring   *secret.Keyring
	baseURL   string
	webURL    string
	assetsURL string
	mcpURL    string
	maxBody   int64
	// bodyReadTimeout is Options.BodyReadTimeout.
	bodyReadTimeout time.Duration
	metrics         *telemetry.Metrics
	tracer          *telemetry.Tracer
	// unmatched counts the requests no route took.
	unmatched *telemetry.Route
}

// New returns a Server.
func New(o Options) *Server {
	s := &Server{
		store: o.Store, log: o.Logger, catalog: o.Catalog, catalogs: o.Catalogs, accounts: o.Accounts, executor: o.Executor,
		sessions: o.Sessions, mcp: o.MCP, links: o.Links, page: o.Page, mcpAuth: o.MCPAuth, mcpURL: o.MCPURL,
		triggers: o.Triggers, webhooks: o.Webhooks, execlog: o.ExecLog, policies: o.Policies, quotas: o.Quotas, redact: o.Redact, operators: o.Operators, logos: o.Logos, guard: o.Guard, keyring: o.Keyring,
		baseURL: o.BaseURL, webURL: o.WebURL, assetsURL: o.AssetsURL,
		maxBody: o.MaxBodyBytes, bodyReadTimeout: o.BodyReadTimeout,
		metrics: o.Metrics, tracer: o.Tracer, unmatched: o.Metrics.Route(telemetry.Unmatched),
	}
	if s.bodyReadTimeout <= 0 {
		s.bodyReadTimeout = 30 * time.Second
	}
	if s.maxBody <= 0 {
		s.maxBody = 1 << 20
	}
	if s.assetsURL == "" {
		s.assetsURL = s.baseURL + "/assets"
	}
	if s.operators == nil {
		s.operators = operator.NewService(operator.Options{Store: o.Store})
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	return s
}

// handlerFunc is a handler that returns its error for fail to write.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// route registers h on mux under pattern, recording the pattern for the
// access log (which never logs raw paths: some carry tokens). A path or
// query value that is not valid text is answered before h runs (text.go).
func (s *Server) route(mux *http.ServeMux, pattern string, h handlerFunc) {
	s.routeWith(mux, pattern, func(w http.ResponseWriter, r *http.Request) error {
		// An MCP token opens its MCP URL only (mcpoauth_bearer.go).
		if _, ok := grantOf(r); ok {
			s.unauthorized(w, r, apierr.New(apierr.Unauthorized, "an MCP access token is good for its MCP URL only: use an API key for this route"), true)
			return nil
		}
		return h(w, r)
	}, func(w http.ResponseWriter, r *http.Request, e *apierr.Error) { s.fail(w, r, e) })
}

// routeMCP registers an MCP route, whose callers read JSON-RPC errors.
func (s *Server) routeMCP(mux *http.ServeMux, pattern string, h handlerFunc) {
	s.routeWith(mux, pattern, h, func(w http.ResponseWriter, r *http.Request, e *apierr.Error) {
		code := -32602 // invalid params
		if e.HTTPStatus() == http.StatusNotFound {
			code = -32001
		}
		writeJSONRPCError(w, r, e.HTTPStatus(), code, e.Message)
	})
}

// routeBare registers a route whose answers carry no body (trigger ingress).
func (s *Server) routeBare(mux *http.ServeMux, pattern string, h handlerFunc) {
	s.routeWith(mux, pattern, h, func(w http.ResponseWriter, _ *http.Request, e *apierr.Error) {
		w.WriteHeader(e.HTTPStatus())
	})
}

// routeWith registers h, answering text that is not valid with badText.
func (s *Server) routeWith(mux *http.ServeMux, pattern string, h handlerFunc, badText func(http.ResponseWriter, *http.Request, *apierr.Error)) {
	params := pathParams(pattern)
	series := s.metrics.Route(pattern)
	mux.Handle(pattern, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if info := infoFrom(r.Context()); info != nil {
			info.route = r.Pattern
			info.series = series
		}
		if e := checkRequestText(r, params); e != nil {
			badText(w, r, e)
			return
		}
		if err := h(w, r); err != nil {
			s.fail(w, r, err)
		}
	}))
}

// Handler returns the handler of the base listener: /v1, /health, /api,
// /assets and, while {web_url} shares it, the Connect page.
func (s *Server) Handler() http.Handler {
	v1 := http.NewServeMux()
	s.routesV1(v1)
	v1.Handle("/v1/", s.fallback(v1, "/v1/"))
	v1.Handle("/v1", s.fallback(v1, "/v1"))

	root := http.NewServeMux()
	s.routesPublic(root)
	if s.mcpAuth != nil {
		s.routesOAuth(root)
	}
	s.routesDashboard(root)
	root.Handle("/v1/", s.requireAPIKey(v1))
	root.Handle("/v1", s.requireAPIKey(v1))
	root.Handle("/", s.fallback(root, "/"))
	return s.instrument(root)
}

// MCPHandler returns the handler of the {mcp_url} listener. It serves
// /:slug/:userId (and /:slug for the default user) only, with the API key
// of the slug's project; every other path answers 404.
func (s *Server) MCPHandler() http.Handler {
	mux := http.NewServeMux()
	s.routesMCPHost(mux)
	return s.instrument(mux)
}

// AssetsHandler returns the handler of the optional {assets_url} listener,
// which serves the asset keys at its root.
func (s *Server) AssetsHandler() http.Handler {
	mux := http.NewServeMux()
	s.routesAssets(mux, "")
	return s.instrument(mux)
}
