// Package app builds Switchboard's object graph in one place. New calls
// every constructor (store, key ring, catalog, outbound guard, the feature
// services, the MCP server and the HTTP API); Run supervises the background
// jobs and the listeners; Close shuts everything down in one written order.
// `switchboard serve` and the HTTP API tests build the application here, so
// they run the same wiring; the benchmark runs the serve binary itself.
//
// Dependencies point one way: app imports the feature packages and httpapi,
// nothing imports app but cli and tests.
package app

import (
	"cmp"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io/fs"
	"log/slog"
	"net/netip"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	builtin "github.com/switchboard-gw/switchboard/catalog"
	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/config"
	"github.com/switchboard-gw/switchboard/internal/connect"
	"github.com/switchboard-gw/switchboard/internal/execlog"
	"github.com/switchboard-gw/switchboard/internal/execute"
	"github.com/switchboard-gw/switchboard/internal/httpapi"
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

// Options are what a caller other than the configuration decides. The zero
// value is production: the system clock, resolver and TLS roots, the
// built-in catalog, no loopback, a discarded log.
type Options struct {
	// Logger receives every log line; nil discards them.
	Logger *slog.Logger
	// Now is the clock of the store and every service; nil means time.Now.
	Now func() time.Time
	// CatalogFS holds connectors/<id>.yaml and logos/<id>.svg; nil means
	// the built-in catalog.
	CatalogFS fs.FS
	// AllowLoopback lets outbound requests of every purpose reach
	// 127.0.0.1 and ::1, where tests run fake providers.
	AllowLoopback bool
	// RootCAs, when set, are the only TLS roots outbound requests trust
	// (the certificates of fake providers).
	RootCAs *x509.CertPool
	// LookupFunc resolves host names where a URL is checked before any
	// request (webhook registration); nil uses the system resolver.
	LookupFunc func(ctx context.Context, host string) ([]netip.Addr, error)
	// OnListen, when set, is told each listener's name ("base", "mcp",
	// "assets") and bound address once Run is listening.
	OnListen func(name, addr string)
	// MaxConns bounds the database pool; 0 takes the configuration's
	// (SWITCHBOARD_DATABASE_MAX_CONNS), or the store's default.
	MaxConns int
	// Metrics turns the metrics on without a metrics listener (tests read
	// App.Metrics directly); SWITCHBOARD_METRICS_ADDR turns them on too.
	Metrics bool
	// TracerProvider, when set, receives the spans instead of the OTLP
	// exporter the configuration would start (a test's in-memory
	// exporter), and turns tracing on.
	TracerProvider trace.TracerProvider
	// ExecLog tunes the execution log's queue (tests make it small or
	// slow); its Store, Logger and Now are the application's.
	ExecLog execlog.Options
}

// App is the built application. Its fields are the parts, for the tests to
// set up data with; only New assigns them.
type App struct {
	// Config is the configuration the application was built from.
	Config *config.Config
	// Logger is the application's log.
	Logger *slog.Logger
	// Store is the migrated database.
	Store *store.Store
	// Keyring seals and opens stored secrets; it passed sealed.Check.
	Keyring *secret.Keyring
	// Catalog holds the built-in (or given) connectors; Catalogs adds each
	// project's own connectors to it.
	Catalog  *catalog.Catalog
	Catalogs *upstream.Catalogs
	// Guard is the outbound guard every outbound request goes through.
	Guard *netguard.Guard
	// Accounts, Executor, Sessions, Links, Page, Triggers and Webhooks are
	// the feature services.
	Accounts *account.Service
	Executor *execute.Executor
	Sessions *session.Service
	Links    *connect.Service
	Page     *connect.Page
	Triggers *trigger.Service
	Webhooks *webhook.Service
	// Policies holds the projects' policy rules and approvals.
	Policies *policy.Service
	// Worker delivers webhooks; Poller polls the poll triggers;
	// Refresher re-discovers projects' MCP servers. All run under Run.
	Worker    *webhook.Worker
	Poller    *trigger.Poller
	Refresher *upstream.Refresher
	// ExecLog is the execution log's queue and writer, run under Run; nil
	// when the configuration turns the log off.
	ExecLog *execlog.Log
	// Quotas admits calls by the projects' quotas; Redact holds their
	// redaction rules (its Set.JSON redacts what a log stores).
	Quotas *quota.Service
	Redact *redact.Service
	// MCP serves sessions and endpoints over MCP; API is the HTTP API.
	MCP *mcpserver.Server
	// MCPAuth is the authorization server of the endpoints with OAuth sign-in.
	MCPAuth *mcpauth.Service
	API     *httpapi.Server
	// Metrics are the Prometheus metrics, nil when off; Tracer makes the
	// spans, nil when tracing is off.
	Metrics *telemetry.Metrics
	Tracer  *telemetry.Tracer

	onListen func(name, addr string)

	// mu guards the running parts that Close stops.
	mu sync.Mutex
	// servers are the listeners' HTTP servers while Run serves.
	servers []namedServer
	// stopJobs cancels the background jobs and waits for them; nil when
	// they are not running.
	stopJobs func()
	// jobsRan is set once the background jobs have run (the executor's
	// job closes the executor when it ends).
	jobsRan bool
	// closed is set by Close; Run refuses to start after it.
	closed    bool
	closeOnce sync.Once
	closeErr  error
}

// New builds the application: it opens and migrates the database, loads the
// key ring and checks it against the stored secrets, loads the catalog and
// constructs every service. Nothing runs until Run. On error, what was
// opened is closed again.
func New(ctx context.Context, cfg *config.Config, o Options) (*App, error) {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	catFS := o.CatalogFS
	if catFS == nil {
		catFS = builtin.FS
	}
	a := &App{Config: cfg, onListen: o.OnListen}
	switch {
	case o.TracerProvider != nil:
		a.Tracer = telemetry.NewTracer(o.TracerProvider)
	case cfg.Tracing:
		t, err := telemetry.StartTracing(ctx, log)
		if err != nil {
			return nil, err
		}
		a.Tracer = t
	}
	if a.Tracer != nil {
		// Lines logged in a span's context show its trace and span ids.
		log = slog.New(telemetry.WithTraceIDs(log.Handler()))
	}
	a.Logger = log
	if o.Metrics || cfg.MetricsAddr != "" {
		a.Metrics = telemetry.NewMetrics()
	}

	st, err := OpenStore(ctx, cfg, log, store.Options{Now: o.Now, MaxConns: cmp.Or(o.MaxConns, cfg.DatabaseMaxConns)})
	if err != nil {
		a.Tracer.Shutdown(context.WithoutCancel(ctx))
		return nil, err
	}
	a.Store = st
	a.Metrics.WatchStore(st, log)
	ring, err := LoadKeyring(ctx, cfg, st, log)
	if err != nil {
		st.Close()
		a.Tracer.Shutdown(context.WithoutCancel(ctx))
		return nil, err
	}
	a.Keyring = ring
	log.Info("storage ready", "database", describeStore(st, cfg), "secret_key", ring.PrimaryKeyID())

	cat, err := catalog.Load(catFS)
	if err != nil {
		st.Close()
		a.Tracer.Shutdown(context.WithoutCancel(ctx))
		return nil, fmt.Errorf("load the catalog: %w", err)
	}
	a.Catalog = cat
	log.Info("catalog loaded", "connectors", len(cat.Connectors()), "tools", len(cat.Tools()))

	var tlsConfig *tls.Config
	if o.RootCAs != nil {
		tlsConfig = &tls.Config{RootCAs: o.RootCAs}
	}
	guard := newGuard(cfg, o.AllowLoopback, tlsConfig)
	a.Guard = guard

	a.Catalogs = upstream.NewCatalogs(cat, st)
	lo := o.ExecLog
	lo.Store, lo.Logger, lo.Now = st, log, o.Now
	if cfg.ExecutionLogOff {
		// SWITCHBOARD_EXECUTION_LOG=off: a nil log queues nothing; what is
		// stored stays readable (GET /v1/logs) and is still pruned.
		log.Info("execution log off: tool calls are not recorded")
	} else {
		a.ExecLog = execlog.New(lo)
	}
	a.Metrics.ExecutionLogDrops(a.ExecLog.Dropped)
	a.Accounts = account.NewService(st, ring)
	a.Quotas = quota.New(st, o.Now)
	a.Redact = redact.New(st)
	a.Worker = webhook.NewWorker(st, ring, guard.Webhooks().Client(), log, o.Now)
	a.Worker.Metrics = a.Metrics
	a.Policies = policy.NewService(policy.Options{Store: st, BaseURL: cfg.BaseURL, WebURL: cfg.WebURL,
		Notify: a.Worker.Notify, Logger: log, Now: o.Now})
	a.Executor = execute.New(execute.Options{Store: st, Accounts: a.Accounts, Guard: guard, Keyring: ring, Policies: a.Policies,
		Quotas: a.Quotas, Logger: log, Now: o.Now, Metrics: a.Metrics, Tracer: a.Tracer})
	a.Accounts.SetVerifier(a.Executor)
	a.Refresher = &upstream.Refresher{Store: st, Keyring: ring, Guard: guard, Logger: log}
	a.Webhooks = webhook.NewService(webhook.ServiceOptions{Store: st, Keyring: ring, AllowHTTPLoopback: cfg.WebhooksAllowHTTPLoopback,
		Notify: a.Worker.Notify, AllowedFunc: guard.Webhooks().Allowed, LookupFunc: o.LookupFunc})
	a.Triggers = trigger.NewService(trigger.Options{Store: st, Keyring: ring, Catalog: cat, Executor: a.Executor,
		Logger: log, BaseURL: cfg.BaseURL, Notify: a.Worker.Notify, Now: o.Now, Metrics: a.Metrics})
	a.Poller = trigger.NewPoller(trigger.PollerOptions{Store: st, Catalog: cat, Caller: a.Executor, TenantFunc: a.Catalogs.Load,
		Logger: log, Notify: a.Worker.Notify, Now: o.Now})
	a.Links = connect.NewService(st, cfg.WebURL, o.Now)
	a.Sessions = session.NewService(session.Options{Store: st, Accounts: a.Accounts, Executor: a.Executor, Links: a.Links,
		Policies: a.Policies, BaseURL: cfg.BaseURL, Now: o.Now, Log: a.ExecLog, Redact: a.Redact})
	a.Page = connect.NewPage(connect.PageOptions{Links: a.Links, Store: st, Projects: a.Catalogs, Accounts: a.Accounts,
		Executor: a.Executor, Keyring: ring, Guard: guard, Logger: log, BaseURL: cfg.BaseURL, AssetsURL: cfg.AssetsURL, Now: o.Now,
		ToolsFunc: (&upstream.ToolFetcher{Store: st, Keyring: ring, Guard: guard}).Fetch})
	a.MCP = mcpserver.New(a.Sessions, log, a.Tracer)
	a.MCPAuth = mcpauth.New(mcpauth.Options{Store: st, Keyring: ring, BaseURL: cfg.BaseURL, MCPURL: cfg.MCPURL, HTTPClient: guard.Client(), Now: o.Now})
	a.API = httpapi.New(httpapi.Options{
		Store: st, Logger: log, Catalog: cat, Catalogs: a.Catalogs, Logos: catFS, Accounts: a.Accounts, Executor: a.Executor,
		Sessions: a.Sessions, MCP: a.MCP, MCPAuth: a.MCPAuth, MCPURL: cfg.MCPURL, Links: a.Links, Page: a.Page, Triggers: a.Triggers, Webhooks: a.Webhooks,
		ExecLog: a.ExecLog, Policies: a.Policies, Quotas: a.Quotas, Redact: a.Redact, Guard: guard, Keyring: ring,
		Operators: operator.NewService(operator.Options{Store: st, Now: o.Now}), BaseURL: cfg.BaseURL, WebURL: cfg.WebURL, AssetsURL: cfg.AssetsURL, MaxBodyBytes: cfg.MaxBodyBytes,
		BodyReadTimeout: cfg.BodyReadTimeout, Metrics: a.Metrics, Tracer: a.Tracer,
	})
	return a, nil
}
