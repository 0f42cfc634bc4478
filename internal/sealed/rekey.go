package sealed

import (
	"context"
	"errors"
	"slices"

	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// maxAttempts bounds how often one value is read again after concurrent
// writes changed it under a rekey; a value that keeps changing is left for
// the next run.
const maxAttempts = 5

// Options tune Rekey.
type Options struct {
	// BatchSize is how many values are read at a time; 0 means 200.
	BatchSize int
	// beforeReplace, in tests, runs between resealing a value and storing it.
	beforeReplace func(store.SealedValue)
}

// ColumnReport counts what Rekey did in one sealed column.
type ColumnReport struct {
	Column string `json:"column"`
	// Scanned values; each is one of Resealed, Current, Unopenable, Skipped
	// (or was deleted while the rekey ran).
	Scanned  int `json:"scanned"`
	Resealed int `json:"resealed"`
	// Current values were already sealed with the primary key.
	Current int `json:"current"`
	// Unopenable values name a key the ring does not hold, or are corrupt.
	Unopenable int `json:"unopenable"`
	// Retried counts values a concurrent write changed between read and
	// write; they were read again, so that write was kept.
	Retried int `json:"retried"`
	// Skipped values kept changing; a rerun picks them up.
	Skipped int `json:"skipped"`
}

// Report is the outcome of Rekey.
type Report struct {
	PrimaryKeyID string         `json:"primaryKeyId"`
	Columns      []ColumnReport `json:"columns"`
	Scanned      int            `json:"scanned"`
	Resealed     int            `json:"resealed"`
	Current      int            `json:"current"`
	Unopenable   int            `json:"unopenable"`
	Retried      int            `json:"retried"`
	Skipped      int            `json:"skipped"`
	// KeyIDsInUse are the keys some stored value is still sealed with.
	KeyIDsInUse []string `json:"keyIdsInUse"`
	// UnopenableKeyIDs are the keys of the unopenable values (a corrupt
	// value that names no key is not listed).
	UnopenableKeyIDs []string `json:"unopenableKeyIds"`
	// KeyIDsNoLongerNeeded are keys, of the ring or recorded earlier, that
	// no stored value uses any more: they can be removed from the ring.
	KeyIDsNoLongerNeeded []string `json:"keyIdsNoLongerNeeded"`
}

// Rekey reseals every stored secret under the ring's primary key, column by
// column in key order and in batches, while the service keeps running: each
// value is replaced in a statement of its own, only if the row still holds
// the value that was read, so a concurrent write (a rotation, a token
// refresh) is never overwritten; such a value is read again and resealed.
// Values already under the primary key are left alone, so a rerun (after an
// interruption, say) only does what is left.
//
// At the end it records which key ids the data still needs, so the start
// check lets a ring without the retired keys start. Replicas still running
// with an older primary key could seal new values with it meanwhile:
// restart every replica with the new primary key before rekeying.
func Rekey(ctx context.Context, st *store.Store, ring *secret.Keyring, opts Options) (Report, error) {
	batch := opts.BatchSize
	if batch <= 0 {
		batch = 200
	}
	rep := Report{PrimaryKeyID: ring.PrimaryKeyID()}
	inUse := map[string]bool{}
	unopenable := map[string]bool{}
	for _, col := range store.SealedColumns() {
		cr := ColumnReport{Column: col.Name}
		var after []string
		for {
			page, err := st.SealedPage(ctx, col.Name, after, batch)
			if err != nil {
				return rep, err
			}
			for _, v := range page {
				cr.Scanned++
				if err := reseal(ctx, st, ring, v, &cr, inUse, unopenable, opts); err != nil {
					return rep, err
				}
			}
			if len(page) < batch {
				break
			}
			after = page[len(page)-1].Keys
		}
		rep.Columns = append(rep.Columns, cr)
		rep.Scanned += cr.Scanned
		rep.Resealed += cr.Resealed
		rep.Current += cr.Current
		rep.Unopenable += cr.Unopenable
		rep.Retried += cr.Retried
		rep.Skipped += cr.Skipped
	}
	rep.KeyIDsInUse = sortedKeys(inUse)
	rep.UnopenableKeyIDs = sortedKeys(unopenable)

	unneeded := map[string]bool{}
	for _, id := range ring.KeyIDs()[1:] {
		if !inUse[id] {
			unneeded[id] = true
		}
	}
	err := st.WithSecretKeys(ctx, func(keys *store.SecretKeys) error {
		recorded, err := keys.List(ctx)
		if err != nil {
			return err
		}
		known := map[string]bool{}
		for _, r := range recorded {
			known[r.ID] = true
			if !inUse[r.ID] && r.ID != ring.PrimaryKeyID() {
				unneeded[r.ID] = true
				if err := keys.Delete(ctx, r.ID); err != nil {
					return err
				}
			}
		}
		if !known[ring.PrimaryKeyID()] {
			if err := putCheck(ctx, keys, ring, ring.PrimaryKeyID()); err != nil {
				return err
			}
		}
		// Keys found in the data but never recorded (sealed by another
		// installation, say) are recorded now, so the start check asks for
		// them.
		for id := range inUse {
			if known[id] || id == ring.PrimaryKeyID() {
				continue
			}
			if ring.Has(id) {
				if err := putCheck(ctx, keys, ring, id); err != nil {
					return err
				}
			} else if err := keys.Put(ctx, id, nil); err != nil {
				return err
			}
		}
		return nil
	})
	rep.KeyIDsNoLongerNeeded = sortedKeys(unneeded)
	return rep, err
}

// reseal reseals one value under the primary key, reading it again when a
// concurrent write got there first.
func reseal(ctx context.Context, st *store.Store, ring *secret.Keyring, v store.SealedValue,
	cr *ColumnReport, inUse, unopenable map[string]bool, opts Options) error {
	a, err := aad(v)
	if err != nil {
		return err
	}
	for attempt := 1; ; attempt++ {
		id, idErr := secret.KeyID(v.Value)
		if idErr == nil && id == ring.PrimaryKeyID() {
			cr.Current++
			inUse[id] = true
			return nil
		}
		plain, err := ring.Open(v.Value, a)
		if err != nil {
			cr.Unopenable++
			if idErr == nil {
				// Still needed: perhaps the ring lacks the key, or holds
				// the wrong one; either way the value is not given up here.
				inUse[id] = true
				unopenable[id] = true
			}
			return nil
		}
		sealed, err := ring.Seal(plain, a)
		clear(plain)
		if err != nil {
			return err
		}
		if opts.beforeReplace != nil {
			opts.beforeReplace(v)
		}
		ok, err := st.ReplaceSealed(ctx, v, sealed)
		if err != nil {
			return err
		}
		if ok {
			cr.Resealed++
			inUse[ring.PrimaryKeyID()] = true
			return nil
		}
		cr.Retried++
		fresh, err := st.GetSealed(ctx, v.Column, v.Keys)
		if errors.Is(err, store.ErrNotFound) {
			return nil // deleted meanwhile: nothing to keep
		}
		if err != nil {
			return err
		}
		v = fresh
		if attempt >= maxAttempts {
			cr.Skipped++
			if id, err := secret.KeyID(v.Value); err == nil {
				inUse[id] = true
			}
			return nil
		}
	}
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
