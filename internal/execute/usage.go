package execute

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"github.com/switchboard-gw/switchboard/internal/store"
)

var englishPrinter = message.NewPrinter(language.English)

// usage coalesces lastUsedAt: calls record a time in memory, and a flush
// writes the newest time per account in one transaction, so no call pays a
// database write for it.
type usage struct {
	store *store.Store
	log   *slog.Logger
	mu    sync.Mutex
	seen  map[string]time.Time
}

func newUsage(st *store.Store, log *slog.Logger) *usage {
	return &usage{store: st, log: log, seen: map[string]time.Time{}}
}

func (u *usage) touch(id string, at time.Time) {
	u.mu.Lock()
	if at.After(u.seen[id]) {
		u.seen[id] = at
	}
	u.mu.Unlock()
}

func (u *usage) flush(ctx context.Context) {
	u.mu.Lock()
	batch := u.seen
	u.seen = map[string]time.Time{}
	u.mu.Unlock()
	if len(batch) == 0 {
		return
	}
	if err := u.store.TouchConnections(ctx, batch); err != nil {
		u.log.WarnContext(ctx, "could not record when accounts were last used", "error", err.Error(), "accounts", len(batch))
	}
}
