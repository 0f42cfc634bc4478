package app

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"github.com/switchboard-gw/switchboard/internal/config"
	"github.com/switchboard-gw/switchboard/internal/sealed"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// OpenStore opens the configured database and applies pending migrations.
func OpenStore(ctx context.Context, cfg *config.Config, log *slog.Logger, opts store.Options) (*store.Store, error) {
	st, err := store.Open(ctx, cfg.DatabaseURL, opts)
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

// LoadKeyring returns the sealing key ring from the configured keys, or
// from the key file, which is created (mode 0600) on first start, and checks
// it against the key ids the stored secrets need (sealed.Check): a ring that
// cannot open them is refused here, at start, rather than answering 503 on
// every use later. A key file this start created is removed again when
// refused, so the next start meets the same clear refusal.
func LoadKeyring(ctx context.Context, cfg *config.Config, st *store.Store, log *slog.Logger) (*secret.Keyring, error) {
	ring, origin, err := ReadKeyring(cfg, true)
	if err != nil {
		return nil, err
	}
	origin.Postgres = st.Dialect() == store.Postgres
	if err := sealed.Check(ctx, st, ring, origin); err != nil {
		if origin.NewKeyFile {
			if rmErr := os.Remove(cfg.SecretKeyFile); rmErr != nil {
				log.Warn("could not remove the refused new key file", "path", cfg.SecretKeyFile, "error", rmErr.Error())
			}
		}
		return nil, err
	}
	if origin.NewKeyFile {
		log.Warn("created a new secret key file; back it up now: without it no stored credential can be opened",
			"path", cfg.SecretKeyFile, "key_id", ring.PrimaryKeyID())
		if origin.Postgres {
			log.Warn("on PostgreSQL every replica needs the same key ring: give them all SWITCHBOARD_SECRET_KEYS with this key",
				"path", cfg.SecretKeyFile)
		}
	}
	return ring, nil
}

// ReadKeyring reads the configured keys or the key file, creating the file
// when create is set and it does not exist.
func ReadKeyring(cfg *config.Config, create bool) (*secret.Keyring, sealed.Origin, error) {
	if cfg.SecretKeys != "" {
		keys, err := secret.ParseKeys(cfg.SecretKeys)
		if err != nil {
			return nil, sealed.Origin{}, err
		}
		ring, err := secret.NewKeyring(keys...)
		return ring, sealed.Origin{}, err
	}
	origin := sealed.Origin{KeyFile: cfg.SecretKeyFile}
	if !create {
		ring, err := secret.LoadKeyFile(cfg.SecretKeyFile)
		return ring, origin, err
	}
	ring, created, err := secret.LoadOrCreateKeyFile(cfg.SecretKeyFile)
	origin.NewKeyFile = created
	return ring, origin, err
}

// describeStore names the database for a log line without its password.
func describeStore(st *store.Store, cfg *config.Config) string {
	if st.Dialect() == store.SQLite {
		_, path, _ := store.ParseURL(cfg.DatabaseURL)
		return "sqlite " + path
	}
	return fmt.Sprintf("%s database", st.Dialect())
}
