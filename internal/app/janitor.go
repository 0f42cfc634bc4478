package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// janitor removes expired records every ten minutes until ctx ends, and
// execution log records older than retention.
func janitor(ctx context.Context, st *store.Store, log *slog.Logger, retention time.Duration) {
	t := time.NewTicker(10 * time.Minute)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			Cleanup(ctx, st, log, retention)
		}
	}
}

// Cleanup runs one round of the janitor: the store's expired records, then
// the execution log past retention, in batches.
func Cleanup(ctx context.Context, st *store.Store, log *slog.Logger, retention time.Duration) {
	n, err := st.Cleanup(ctx)
	if err != nil && ctx.Err() == nil {
		log.Warn("cleanup of expired records failed", "error", err.Error())
	} else if n > 0 {
		log.Info("removed expired records", "rows", n)
	}
	pruned, err := st.PruneLog(ctx, retention, 1000)
	if err != nil && ctx.Err() == nil {
		log.Warn("pruning of the execution log failed", "error", err.Error())
	} else if pruned > 0 {
		log.Info("removed execution log records past retention", "rows", pruned, "retention", retention.String())
	}
}
