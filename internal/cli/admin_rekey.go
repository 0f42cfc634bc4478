package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"text/tabwriter"

	"github.com/switchboard-gw/switchboard/internal/sealed"
)

// adminRekey reseals every stored secret under the key ring's primary key:
// `switchboard admin rekey [--batch N] [--json]`. It runs beside a serving
// installation and can be rerun at any time.
func (p *Program) adminRekey(ctx context.Context, args []string) error {
	a := p.adminFlags("rekey")
	batch := a.fs.Int("batch", 200, "how many values are read and resealed at a time")
	pos, err := a.parse(args)
	if err != nil {
		return err
	}
	if err := expectArgs(pos, 0, "admin rekey [--batch N] [--json]"); err != nil {
		return err
	}
	if *batch < 1 || *batch > 10000 {
		return usagef("--batch must be 1 to 10000")
	}
	// Never a new key file here: resealing under a key nobody has backed up
	// would be the opposite of what the command is for.
	ring, _, err := readKeyring(a.cfg, false)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("no key file at %s: rekey needs the key ring that sealed the data (the key file, or SWITCHBOARD_SECRET_KEYS with the new key first)", a.cfg.SecretKeyFile)
	}
	if err != nil {
		return err
	}
	st, err := a.open(ctx)
	if err != nil {
		return err
	}
	defer st.Close()
	rep, err := sealed.Rekey(ctx, st, ring, sealed.Options{BatchSize: *batch})
	if err != nil {
		return err
	}
	if rep.KeyIDsInUse == nil {
		rep.KeyIDsInUse = []string{}
	}
	if rep.UnopenableKeyIDs == nil {
		rep.UnopenableKeyIDs = []string{}
	}
	if *a.asJSON {
		if err := printJSON(p.Stdout, rep); err != nil {
			return err
		}
	} else {
		printRekeyReport(p, rep)
	}
	switch {
	case rep.Unopenable > 0:
		return fmt.Errorf("%d stored secrets could not be opened (sealed with key %s): add the key to the ring and run rekey again, or delete what they belong to",
			rep.Unopenable, strings.Join(rep.UnopenableKeyIDs, ", "))
	case rep.Skipped > 0:
		return fmt.Errorf("%d stored secrets kept changing while they were resealed: run rekey again", rep.Skipped)
	}
	return nil
}

func printRekeyReport(p *Program, rep sealed.Report) {
	tw := tabwriter.NewWriter(p.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "COLUMN\tSCANNED\tRESEALED\tCURRENT\tUNOPENABLE\tRETRIED\tSKIPPED")
	for _, c := range rep.Columns {
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\n", c.Column, c.Scanned, c.Resealed, c.Current, c.Unopenable, c.Retried, c.Skipped)
	}
	_ = tw.Flush()
	fmt.Fprintf(p.Stdout, "\nresealed %d of %d stored secrets under key %s (%d already were)\n", rep.Resealed, rep.Scanned, rep.PrimaryKeyID, rep.Current)
	fmt.Fprintf(p.Stdout, "keys the stored secrets still need: %s\n", orNone(rep.KeyIDsInUse))
	if len(rep.KeyIDsNoLongerNeeded) > 0 {
		fmt.Fprintf(p.Stdout, "keys no longer needed, which can be removed from the key ring: %s\n", strings.Join(rep.KeyIDsNoLongerNeeded, ", "))
	}
}

func orNone(ids []string) string {
	if len(ids) == 0 {
		return "none"
	}
	return strings.Join(ids, ", ")
}
