package store

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
)

// keyChannel is the channel on which migration 0014's triggers announce
// changes to API keys ("k:" and the key's SHA-256) and to projects'
// versions ("p:" and the project id), and 0016's changes to sessions ("s:"
// and the id) and endpoints ("e:" and the slug); listeners send probes
// ("x:" and an id) on it too.
const keyChannel = "switchboard_keys"

// Timing of the change listener: after keyHeartbeat without a notification
// it checks that notifications still reach it (a probe must come back
// within keyPingTimeout), so a connection that died silently is noticed;
// a lost connection is reconnected after a pause that doubles up to
// keyRetryMax.
const (
	keyHeartbeat   = 10 * time.Second
	keyPingTimeout = 5 * time.Second
	keyRetryMin    = 100 * time.Millisecond
	keyRetryMax    = 5 * time.Second
)

// WatchKeys keeps this process's API key cache (and its session and
// endpoint caches) in step with the database until ctx ends, and is what
// turns the cache on: on PostgreSQL it holds one connection of its own
// (outside the pool) listening on keyChannel, and drops the cached key,
// project, session or endpoint each notification names. While that
// connection is down, ProjectForKey, GetSession and EndpointBySlug read
// the database on every request; once it has subscribed again the whole
// cache is flushed, since notifications sent meanwhile are lost. On SQLite
// it reads the change count of migration 0017 instead (watchChanges).
func (s *Store) WatchKeys(ctx context.Context, log *slog.Logger) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if s.dialect != Postgres {
		s.watchChanges(ctx, log)
		return
	}
	cfg, err := pgx.ParseConfig(s.dsn)
	if err != nil { // Open parsed the same DSN, so this does not happen
		log.Error("change listener cannot start; API keys, sessions and MCP endpoints are read from the database on every request", "error", err.Error())
		return
	}
	// A quiet wait ends by a read deadline rather than by a cancel
	// request on a second connection.
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: c.Conn()}
	}
	defer s.keys.setLive(false)
	lost, started := false, false
	for attempt := 0; ; attempt++ {
		err := s.listenKeys(ctx, cfg, func() {
			attempt = 0
			switch {
			case lost:
				log.Info("change listener subscribed again; the caches of API keys, sessions and MCP endpoints were flushed")
				lost = false
			case !started:
				log.Info("change listener subscribed; API keys, sessions and MCP endpoints are cached")
				started = true
			}
		})
		s.keys.setLive(false)
		if ctx.Err() != nil {
			return
		}
		if !lost {
			log.Warn("change listener lost its connection; API keys, sessions and MCP endpoints are read from the database on every request until it is back",
				"error", err.Error())
			lost = true
		}
		if !s.keyRetry(ctx, attempt) {
			return
		}
	}
}

// listenKeys subscribes on a new connection and applies notifications
// until the connection fails or ctx ends. The cache turns on only once a
// probe sent through the pool has come back on the listener, which proves
// the whole path (a pooler in transaction mode, for one, would accept
// LISTEN and never deliver); after keyHeartbeat without a notification it
// probes again, and a probe not back within keyPingTimeout counts as a
// lost connection.
func (s *Store) listenKeys(ctx context.Context, cfg *pgx.ConnConfig, subscribed func()) error {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer func() {
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		_ = conn.Close(cctx)
		cancel()
	}()
	if _, err := conn.Exec(ctx, "LISTEN "+keyChannel); err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	s.listenerPID.Store(conn.PgConn().PID())
	probe, err := s.probeKeys(ctx)
	if err != nil {
		return err
	}
	deadline := time.Now().Add(keyPingTimeout)
	live := false
	for {
		wait := keyHeartbeat
		if probe != "" {
			wait = time.Until(deadline)
		}
		wctx, cancel := context.WithTimeout(ctx, wait)
		n, err := conn.WaitForNotification(wctx)
		cancel()
		switch {
		case err == nil && n.Payload == probe:
			probe = ""
			if !live {
				live = true
				s.keys.setLive(true)
				subscribed()
			}
		case err == nil:
			if strings.HasPrefix(n.Payload, "x:") {
				if ch, ok := s.barriers.LoadAndDelete(n.Payload); ok {
					close(ch.(chan struct{}))
				}
			}
			s.keys.apply(n.Payload)
		case ctx.Err() != nil:
			return ctx.Err()
		case !errors.Is(err, context.DeadlineExceeded) || conn.IsClosed():
			return err
		case probe != "":
			return fmt.Errorf("a probe notification did not come back within %v", keyPingTimeout)
		default:
			if probe, err = s.probeKeys(ctx); err != nil {
				return err
			}
			deadline = time.Now().Add(keyPingTimeout)
		}
	}
}

// probeKeys sends a notification of kind "x" that only the sender acts on
// and returns its payload.
func (s *Store) probeKeys(ctx context.Context) (string, error) {
	payload := "x:" + NewID()
	pctx, cancel := context.WithTimeout(ctx, keyPingTimeout)
	defer cancel()
	if _, err := s.write.ExecContext(pctx, `SELECT pg_notify($1, $2)`, keyChannel, payload); err != nil {
		return "", fmt.Errorf("probe: %w", err)
	}
	return payload, nil
}

// apply drops what a notification names. Anything else (a future kind)
// flushes the cache, which is always safe.
func (c *keyCache) apply(payload string) {
	kind, ref, _ := strings.Cut(payload, ":")
	switch {
	case kind == "k" && ref != "":
		c.dropKey(ref)
	case kind == "p" && ref != "":
		c.dropProject(ref)
	case kind == "s" && ref != "":
		c.dropSession(ref)
	case kind == "e" && ref != "":
		c.dropEndpoint(ref)
	case kind == "o" && ref != "":
		c.dropToken(ref)
	case kind == "x":
		// another process's probe
	default:
		c.flush()
	}
}

// retryKeys waits before the next attempt to subscribe: keyRetryMin,
// doubling with each failed attempt up to keyRetryMax. It reports false
// when ctx ended first.
func retryKeys(ctx context.Context, attempt int) bool {
	d := keyRetryMax
	if attempt < 6 {
		d = min(keyRetryMax, keyRetryMin<<attempt)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

// changePoll is how often a SQLite process reads the change count: a
// change made by another process on the same file (the admin CLI) is seen
// within it. The process's own writes drop what they change at once.
const changePoll = 100 * time.Millisecond

// watchChanges keeps a SQLite process's caches in step with the file until
// ctx ends. SQLite has no notifications, so migration 0017's triggers count
// every change to API keys, project versions, sessions and endpoints, made
// by any process, in change_counter; this reads the count every changePoll
// and empties the caches when it moved (such changes are rare, so forgetting
// everything costs a few reads). The caches are on once the count was read,
// and off, every lookup reading the file, while it cannot be.
func (s *Store) watchChanges(ctx context.Context, log *slog.Logger) {
	defer s.keys.setLive(false)
	t := time.NewTicker(changePoll)
	defer t.Stop()
	last, live := int64(0), false
	for {
		var n int64
		err := s.read.QueryRowContext(ctx, `SELECT n FROM change_counter`).Scan(&n)
		switch {
		case ctx.Err() != nil:
			return
		case err != nil:
			if live {
				log.Warn("cannot read the change count; API keys, sessions and MCP endpoints are read from the database on every request until it can", "error", err.Error())
				s.keys.setLive(false)
				live = false
			}
		case !live:
			last, live = n, true
			s.keys.setLive(true)
		case n != last:
			last = n
			s.keys.flush()
		}
		s.polls.Add(1)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
