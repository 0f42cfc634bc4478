package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	builtin "github.com/switchboard-gw/switchboard/catalog"
	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// catalogCmd dispatches `switchboard catalog export|check`.
func (p *Program) catalogCmd(_ context.Context, args []string) error {
	if len(args) == 0 {
		return usagef("usage: switchboard catalog export [--format catalog|spec-match], or catalog check [--dir DIR] [--only IDS] [--shared DIR] [--index FILE]")
	}
	switch args[0] {
	case "export":
		return p.catalogExport(args[1:])
	case "check":
		return p.catalogCheck(args[1:])
	}
	return usagef("unknown catalog command %q", args[0])
}

// catalogExport prints the built-in catalog as one JSON document.
func (p *Program) catalogExport(args []string) error {
	fs := p.newFlagSet("catalog export")
	format := fs.String("format", "catalog", "catalog (the whole definition) or spec-match (input of the provider spec checker)")
	if pos, err := parseArgs(fs, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return usagef("catalog export takes no arguments")
	}
	cat, err := catalog.Load(builtin.FS)
	if err != nil {
		return err
	}
	switch *format {
	case "catalog":
		return printJSON(p.Stdout, cat.Export())
	case "spec-match":
		return printJSON(p.Stdout, cat.SpecMatchTools())
	}
	return usagef("--format must be catalog or spec-match")
}

// catalogCheck validates connector definitions on disk and, when the
// provider specs are at hand, checks their tools against them.
func (p *Program) catalogCheck(args []string) error {
	fset := p.newFlagSet("catalog check")
	dir := fset.String("dir", "catalog", "directory holding connectors/ and logos/")
	only := fset.String("only", "", "comma-separated connector ids to check (all by default)")
	shared := fset.String("shared", "../shared", "directory holding provider-specs/ and tools/")
	index := fset.String("index", "", "operation index file to reuse (built there on first use)")
	if pos, err := parseArgs(fset, args); err != nil {
		return err
	} else if len(pos) > 0 {
		return usagef("catalog check takes no arguments")
	}
	var ids []string
	if *only != "" {
		ids = strings.Split(*only, ",")
	}
	fsys := os.DirFS(*dir)
	cat, err := catalog.LoadOnly(fsys, ids)
	if err != nil {
		return err
	}
	fmt.Fprintf(p.Stdout, "%d connectors, %d tools load cleanly\n", len(cat.Connectors()), len(cat.Tools()))
	if raw, err := fs.ReadFile(fsys, "data-rule.yaml"); err == nil {
		rule, err := catalog.ParseDataRule(raw)
		if err != nil {
			return err
		}
		if problems := rule.Check(cat, len(ids) > 0); len(problems) > 0 {
			for _, pr := range problems {
				fmt.Fprintf(p.Stdout, "DATA RULE  %s\n", pr)
			}
			return errors.New("some tools break the data-classification rule (catalog/data-rule.yaml)")
		}
		fmt.Fprintf(p.Stdout, "data-classification rule: every tool holds to it\n")
	}

	if _, err := os.Stat(filepath.Join(*shared, "tools", "spec_match.py")); err != nil {
		fmt.Fprintf(p.Stdout, "provider-spec check NOT RUN: %s/tools/spec_match.py is not present\n", *shared)
		return nil
	}
	exceptions := map[string]string{}
	if raw, err := fs.ReadFile(fsys, "spec-exceptions.yaml"); err == nil {
		if err := yaml.Unmarshal(raw, &exceptions); err != nil {
			return fmt.Errorf("spec-exceptions.yaml: %w", err)
		}
	}
	work, err := os.MkdirTemp("", "switchboard-speccheck-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	res, err := catalog.CheckSpecs(*shared, work, *index, cat.SpecMatchTools())
	if err != nil {
		return err
	}
	failed := 0
	for _, v := range res.Verdicts {
		if v.Status != "mismatched" {
			continue
		}
		if reason, ok := exceptions[v.Tool]; ok {
			fmt.Fprintf(p.Stdout, "EXCEPTED  %s: %s\n", v.Tool, reason)
			continue
		}
		failed++
		fmt.Fprintf(p.Stdout, "MISMATCH  %s: %s\n", v.Tool, strings.Join(v.Errors, "; "))
		for _, c := range v.Candidates {
			fmt.Fprintf(p.Stdout, "    near: %s %s\n", c.Method, c.URL)
		}
	}
	fmt.Fprintf(p.Stdout, "provider-spec check: %s\n", res.Summary)
	if failed > 0 {
		return errors.New("some tools do not match their provider's spec")
	}
	return nil
}
