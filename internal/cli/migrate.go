package cli

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// migrate applies pending migrations, or with --status lists every
// migration as applied or pending.
func (p *Program) migrate(ctx context.Context, args []string) error {
	c := p.configFlags("migrate")
	status := c.fs.Bool("status", false, "list applied and pending migrations instead of applying")
	asJSON := c.fs.Bool("json", false, "print one JSON document")
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("usage: switchboard migrate [--status] [--json]")
	}
	fmt.Fprintln(p.Stderr, "switchboard: using database", databaseLabel(c.cfg.DatabaseURL))
	st, err := store.Open(ctx, c.cfg.DatabaseURL, store.Options{})
	if err != nil {
		return err
	}
	defer st.Close()

	if !*status {
		applied, err := st.Migrate(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			out := []map[string]any{}
			for _, m := range applied {
				out = append(out, map[string]any{"version": m.Version, "name": m.Name})
			}
			return printJSON(p.Stdout, map[string]any{"applied": out})
		}
		for _, m := range applied {
			fmt.Fprintf(p.Stdout, "applied %04d_%s\n", m.Version, m.Name)
		}
		if len(applied) == 0 {
			fmt.Fprintln(p.Stdout, "nothing to apply: the schema is up to date")
		}
		return nil
	}

	states, err := st.MigrationStatus(ctx)
	if err != nil {
		return err
	}
	return printList(p.Stdout, *asJSON, states, "VERSION\tNAME\tSTATE", func(s store.MigrationState) []any {
		state := "pending"
		if s.AppliedAt != nil {
			state = "applied " + s.AppliedAt.Format("2006-01-02 15:04:05Z")
		}
		return []any{fmt.Sprintf("%04d", s.Version), s.Name, state}
	})
}

// discardLogger is for commands whose output is their result alone.
func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }
