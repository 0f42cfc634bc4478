package sealed

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// checkPurpose and checkPlain make the check value recorded beside a key id:
// a value sealed with that very key, so a ring holding other material under
// the same id is told apart.
const (
	checkPurpose = "secret_key.check"
	checkPlain   = "switchboard key check"
)

// samplesPerKey bounds how many stored values are tried to prove that a
// ring's key opens data recorded under its id when no check value exists.
const samplesPerKey = 3

// Origin says where a key ring came from, so a refusal can say what to do.
type Origin struct {
	// KeyFile is the key file's path; empty when the keys were configured.
	KeyFile string
	// NewKeyFile is true when this start created the key file.
	NewKeyFile bool
	// Postgres is true on PostgreSQL, where replicas must share one ring.
	Postgres bool
}

// Check compares the key ring with the key ids the stored sealed data needs
// and records the ring's primary key as one of them. It refuses (an error
// that says what to do) when the data needs a key the ring does not hold, or
// when a key of the ring is not the key that sealed the data under its id.
//
// It runs under the store's secret-keys lock, so of several replicas that
// start at once on an empty database, each with a key file of its own, the
// first records its key and the others are refused.
//
// The recorded ids make this cheap: one small table is read. The first start
// after the upgrade that added the table takes stock of every sealed column
// once.
func Check(ctx context.Context, st *store.Store, ring *secret.Keyring, o Origin) error {
	err := st.WithSecretKeys(ctx, func(keys *store.SecretKeys) error {
		recorded, err := keys.List(ctx)
		if err != nil {
			return err
		}
		var samples map[string][]store.SealedValue
		needSamples := len(recorded) == 0
		for _, r := range recorded {
			needSamples = needSamples || (r.Check == nil && ring.Has(r.ID))
		}
		if needSamples {
			if samples, err = takeStock(ctx, keys); err != nil {
				return err
			}
			for id := range samples {
				if !slices.ContainsFunc(recorded, func(r store.SecretKey) bool { return r.ID == id }) {
					recorded = append(recorded, store.SecretKey{ID: id})
				}
			}
		}

		var missing []string
		for _, r := range recorded {
			if !ring.Has(r.ID) {
				missing = append(missing, r.ID)
			}
		}
		if len(missing) > 0 {
			return refusal(missing, ring, o)
		}
		for _, r := range recorded {
			if err := verifyKey(ring, r, samples[r.ID]); err != nil {
				return err
			}
			if r.Check == nil {
				if err := putCheck(ctx, keys, ring, r.ID); err != nil {
					return err
				}
			}
		}
		if !slices.ContainsFunc(recorded, func(r store.SecretKey) bool { return r.ID == ring.PrimaryKeyID() }) {
			return putCheck(ctx, keys, ring, ring.PrimaryKeyID())
		}
		return nil
	})
	// A refusal speaks to the operator as it is, without the store's prefix.
	if re := (*refusedError)(nil); errors.As(err, &re) {
		return re
	}
	return err
}

// takeStock reads every sealed value once and returns, per key id, the
// first few values sealed with it.
func takeStock(ctx context.Context, keys *store.SecretKeys) (map[string][]store.SealedValue, error) {
	samples := map[string][]store.SealedValue{}
	err := keys.EachSealed(ctx, func(v store.SealedValue) error {
		id, err := secret.KeyID(v.Value)
		if err != nil {
			// A value that names no key proves nothing about any key;
			// rekey reports it.
			return nil
		}
		if len(samples[id]) < samplesPerKey {
			samples[id] = append(samples[id], v)
		}
		return nil
	})
	return samples, err
}

// verifyKey checks that the ring's key r.ID is the one that sealed data
// under that id: by its check value, else by one of the sampled values.
func verifyKey(ring *secret.Keyring, r store.SecretKey, samples []store.SealedValue) error {
	if r.Check != nil {
		if _, err := ring.Open(r.Check, secret.AAD(checkPurpose, r.ID)); err != nil {
			return wrongKey(r.ID)
		}
		return nil
	}
	if len(samples) == 0 {
		return nil
	}
	for _, v := range samples {
		a, err := aad(v)
		if err != nil {
			return err
		}
		if _, err := ring.Open(v.Value, a); err == nil {
			return nil
		}
	}
	return wrongKey(r.ID)
}

func putCheck(ctx context.Context, keys *store.SecretKeys, ring *secret.Keyring, id string) error {
	check, err := ring.SealWithKey(id, []byte(checkPlain), secret.AAD(checkPurpose, id))
	if err != nil {
		return err
	}
	return keys.Put(ctx, id, check)
}

// ErrRefused marks a start refused because the key ring does not fit the
// stored data.
var ErrRefused = errors.New("sealed: the key ring does not open the stored secrets")

type refusedError struct{ msg string }

func (e *refusedError) Error() string { return e.msg }
func (e *refusedError) Unwrap() error { return ErrRefused }

func wrongKey(id string) error {
	return &refusedError{msg: fmt.Sprintf("the key ring's key %q is not the key that sealed the stored secrets under that id "+
		"(same id, other key material): restore the original key %q from your backup; "+
		"a new key must have an id of its own", id, id)}
}

func refusal(missing []string, ring *secret.Keyring, o Origin) error {
	slices.Sort(missing)
	ids := strings.Join(quoteAll(missing), ", ")
	held := strings.Join(quoteAll(ring.KeyIDs()), ", ")
	var msg string
	switch {
	case o.NewKeyFile && o.Postgres:
		msg = fmt.Sprintf("this replica created a new key file %s (key %s), but the database's secrets are sealed with key %s: "+
			"replicas on one PostgreSQL database must share one key ring; give every replica the same "+
			"SWITCHBOARD_SECRET_KEYS (or --secret-keys), for example the contents of the key file of the replica "+
			"that started first. The new key file was not kept", o.KeyFile, held, ids)
	case o.NewKeyFile:
		msg = fmt.Sprintf("the key file %s did not exist, but the database's secrets are sealed with key %s: "+
			"restore the key file from your backup (or give the keys in SWITCHBOARD_SECRET_KEYS). "+
			"A new key could not open them, so none was kept", o.KeyFile, ids)
	default:
		where := "SWITCHBOARD_SECRET_KEYS"
		if o.KeyFile != "" {
			where = "the key file " + o.KeyFile
		}
		msg = fmt.Sprintf("the database's secrets are sealed with key %s, which the key ring (%s, from %s) does not hold: "+
			"restore the missing key from your backup and add it behind the primary key (SWITCHBOARD_SECRET_KEYS=\"new:…,old:…\"). "+
			"To retire a key, run 'switchboard admin rekey' with both keys first; on PostgreSQL every replica needs the same ring",
			ids, held, where)
	}
	return &refusedError{msg: msg}
}

func quoteAll(ids []string) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = fmt.Sprintf("%q", id)
	}
	return out
}
