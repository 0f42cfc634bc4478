package cli

import (
	"context"
	"flag"
	"fmt"
	"log/slog"

	"github.com/switchboard-gw/switchboard/internal/config"
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
	st, err := store.Open(ctx, cfg.DatabaseURL, store.Options{})
	if err != nil {
		return nil, err
	}
	applied, err := st.Migrate(ctx)
	if err != nil {
		st.Close()
		return nil, err
	}
	for _, m := range applied {
		log.InfoContext(ctx, "applied migration", "version", m.Version, "name", m.Name)
	}
	return st, nil
}

// loadKeyring returns the sealing key ring from the configured keys, or
// from the key file, which is created (mode 0600) on first start.
func loadKeyring(cfg *config.Config, log *slog.Logger) (*secret.Keyring, error) {
	if cfg.SecretKeys != "" {
		keys, err := secret.ParseKeys(cfg.SecretKeys)
		if err != nil {
			return nil, err
		}
		return secret.NewKeyring(keys...)
	}
	ring, created, err := secret.LoadOrCreateKeyFile(cfg.SecretKeyFile)
	if err != nil {
		return nil, err
	}
	if created {
		log.Warn("created a new secret key file; back it up now: without it no stored credential can be opened",
			"path", cfg.SecretKeyFile)
	}
	return ring, nil
}

// stderrLogger is for admin commands whose warnings (a new secret key file
// to back up) must reach the operator without mixing into their output.
func (p *Program) stderrLogger() *slog.Logger {
	return slog.New(slog.NewTextHandler(p.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
}

// describeStore names the database for a log line without its password.
func describeStore(st *store.Store, cfg *config.Config) string {
	if st.Dialect() == store.SQLite {
		_, path, _ := store.ParseURL(cfg.DatabaseURL)
		return "sqlite " + path
	}
	return fmt.Sprintf("%s database", st.Dialect())
}
