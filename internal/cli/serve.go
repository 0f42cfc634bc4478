package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	builtin "github.com/switchboard-gw/switchboard/catalog"
	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/config"
	"github.com/switchboard-gw/switchboard/internal/connect"
	"github.com/switchboard-gw/switchboard/internal/execute"
	"github.com/switchboard-gw/switchboard/internal/httpapi"
	"github.com/switchboard-gw/switchboard/internal/logging"
	"github.com/switchboard-gw/switchboard/internal/mcpserver"
	"github.com/switchboard-gw/switchboard/internal/session"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/trigger"
	"github.com/switchboard-gw/switchboard/internal/upstream"
	"github.com/switchboard-gw/switchboard/internal/webhook"
)

// serve runs the server until ctx ends, then shuts down gracefully: stop
// accepting, let in-flight requests finish within the shutdown timeout,
// then close the database.
func (p *Program) serve(ctx context.Context, args []string) error {
	c := p.configFlags("serve")
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("serve takes no arguments, got %q", pos[0])
	}
	cfg := c.cfg
	level, _ := cfg.Level()
	log := logging.New(p.Stderr, cfg.LogFormat, level)

	st, err := openStore(ctx, cfg, log)
	if err != nil {
		return err
	}
	defer st.Close()
	ring, err := loadKeyring(ctx, cfg, st, log)
	if err != nil {
		return err
	}
	log.Info("storage ready", "database", describeStore(st, cfg), "secret_key", ring.PrimaryKeyID())

	if err := p.bootstrap(ctx, st); err != nil {
		return err
	}
	cat, err := catalog.Load(builtin.FS)
	if err != nil {
		return err
	}
	log.Info("catalog loaded", "connectors", len(cat.Connectors()), "tools", len(cat.Tools()))

	accounts := account.NewService(st, ring, cat)
	guard := outboundGuard(cfg)
	executor := execute.New(execute.Options{Store: st, Accounts: accounts, Catalog: cat, Guard: guard, Keyring: ring, Logger: log})
	runCtx, stopRun := context.WithCancel(context.WithoutCancel(ctx))
	runDone := make(chan struct{})
	go func() {
		executor.Run(runCtx, 15*time.Second)
		close(runDone)
	}()
	defer func() {
		stopRun()
		<-runDone
	}()

	worker := webhook.NewWorker(st, ring, guard.Webhooks().Client(), log, nil)
	workerDone := make(chan struct{})
	go func() {
		worker.Run(runCtx)
		close(workerDone)
	}()
	janitorDone := make(chan struct{})
	go func() {
		janitor(runCtx, st, log)
		close(janitorDone)
	}()
	refresher := &upstream.Refresher{Store: st, Keyring: ring, Guard: guard, Logger: log}
	refreshDone := make(chan struct{})
	go func() {
		refresher.Run(runCtx, 15*time.Minute)
		close(refreshDone)
	}()
	defer func() {
		// Stop the background work (this defer runs before the one that
		// would otherwise cancel it) and wait for it before the store closes.
		stopRun()
		<-workerDone
		<-janitorDone
		<-refreshDone
	}()
	webhooks := webhook.NewService(webhook.ServiceOptions{Store: st, Keyring: ring, AllowHTTPLoopback: cfg.WebhooksAllowHTTPLoopback,
		Notify: worker.Notify, AllowedFunc: guard.Webhooks().Allowed, LookupFunc: p.LookupFunc})
	triggers := trigger.NewService(trigger.Options{Store: st, Keyring: ring, Catalog: cat, Executor: executor,
		Logger: log, BaseURL: cfg.BaseURL, Notify: worker.Notify})
	links := connect.NewService(st, cat, cfg.WebURL, nil)
	sessions := session.NewService(session.Options{Store: st, Catalog: cat, Accounts: accounts, Executor: executor, Links: links, BaseURL: cfg.BaseURL})

	catalogs := upstream.NewCatalogs(cat, st)
	page := connect.NewPage(connect.PageOptions{Links: links, Store: st, Catalog: cat, Projects: catalogs, Accounts: accounts, Executor: executor,
		Keyring: ring, Guard: guard, Logger: log, BaseURL: cfg.BaseURL, AssetsURL: cfg.AssetsURL})

	api := httpapi.New(httpapi.Options{
		Store: st, Logger: log, Catalog: cat, Catalogs: catalogs, Logos: builtin.FS, Accounts: accounts, Executor: executor,
		Sessions: sessions, MCP: mcpserver.New(sessions, log), Links: links, Page: page, Triggers: triggers, Webhooks: webhooks,
		BaseURL: cfg.BaseURL, WebURL: cfg.WebURL, AssetsURL: cfg.AssetsURL, MaxBodyBytes: cfg.MaxBodyBytes,
		BodyReadTimeout: cfg.BodyReadTimeout,
	})
	listeners := []struct {
		name, addr string
		handler    http.Handler
	}{
		{"base", cfg.Addr, api.Handler()},
		{"mcp", cfg.MCPAddr, api.MCPHandler()},
	}
	if cfg.AssetsAddr != "" {
		listeners = append(listeners, struct {
			name, addr string
			handler    http.Handler
		}{"assets", cfg.AssetsAddr, api.AssetsHandler()})
	}

	errc := make(chan error, len(listeners))
	var servers []*http.Server
	for _, l := range listeners {
		ln, err := net.Listen("tcp", l.addr)
		if err != nil {
			for _, s := range servers {
				s.Close()
			}
			return fmt.Errorf("listen on %s for the %s host: %w", l.addr, l.name, err)
		}
		srv := newHTTPServer(l.handler, log)
		servers = append(servers, srv)
		log.Info("listening", "listener", l.name, "addr", ln.Addr().String(), "url", publicURL(cfg, l.name))
		if p.OnListen != nil {
			p.OnListen(l.name, ln.Addr().String())
		}
		go func() {
			if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("%s listener: %w", l.name, err)
			}
		}()
	}

	var serveErr error
	select {
	case <-ctx.Done():
		log.Info("shutting down", "timeout", cfg.ShutdownTimeout.String())
	case serveErr = <-errc:
		log.Error("listener failed; shutting down", "error", serveErr.Error())
	}
	shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cfg.ShutdownTimeout)
	defer cancel()
	var wg sync.WaitGroup
	for _, srv := range servers {
		wg.Go(func() {
			if err := srv.Shutdown(shutdownCtx); err != nil {
				log.Warn("requests still in flight at the shutdown deadline were cut off", "error", err.Error())
				srv.Close()
			}
		})
	}
	wg.Wait()
	log.Info("stopped")
	return serveErr
}

