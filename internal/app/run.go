package app

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/switchboard-gw/switchboard/internal/execlog"
)

// namedServer is one listener's HTTP server.
type namedServer struct {
	name string
	srv  *http.Server
}

// Run listens on the configured addresses, starts the background jobs
// (the executor's upkeep, the webhook worker, the trigger poller, the janitor, the MCP server
// refresher, the change listener of the API key, session and endpoint caches) and serves until ctx ends or a listener fails. It then shuts
// everything down with Close and returns the listener's error, if any.
func (a *App) Run(ctx context.Context) error {
	cfg := a.Config
	type listener struct {
		name, addr string
		handler    http.Handler
	}
	listeners := []listener{{"base", cfg.Addr, a.API.Handler()}, {"mcp", cfg.MCPAddr, a.API.MCPHandler()}}
	if cfg.AssetsAddr != "" {
		listeners = append(listeners, listener{"assets", cfg.AssetsAddr, a.API.AssetsHandler()})
	}
	if cfg.MetricsAddr != "" && a.Metrics != nil {
		listeners = append(listeners, listener{"metrics", cfg.MetricsAddr, a.Metrics.Handler()})
	}
	// Every address is bound before anything serves, so a taken port
	// fails the start with nothing half running.
	lns := make([]net.Listener, 0, len(listeners))
	for _, l := range listeners {
		ln, err := net.Listen("tcp", l.addr)
		if err != nil {
			for _, ln := range lns {
				ln.Close()
			}
			a.Close()
			return fmt.Errorf("listen on %s for the %s host: %w", l.addr, l.name, err)
		}
		lns = append(lns, ln)
	}

	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		for _, ln := range lns {
			ln.Close()
		}
		return errors.New("app: Run after Close")
	}
	a.startJobs(ctx)
	errc := make(chan error, len(listeners))
	for i, l := range listeners {
		srv := newHTTPServer(l.handler, a.Logger)
		a.servers = append(a.servers, namedServer{l.name, srv})
		ln := lns[i]
		a.Logger.Info("listening", "listener", l.name, "addr", ln.Addr().String(), "url", a.publicURL(l.name))
		if a.onListen != nil {
			a.onListen(l.name, ln.Addr().String())
		}
		go func() {
			if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
				errc <- fmt.Errorf("%s listener: %w", l.name, err)
			}
		}()
	}
	a.mu.Unlock()

	var serveErr error
	select {
	case <-ctx.Done():
		a.Logger.Info("shutting down", "timeout", a.shutdownTimeout().String())
	case serveErr = <-errc:
		a.Logger.Error("listener failed; shutting down", "error", serveErr.Error())
	}
	a.Close()
	return serveErr
}

// startJobs starts the background jobs; a.mu is held. They run on a
// context of their own, so that they outlive ctx while in-flight requests
// drain, and Close stops them after the listeners.
func (a *App) startJobs(ctx context.Context) {
	runCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	var wg sync.WaitGroup
	wg.Go(func() { a.Executor.Run(runCtx, 15*time.Second) })
	wg.Go(func() { a.Worker.Run(runCtx) })
	wg.Go(func() { a.Poller.Run(runCtx) })
	wg.Go(func() { janitor(runCtx, a.Store, a.Logger, a.logRetention()) })
	// The execution log's writer; when it stops it writes what is queued,
	// after the listeners have stopped adding (Close).
	wg.Go(func() { a.ExecLog.Run(runCtx) })
	wg.Go(func() { a.Refresher.Run(runCtx, 15*time.Minute) })
	// What keeps the API key, session and endpoint caches in step with
	// every process's writes (PostgreSQL: a listener; SQLite: a change
	// count); without it they are read per request.
	wg.Go(func() { a.Store.WatchKeys(runCtx, a.Logger) })
	a.jobsRan = true
	a.stopJobs = func() {
		cancel()
		wg.Wait()
	}
}

// logRetention is how long execution log records are kept.
func (a *App) logRetention() time.Duration {
	if a.Config.LogRetention > 0 {
		return a.Config.LogRetention
	}
	return execlog.DefaultRetention
}

// shutdownTimeout is how long in-flight requests may finish on stop.
func (a *App) shutdownTimeout() time.Duration {
	if a.Config.ShutdownTimeout > 0 {
		return a.Config.ShutdownTimeout
	}
	return 20 * time.Second
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

// publicURL is the public address of a listener's host, for the log.
func (a *App) publicURL(listener string) string {
	switch listener {
	case "mcp":
		return a.Config.MCPURL
	case "assets":
		return a.Config.AssetsURL
	case "metrics":
		return "" // not public: scraped on its listen address
	}
	return a.Config.BaseURL
}
