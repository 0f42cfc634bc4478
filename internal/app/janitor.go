package app

import (
	"context"
	"log/slog"
	"time"

	"github.com/switchboard-gw/switchboard/internal/store"
)

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