// newHTTPServer bounds the time a client may take to send its headers and
// to keep an idle connection. There is deliberately no ReadTimeout or
// WriteTimeout: they would cut MCP streams, long tool calls and slow
// providers; request bodies get a deadline of their own in httpapi
// (SWITCHBOARD_BODY_READ_TIMEOUT).
func newHTTPServer(h http.Handler, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

func publicURL(cfg *config.Config, listener string) string {
	switch listener {
	case "mcp":
		return cfg.MCPURL
	case "assets":
		return cfg.AssetsURL
	}
	return cfg.BaseURL
}

// bootstrap creates project "default" with one API key when the database
// holds no project yet, and prints the key to stdout this once.
func (p *Program) bootstrap(ctx context.Context, st *store.Store) error {
	key, hash, hint, err := apikey.Generate()
	if err != nil {
		return err
	}
	proj, _, created, err := st.BootstrapProject(ctx, "default", store.NewAPIKey{Name: "bootstrap", Hash: hash, Hint: hint})
	if err != nil || !created {
		return err
	}
	fmt.Fprintf(p.Stdout, "Created project %q (%s) with its first API key:\n\n    %s\n\nThis key will not be shown again: store it now. Make more with 'switchboard admin key create --project %s'.\n",
		proj.Name, proj.ID, key, proj.ID)
	return nil
}

// janitor removes expired records every ten minutes until ctx ends.
func janitor(ctx context.Context, st *store.Store, log *slog.Logger) {
	t := time.NewTicker(10 * time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			n, err := st.Cleanup(ctx)
			if err != nil && ctx.Err() == nil {
				log.Warn("cleanup of expired records failed", "error", err.Error())
			} else if n > 0 {
				log.Info("removed expired records", "rows", n)
			}
		}
	}
}
