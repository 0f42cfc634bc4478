package cli

import (
	"context"
	"fmt"

	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/app"
	"github.com/switchboard-gw/switchboard/internal/logging"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// serve runs the server until ctx ends, then shuts down gracefully: stop
// accepting, let in-flight requests finish within the shutdown timeout,
// then close the database.
func (p *Program) serve(ctx context.Context, args []string) error {
	c := p.configFlags("serve")
	pos, err := c.parse(args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("serve takes no arguments, got %q", pos[0])
	}
	cfg := c.cfg
	level, _ := cfg.Level()
	log := logging.New(p.Stderr, cfg.LogFormat, level)

	a, err := app.New(ctx, cfg, app.Options{Logger: log, LookupFunc: p.LookupFunc, OnListen: p.OnListen})
	if err != nil {
		return err
	}
	defer a.Close()
	if err := p.bootstrap(ctx, a.Store); err != nil {
		return err
	}
	if err := p.operatorHint(ctx, a.Store, cfg.WebURL); err != nil {
		return err
	}
	return a.Run(ctx)
}

// bootstrap creates project "default" with one API key when the database
// holds no project yet, and prints the key to stdout this once.
func (p *Program) bootstrap(ctx context.Context, st *store.Store) error {
	key, hash, hint, err := apikey.Generate()
	if err != nil {
		return err
	}
	proj, _, created, err := st.BootstrapProject(ctx, "default", store.NewAPIKey{Name: "bootstrap", Hash: hash, Hint: hint})
	if err != nil || !created {
		return err
	}
	fmt.Fprintf(p.Stdout, "Created project %q (%s) with its first API key:\n\n    %s\n\nThis key will not be shown again: store it now. Make more with 'switchboard admin key create --project %s'.\n",
		proj.Name, proj.ID, key, proj.ID)
	return nil
}

// operatorHint says, while no dashboard operator exists, how to create one
// and where to sign in.
func (p *Program) operatorHint(ctx context.Context, st *store.Store, webURL string) error {
	n, err := st.CountOperators(ctx)
	if err != nil || n > 0 {
		return err
	}
	projects, err := st.ListProjects(ctx)
	if err != nil {
		return err
	}
	project := "PROJECT_ID"
	if len(projects) > 0 {
		project = projects[0].ID
	}
	fmt.Fprintf(p.Stdout, "\nNo dashboard operator yet. Create one (it prints a one-time sign-in link):\n\n    switchboard admin operator create you@example.com --project %s --role owner --link\n\nthen open the link, choose a password, and sign in at %s/dashboard from then on.\n",
		project, webURL)
	return nil
}
