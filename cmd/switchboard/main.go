// Command switchboard is the Switchboard integration gateway: the server
// (serve), its migrations (migrate) and its administration (admin).
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"github.com/switchboard-gw/switchboard/internal/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	p := &cli.Program{Stdin: os.Stdin, Stdout: os.Stdout, Stderr: os.Stderr, Getenv: os.Getenv}
	code := p.Run(ctx, os.Args[1:])
	stop()
	os.Exit(code)
}
