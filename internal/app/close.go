package app

import (
	"context"
	"sync"
	"time"
)

// Close shuts the application down in this order, each step after the one
// before has finished:
//
//  1. the listeners stop accepting, and in-flight requests get the
//     shutdown timeout to finish (then they are cut off);
//  2. the background jobs stop, after the requests that may still have
//     needed them (a token refresh, a webhook to deliver); a poll cut
//     off here keeps its cursor and is due again at once;
//  3. the executor flushes last-used times and closes its upstream MCP
//     sessions, and the execution log writes what is still queued (their
//     background jobs do this as they stop, when they ran);
//  4. the database closes, since every step above may still write;
//  5. the spans still buffered are exported (tracing on), last, since
//     every step above may still make spans.
//
// Close is safe to call more than once and without Run; later calls
// return the first one's result.
func (a *App) Close() error {
	a.closeOnce.Do(func() {
		a.mu.Lock()
		a.closed = true
		servers, stopJobs, jobsRan := a.servers, a.stopJobs, a.jobsRan
		a.servers, a.stopJobs = nil, nil
		a.mu.Unlock()

		if len(servers) > 0 {
			ctx, cancel := context.WithTimeout(context.Background(), a.shutdownTimeout())
			var wg sync.WaitGroup
			for _, s := range servers {
				wg.Go(func() {
					if err := s.srv.Shutdown(ctx); err != nil {
						a.Logger.Warn("requests still in flight at the shutdown deadline were cut off", "listener", s.name, "error", err.Error())
						s.srv.Close()
					}
				})
			}
			wg.Wait()
			cancel()
		}
		if stopJobs != nil {
			stopJobs()
		}
		if !jobsRan {
			a.Executor.Close(context.Background())
			a.ExecLog.Flush(context.Background())
		}
		a.closeErr = a.Store.Close()
		if a.Tracer != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			if err := a.Tracer.Shutdown(ctx); err != nil {
				a.Logger.Warn("could not export the last spans", "error", err.Error())
			}
			cancel()
		}
		a.Logger.Info("stopped")
	})
	return a.closeErr
}
