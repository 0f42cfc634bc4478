// Package secret seals and opens stored secrets (provider credentials, OAuth
// client secrets, trigger and webhook secrets) with AES-256-GCM.
//
// A Keyring holds one or more 32-byte keys, each with an id. Seal always uses
// the primary (newest) key and writes its id into the ciphertext, so Open can
// still read what older keys sealed after a rotation. The additional
// authenticated data (AAD) binds a ciphertext to the row and purpose it was
// sealed for: a ciphertext copied to another row does not open.
package secret

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
)

// KeySize is the size of every key in bytes (AES-256).
const KeySize = 32

// format is the first byte of every ciphertext; it lets the layout change later.
const format byte = 1

var keyIDPattern = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,32}$`)

// ErrCorrupt is returned by Open when a ciphertext is malformed, was tampered
// with, or was sealed for other AAD.
var ErrCorrupt = errors.New("secret: ciphertext cannot be opened")

// UnknownKeyError is returned by Open when the ciphertext names a key id the
// ring does not hold (a key removed too early, or a different installation).
type UnknownKeyError struct {
	KeyID string
}

func (e *UnknownKeyError) Error() string {
	return fmt.Sprintf("secret: key %q is not in the key ring", e.KeyID)
}

// Key is one key of a ring. It never prints its material.
type Key struct {
	ID       string
	Material []byte
}

// LogValue implements slog.LogValuer so a Key logs as its id only.
func (k Key) LogValue() slog.Value { return slog.StringValue("key " + k.ID + " [redacted]") }

// String hides the key material from fmt.
func (k Key) String() string { return "key " + k.ID + " [redacted]" }

// Keyring seals with its primary key and opens with any of its keys.
type Keyring struct {
	primary string
	ids     []string
	aeads   map[string]cipher.AEAD
}

// NewKeyring returns a ring of keys; the first key is the primary key that
// new seals use. Key ids must be unique, 1 to 32 characters of letters,
// digits, '.', '_' or '-'.
func NewKeyring(keys ...Key) (*Keyring, error) {
	if len(keys) == 0 {
		return nil, errors.New("secret: a key ring needs at least one key")
	}
	r := &Keyring{primary: keys[0].ID, aeads: make(map[string]cipher.AEAD, len(keys))}
	for _, k := range keys {
		if !keyIDPattern.MatchString(k.ID) {
			return nil, fmt.Errorf("secret: key id %q must be 1 to 32 letters, digits, '.', '_' or '-'", k.ID)
		}
		if len(k.Material) != KeySize {
			return nil, fmt.Errorf("secret: key %q has %d bytes, want %d", k.ID, len(k.Material), KeySize)
		}
		if _, dup := r.aeads[k.ID]; dup {
			return nil, fmt.Errorf("secret: key id %q appears twice", k.ID)
		}
		block, err := aes.NewCipher(k.Material)
		if err != nil {
			return nil, fmt.Errorf("secret: key %q: %w", k.ID, err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("secret: key %q: %w", k.ID, err)
		}
		r.aeads[k.ID] = aead
		r.ids = append(r.ids, k.ID)
	}
	return r, nil
}

// PrimaryKeyID returns the id of the key new seals use.
func (r *Keyring) PrimaryKeyID() string { return r.primary }

// KeyIDs returns the ids of the ring's keys, the primary first.
func (r *Keyring) KeyIDs() []string { return append([]string(nil), r.ids...) }

// Has reports whether the ring holds a key with this id.
func (r *Keyring) Has(id string) bool {
	_, ok := r.aeads[id]
	return ok
}

// AAD returns additional authenticated data naming what a ciphertext belongs
// to: its purpose (for example "connection.credential") and the id of its row.
func AAD(purpose, rowID string) []byte {
	b := make([]byte, 0, len(purpose)+1+len(rowID))
	b = append(b, purpose...)
	b = append(b, 0)
	return append(b, rowID...)
}

// Seal encrypts plaintext with the primary key, bound to aad. The result is
// format byte, key id length, key id, nonce, then the GCM ciphertext and tag.
func (r *Keyring) Seal(plaintext, aad []byte) ([]byte, error) {
	return r.sealWith(r.primary, r.aeads[r.primary], plaintext, aad)
}

// SealWithKey is Seal with the ring's key id instead of the primary key. It
// is for check values that prove which key a ring holds under an id; every
// stored secret is sealed with Seal.
func (r *Keyring) SealWithKey(id string, plaintext, aad []byte) ([]byte, error) {
	aead, ok := r.aeads[id]
	if !ok {
		return nil, &UnknownKeyError{KeyID: id}
	}
	return r.sealWith(id, aead, plaintext, aad)
}

func (r *Keyring) sealWith(id string, aead cipher.AEAD, plaintext, aad []byte) ([]byte, error) {
	ns := aead.NonceSize()
	out := make([]byte, 0, 2+len(id)+ns+len(plaintext)+aead.Overhead())
	out = append(out, format, byte(len(id)))
	out = append(out, id...)
	nonceAt := len(out)
	out = out[:nonceAt+ns]
	if _, err := rand.Read(out[nonceAt:]); err != nil {
		return nil, fmt.Errorf("secret: nonce: %w", err)
	}
	return aead.Seal(out, out[nonceAt:], plaintext, aad), nil
}

// Open decrypts what Seal produced for the same aad. It returns an
// *UnknownKeyError when the key is not in the ring and ErrCorrupt for anything
// else that fails.
func (r *Keyring) Open(ciphertext, aad []byte) ([]byte, error) {
	if len(ciphertext) < 2 || ciphertext[0] != format {
		return nil, ErrCorrupt
	}
	idLen := int(ciphertext[1])
	if len(ciphertext) < 2+idLen {
		return nil, ErrCorrupt
	}
	id := string(ciphertext[2 : 2+idLen])
	aead, ok := r.aeads[id]
	if !ok {
		return nil, &UnknownKeyError{KeyID: id}
	}
	rest := ciphertext[2+idLen:]
	ns := aead.NonceSize()
	if len(rest) < ns+aead.Overhead() {
		return nil, ErrCorrupt
	}
	plain, err := aead.Open(nil, rest[:ns], rest[ns:], aad)
	if err != nil {
		return nil, ErrCorrupt
	}
	return plain, nil
}

// KeyID returns the id of the key that sealed ciphertext (to tell what a
// key rotation has not resealed yet).
func KeyID(ciphertext []byte) (string, error) {
	if len(ciphertext) < 2 || ciphertext[0] != format || len(ciphertext) < 2+int(ciphertext[1]) {
		return "", ErrCorrupt
	}
	return string(ciphertext[2 : 2+int(ciphertext[1])]), nil
}
