package secret

import (
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func newKey(t *testing.T, id string) Key {
	t.Helper()
	m := make([]byte, KeySize)
	if _, err := rand.Read(m); err != nil {
		t.Fatal(err)
	}
	return Key{ID: id, Material: m}
}

func newRing(t *testing.T, keys ...Key) *Keyring {
	t.Helper()
	r, err := NewKeyring(keys...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestSealOpen_RoundTrip(t *testing.T) {
	t.Parallel()
	r := newRing(t, newKey(t, "k1"))
	aad := AAD("connection.credential", "row-1")
	for _, plain := range [][]byte{{}, []byte("x"), bytes.Repeat([]byte("token"), 1000)} {
		ct, err := r.Seal(plain, aad)
		if err != nil {
			t.Fatal(err)
		}
		if len(plain) > 4 && bytes.Contains(ct, plain[:5]) {
			t.Fatal("ciphertext contains plaintext")
		}
		got, err := r.Open(ct, aad)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, plain) {
			t.Fatalf("round trip: got %q", got)
		}
	}
}

func TestSeal_SamePlaintextDiffers(t *testing.T) {
	t.Parallel()
	r := newRing(t, newKey(t, "k1"))
	a, _ := r.Seal([]byte("same"), nil)
	b, _ := r.Seal([]byte("same"), nil)
	if bytes.Equal(a, b) {
		t.Fatal("two seals of one plaintext are equal: nonce reused")
	}
}

func TestOpen_WrongAADFails(t *testing.T) {
	t.Parallel()
	r := newRing(t, newKey(t, "k1"))
	ct, _ := r.Seal([]byte("secret"), AAD("connection.credential", "row-1"))
	for _, aad := range [][]byte{
		AAD("connection.credential", "row-2"),
		AAD("trigger.secret", "row-1"),
		nil,
	} {
		if _, err := r.Open(ct, aad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("aad %q: err %v, want ErrCorrupt", aad, err)
		}
	}
}

func TestOpen_TamperingFails(t *testing.T) {
	t.Parallel()
	r := newRing(t, newKey(t, "k1"))
	aad := AAD("p", "r")
	ct, _ := r.Seal([]byte("secret value"), aad)
	for i := 2 + len("k1"); i < len(ct); i++ {
		bad := bytes.Clone(ct)
		bad[i] ^= 0x01
		if _, err := r.Open(bad, aad); !errors.Is(err, ErrCorrupt) {
			t.Fatalf("flipped byte %d: err %v, want ErrCorrupt", i, err)
		}
	}
	for _, bad := range [][]byte{nil, {format}, {format, 5, 'k'}, ct[:len(ct)-1], {9, 2, 'k', '1'}} {
		if _, err := r.Open(bad, aad); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%v: err %v, want ErrCorrupt", bad, err)
		}
	}
}

func TestRotation_NewKeySealsOldKeyStillOpens(t *testing.T) {
	t.Parallel()
	k1, k2 := newKey(t, "k1"), newKey(t, "k2")
	old := newRing(t, k1)
	aad := AAD("p", "r")
	sealedByOld, _ := old.Seal([]byte("before"), aad)

	rotated := newRing(t, k2, k1)
	if got, err := rotated.Open(sealedByOld, aad); err != nil || string(got) != "before" {
		t.Fatalf("old ciphertext after rotation: %q, %v", got, err)
	}
	fresh, _ := rotated.Seal([]byte("after"), aad)
	if id, _ := KeyID(fresh); id != "k2" {
		t.Fatalf("new seal used key %q, want k2", id)
	}
	if _, err := old.Open(fresh, aad); err == nil {
		t.Fatal("a ring without k2 opened a k2 ciphertext")
	}
}

func TestOpen_UnknownKeyIsTyped(t *testing.T) {
	t.Parallel()
	a := newRing(t, newKey(t, "k1"))
	b := newRing(t, newKey(t, "other"))
	ct, _ := a.Seal([]byte("x"), nil)
	_, err := b.Open(ct, nil)
	var uk *UnknownKeyError
	if !errors.As(err, &uk) || uk.KeyID != "k1" {
		t.Fatalf("err %v, want UnknownKeyError for k1", err)
	}
}

func TestNewKeyring_RejectsBadKeys(t *testing.T) {
	t.Parallel()
	good := newKey(t, "k1")
	cases := map[string][]Key{
		"none":      nil,
		"short":     {{ID: "k1", Material: make([]byte, 16)}},
		"bad id":    {{ID: "k 1", Material: good.Material}},
		"duplicate": {good, good},
	}
	for name, keys := range cases {
		if _, err := NewKeyring(keys...); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestKey_NeverPrintsMaterial(t *testing.T) {
	t.Parallel()
	k := Key{ID: "k1", Material: []byte(strings.Repeat("A", KeySize))}
	for _, s := range []string{fmt.Sprint(k), fmt.Sprintf("%v %+v %s", k, k, k), k.LogValue().String()} {
		if strings.Contains(s, "AAAA") {
			t.Fatalf("key material printed: %s", s)
		}
	}
}

func TestParseKeys(t *testing.T) {
	t.Parallel()
	k1, k2 := newKey(t, "k1"), newKey(t, "k2")
	keys, err := ParseKeys(FormatKey(k2) + ", " + FormatKey(k1))
	if err != nil || len(keys) != 2 || keys[0].ID != "k2" || !bytes.Equal(keys[1].Material, k1.Material) {
		t.Fatalf("got %v, %v", keys, err)
	}
	for _, bad := range []string{"", "k1", "k1:!!!", "k1:" + strings.Repeat("A", 10)} {
		if _, err := ParseKeys(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestLoadOrCreateKeyFile(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "data", "secret.key")
	r1, created, err := LoadOrCreateKeyFile(path)
	if err != nil || !created {
		t.Fatalf("first load: created=%v err=%v", created, err)
	}
	info, err := os.Stat(path)
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, err %v", info.Mode().Perm(), err)
	}
	ct, _ := r1.Seal([]byte("kept"), nil)
	r2, created, err := LoadOrCreateKeyFile(path)
	if err != nil || created {
		t.Fatalf("second load: created=%v err=%v", created, err)
	}
	if got, err := r2.Open(ct, nil); err != nil || string(got) != "kept" {
		t.Fatalf("reloaded ring cannot open: %v", err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := LoadOrCreateKeyFile(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("world-readable key file: err %v", err)
	}
}

// A key file created anew must not reuse a key id: data sealed by a lost key
// names its id, and a new key under the same id would make that data look
// like corruption instead of a missing key.
func TestLoadOrCreateKeyFile_NewKeysGetFreshIDs(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for i := range 3 {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("secret-%d.key", i))
		r, created, err := LoadOrCreateKeyFile(path)
		if err != nil || !created {
			t.Fatalf("create: %v, %v", created, err)
		}
		id := r.PrimaryKeyID()
		if seen[id] || id == "k1" {
			t.Fatalf("generated key id %q repeats an id already used", id)
		}
		seen[id] = true
	}
}
