package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	builtin "github.com/switchboard-gw/switchboard/catalog"
	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// catalogCmd dispatches `switchboard catalog export|check`.
func (p *Program) catalogCmd(_ context.Context, args []string) error {
	if len(args) == 0 {
		return usagef("usage: switchboard catalog export [--format catalog|spec-match], or catalog check [--dir DIR] [--only IDS] [--shared DIR] [--index FILE] [--verbose]")
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

const catalogCheckHelp = `Usage: switchboard catalog check [flags]

Loads the connector definitions under --dir as the server would and holds
them to the data-classification rule. When --shared holds provider-specs/
and tools/spec_match.py (python3), every tool of a provider with an official
API description is then checked against it:

  request   method, path, query, headers and body fields must exist in the
            matched operation (MISMATCH lines);
  response  every property the tool's outputSchema names, at every depth and
            through array items ([]), must exist in that operation's 2xx
            response schema (after request.response selects the part
            returned), with a type the spec allows (integer and number
            count as one). Open parts of the spec (no properties, a free
            additionalProperties, a union with an open variant) cannot
            refute a field: a tool with nothing else to check is UNCHECKED.
            Findings are OUTPUT lines; the summary is
            "outputs: N checked, M with unknown fields, K with type
            conflicts, L unchecked".

catalog/spec-exceptions.yaml accepts a finding with its reason: a request
mismatch under the tool id, an output field under "<tool id>:<field path>"
(the path as printed, e.g. "zoom_get_meeting:id"). An output exception that
no longer matches a finding fails the check. Exit status 1 on any finding
that is not excepted.

Flags:
`

// catalogCheck validates connector definitions on disk and, when the
// provider specs are at hand, checks their tools against them.
func (p *Program) catalogCheck(args []string) error {
	fset := p.newFlagSet("catalog check")
	dir := fset.String("dir", "catalog", "directory holding connectors/ and logos/")
	only := fset.String("only", "", "comma-separated connector ids to check (all by default)")
	shared := fset.String("shared", "../shared", "directory holding provider-specs/ and tools/")
	index := fset.String("index", "", "operation index file to reuse (built there on first use)")
	verbose := fset.Bool("verbose", false, "also print a line per checked outputSchema, with the fields the spec's response schema cannot refute")
	fset.Usage = func() {
		fmt.Fprint(p.Stderr, catalogCheckHelp)
		fset.PrintDefaults()
	}
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
	allExceptions := map[string]string{}
	if raw, err := fs.ReadFile(fsys, "spec-exceptions.yaml"); err == nil {
		if err := yaml.Unmarshal(raw, &allExceptions); err != nil {
			return fmt.Errorf("spec-exceptions.yaml: %w", err)
		}
	}
	exceptions, outputExceptions := catalog.SplitSpecExceptions(allExceptions)
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

	outputsFailed, err := p.checkOutputs(filepath.Join(*shared, "provider-specs"), res.Verdicts, cat, outputExceptions, len(ids) > 0, *verbose)
	if err != nil {
		return err
	}
	switch {
	case failed > 0 && outputsFailed:
		return errors.New("some tools do not match their provider's spec, and some outputSchemas name fields or types the spec's response does not have")
	case failed > 0:
		return errors.New("some tools do not match their provider's spec")
	case outputsFailed:
		return errors.New("some outputSchemas name fields or types the spec's response does not have")
	}
	return nil
}

// checkOutputs holds each tool's outputSchema to the success response of
// the operation its verdict names, prints a line per tool with a finding
// or that could not be checked, and a summary. It reports whether a
// finding is not excepted, or an output exception is no longer needed.
func (p *Program) checkOutputs(specsDir string, verdicts []catalog.SpecVerdict, cat *catalog.Catalog, exceptions map[string]string, partial, verbose bool) (bool, error) {
	checks, err := catalog.CheckOutputs(specsDir, verdicts, cat)
	if err != nil {
		return false, err
	}
	failed := false
	used := map[string]bool{}
	checked, withUnknown, withConflicts, unchecked := 0, 0, 0, 0
	for _, c := range checks {
		if c.Skipped != "" {
			unchecked++
			fmt.Fprintf(p.Stdout, "UNCHECKED %s (%s): %s\n", c.Tool, c.Operation, c.Skipped)
			continue
		}
		checked++
		if verbose {
			fmt.Fprintf(p.Stdout, "CHECKED   %s (%s): %d fields known", c.Tool, c.Operation, c.Known)
			if len(c.Unchecked) > 0 {
				fmt.Fprintf(p.Stdout, ", unchecked (open in the spec): %s", strings.Join(c.Unchecked, ", "))
			}
			fmt.Fprintln(p.Stdout)
		}
		if len(c.Unknown) > 0 {
			withUnknown++
		}
		if len(c.Conflicts) > 0 {
			withConflicts++
		}
		var problems []string
		for _, f := range c.Findings() {
			key := f.ExceptionKey(c.Tool)
			if reason, ok := exceptions[key]; ok {
				used[key] = true
				fmt.Fprintf(p.Stdout, "EXCEPTED  %s: %s\n", key, reason)
				continue
			}
			problems = append(problems, f.Field+" "+f.Problem)
		}
		if len(problems) > 0 {
			failed = true
			fmt.Fprintf(p.Stdout, "OUTPUT    %s (%s): %s\n", c.Tool, c.Operation, strings.Join(problems, "; "))
		}
	}
	checkedTools := map[string]bool{}
	for _, c := range checks {
		checkedTools[c.Tool] = true
	}
	keys := make([]string, 0, len(exceptions))
	for k := range exceptions {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		tool, _, _ := strings.Cut(k, ":")
		_, exists := cat.Tool(tool)
		switch {
		case used[k]:
		case checkedTools[tool]:
			failed = true
			fmt.Fprintf(p.Stdout, "STALE     %s: the response check no longer reports this field; remove the exception\n", k)
		case !exists && !partial:
			failed = true
			fmt.Fprintf(p.Stdout, "STALE     %s: no such tool; remove the exception\n", k)
		}
	}
	fmt.Fprintf(p.Stdout, "outputs: %d checked, %d with unknown fields, %d with type conflicts, %d unchecked\n",
		checked, withUnknown, withConflicts, unchecked)
	return failed, nil
}
