package secret

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// ParseKeys reads keys written as comma-separated `id:base64` entries, the
// format of SWITCHBOARD_SECRET_KEYS and of the key file. The first entry is
// the primary key. Standard and URL-safe base64, padded or not, are accepted.
func ParseKeys(s string) ([]Key, error) {
	var keys []Key
	for i, entry := range strings.FieldsFunc(s, func(r rune) bool { return r == ',' || r == '\n' || r == '\r' }) {
		entry = strings.TrimSpace(entry)
		if entry == "" || strings.HasPrefix(entry, "#") {
			continue
		}
		id, b64, ok := strings.Cut(entry, ":")
		if !ok {
			return nil, fmt.Errorf("secret: key entry %d is not of the form id:base64", i+1)
		}
		material, err := decodeBase64(strings.TrimSpace(b64))
		if err != nil {
			return nil, fmt.Errorf("secret: key %q is not valid base64", id)
		}
		if len(material) != KeySize {
			return nil, fmt.Errorf("secret: key %q decodes to %d bytes, want %d", id, len(material), KeySize)
		}
		keys = append(keys, Key{ID: strings.TrimSpace(id), Material: material})
	}
	if len(keys) == 0 {
		return nil, errors.New("secret: no key given")
	}
	return keys, nil
}

func decodeBase64(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.RawStdEncoding, base64.URLEncoding, base64.RawURLEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("not base64")
}

// FormatKey writes a key in the `id:base64` form ParseKeys reads.
func FormatKey(k Key) string {
	return k.ID + ":" + base64.StdEncoding.EncodeToString(k.Material)
}

// LoadOrCreateKeyFile reads the key ring from path, creating the file with
// one new random key and mode 0600 when it does not exist. created reports
// whether this call created it, so the caller can warn that the file must be
// backed up, or remove it again when the new key is refused. The new key
// gets a new id (see NewKeyID), never one a lost key file may have used.
// An existing file readable by group or others is refused.
func LoadOrCreateKeyFile(path string) (ring *Keyring, created bool, err error) {
	return loadKeyFile(path, true)
}

// LoadKeyFile reads the key ring from an existing key file, checked like
// LoadOrCreateKeyFile does.
func LoadKeyFile(path string) (*Keyring, error) {
	ring, _, err := loadKeyFile(path, false)
	return ring, err
}

func loadKeyFile(path string, create bool) (ring *Keyring, created bool, err error) {
	data, err := os.ReadFile(path)
	if create && errors.Is(err, fs.ErrNotExist) {
		if created, err = createKeyFile(path); err != nil {
			return nil, false, err
		}
		data, err = os.ReadFile(path)
	}
	if err != nil {
		return nil, false, fmt.Errorf("secret: read key file: %w", err)
	}
	info, err := os.Stat(path)
	if err != nil {
		return nil, false, fmt.Errorf("secret: key file: %w", err)
	}
	if info.Mode().Perm()&0o077 != 0 {
		return nil, false, fmt.Errorf("secret: key file %s has mode %v; it must be readable by its owner only (chmod 600)", path, info.Mode().Perm())
	}
	keys, err := ParseKeys(string(data))
	if err != nil {
		return nil, false, fmt.Errorf("%w (in %s)", err, path)
	}
	ring, err = NewKeyring(keys...)
	return ring, created, err
}

// NewKeyID returns an id for a newly generated key: the day and 32 random
// bits ("k20260102-9f3a61c0"). Data sealed by a key names its id, so a new
// key must never take the id of one that was lost: the data would then look
// corrupt instead of sealed by a missing key, and the lost key, once found,
// could not be loaded beside the new one.
func NewKeyID(now time.Time) (string, error) {
	var b [4]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("secret: generate key id: %w", err)
	}
	return "k" + now.UTC().Format("20060102") + "-" + hex.EncodeToString(b[:]), nil
}

// createKeyFile writes a new key to path unless the file exists, and
// reports whether it did.
func createKeyFile(path string) (bool, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return false, fmt.Errorf("secret: create key directory: %w", err)
	}
	material := make([]byte, KeySize)
	if _, err := rand.Read(material); err != nil {
		return false, fmt.Errorf("secret: generate key: %w", err)
	}
	id, err := NewKeyID(time.Now())
	if err != nil {
		return false, err
	}
	// O_EXCL: two processes starting at once must not overwrite each other's key.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("secret: create key file: %w", err)
	}
	_, werr := fmt.Fprintf(f, "%s\n", FormatKey(Key{ID: id, Material: material}))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		// A half-written file would fail every later start; leave none.
		_ = os.Remove(path)
		return false, fmt.Errorf("secret: write key file: %w", werr)
	}
	return true, nil
}
