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
	// The same ids with other material: nothing may open under them.
	impostor, err := NewKeyring(Key{ID: k2.ID, Material: bytes.Repeat([]byte{3}, KeySize)},
		Key{ID: k1.ID, Material: bytes.Repeat([]byte{4}, KeySize)})
	if err != nil {
		f.Fatal(err)
	}
	aad := AAD("connection.credential", "0b7c1f0e-row")
	// Seals draw random nonces, and fuzz workers run this setup again, so a
	// value that opens is checked by what it opens to, not by its bytes.
	type sealed struct{ aad, plain []byte }
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
		known = append(known, sealed{s.aad, []byte(s.plain)})
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
		// It opened: it must be a seed under the AAD it was sealed for, and
		// neither other key material nor other AAD may open it.
		if _, err := impostor.Open(ct, aad); err == nil {
			t.Fatalf("opened with other key material under the same id (ct %x)", ct)
		}
		if _, err := ring.Open(ct, append(append([]byte(nil), aad...), 0)); err == nil {
			t.Fatalf("opened with other AAD (ct %x)", ct)
		}
		for _, k := range known {
			if bytes.Equal(aad, k.aad) && bytes.Equal(plain, k.plain) {
				return
			}
		}
		t.Fatalf("a value that was never sealed opened to %q (ct %x, aad %x)", plain, ct, aad)
	})
}
