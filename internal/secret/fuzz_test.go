package secret

import (
	"bytes"
	"errors"
	"testing"
)

// FuzzSecretOpen feeds Open arbitrary ciphertexts and AAD. Open must never
// panic, and must never open anything but an untouched ciphertext under the
// AAD it was sealed for: GCM's tag makes a forged or moved value fail.
func FuzzSecretOpen(f *testing.F) {
	k1 := Key{ID: "k1", Material: bytes.Repeat([]byte{1}, KeySize)}
	k2 := Key{ID: "k20260102-0a1b2c3d", Material: bytes.Repeat([]byte{2}, KeySize)}
	old, err := NewKeyring(k1)
	if err != nil {
		f.Fatal(err)
	}
	ring, err := NewKeyring(k2, k1)
	if err != nil {
		f.Fatal(err)
	}
	aad := AAD("connection.credential", "0b7c1f0e-row")
	type sealed struct{ ct, aad, plain []byte }
	var known []sealed
	for _, s := range []struct {
		r     *Keyring
		plain string
		aad   []byte
	}{
		{ring, `{"type":"api_key","apiKey":"sk_live_123"}`, aad},
		{old, "client-secret", AAD("auth_config.client_secret", "ac-1")},
		{ring, "", AAD("webhook.secret", "wh-1")},
		{old, "x", nil},
	} {
		ct, err := s.r.Seal([]byte(s.plain), s.aad)
		if err != nil {
			f.Fatal(err)
		}
		known = append(known, sealed{ct, s.aad, []byte(s.plain)})
		f.Add(ct, s.aad)
		f.Add(ct, []byte("other"))
		f.Add(ct[:len(ct)-1], s.aad)
	}
	f.Add([]byte{}, []byte{})
	f.Add([]byte{format}, []byte{})
	f.Add([]byte{format, 200, 'k'}, []byte{})
	f.Add([]byte{format, 2, 'k', '1'}, aad)

	f.Fuzz(func(t *testing.T, ct, aad []byte) {
		plain, err := ring.Open(ct, aad)
		if err != nil {
			var unknown *UnknownKeyError
			if plain != nil || !(errors.Is(err, ErrCorrupt) || errors.As(err, &unknown)) {
				t.Fatalf("Open failed with plaintext %q or an untyped error %v", plain, err)
			}
			if id, kerr := KeyID(ct); errors.As(err, &unknown) && (kerr != nil || id != unknown.KeyID) {
				t.Fatalf("unknown key %q, but KeyID says %q, %v", unknown.KeyID, id, kerr)
			}
			return
		}
		// It opened: it must be exactly one of the seeds, with its own AAD.
		for _, k := range known {
			if bytes.Equal(ct, k.ct) && bytes.Equal(aad, k.aad) {
				if !bytes.Equal(plain, k.plain) {
					t.Fatalf("seed opened to %q, want %q", plain, k.plain)
				}
				return
			}
		}
		t.Fatalf("a value that was never sealed opened (ct %x, aad %x)", ct, aad)
	})
}
