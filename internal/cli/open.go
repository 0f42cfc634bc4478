package cli

import (
	"context"
	"flag"
	"log/slog"

	"github.com/switchboard-gw/switchboard/internal/app"
	"github.com/switchboard-gw/switchboard/internal/config"
	"github.com/switchboard-gw/switchboard/internal/sealed"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// configured is a flag set bound to the configuration.
type configured struct {
	fs       *flag.FlagSet
	cfg      *config.Config
	problems func() []string
}

func (p *Program) configFlags(name string, skip ...string) *configured {
	fs := p.newFlagSet(name)
	cfg, problems := config.Bind(fs, p.Getenv, skip...)
	return &configured{fs: fs, cfg: cfg, problems: problems}
}

// parse parses args and validates the configuration.
func (c *configured) parse(args []string) ([]string, error) {
	pos, err := parseArgs(c.fs, args)
	if err != nil {
		return nil, err
	}
	if err := c.cfg.Resolve(c.problems()); err != nil {
		return nil, &usageError{msg: err.Error()}
	}
	return pos, nil
}

// openStore opens the configured database and applies pending migrations.
func openStore(ctx context.Context, cfg *config.Config, log *slog.Logger) (*store.Store, error) {
	return app.OpenStore(ctx, cfg, log, store.Options{})
}

// loadKeyring returns the configured key ring, checked against the stored
// secrets (app.LoadKeyring).
func loadKeyring(ctx context.Context, cfg *config.Config, st *store.Store, log *slog.Logger) (*secret.Keyring, error) {
	return app.LoadKeyring(ctx, cfg, st, log)
}

// readKeyring reads the configured keys or the key file (app.ReadKeyring).
func readKeyring(cfg *config.Config, create bool) (*secret.Keyring, sealed.Origin, error) {
	return app.ReadKeyring(cfg, create)
}

// stderrLogger is for admin commands whose warnings (a new secret key file
// to back up) must reach the operator without mixing into their output.
func (p *Program) stderrLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(p.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}
