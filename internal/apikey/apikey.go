// Package apikey makes and recognises project API keys: "sb_" followed by 64
// lowercase hexadecimal characters (32 random bytes). Only a key's SHA-256 is
// ever stored.
package apikey

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"
)

// Prefix starts every key.
const Prefix = "sb_"

// Len is the length of a key in characters.
const Len = len(Prefix) + 64

// Generate returns a new key, its stored hash and its listing hint.
func Generate() (key, hash, hint string, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", "", fmt.Errorf("apikey: generate: %w", err)
	}
	key = Prefix + hex.EncodeToString(b[:])
	return key, Hash(key), Hint(key), nil
}

// Hash returns the stored form of a key, or of any random bearer token
// (connect link, OAuth state, trigger URL): its SHA-256 in hex.
func Hash(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// Hint returns the part of a key a listing may show: prefix and last four.
func Hint(key string) string {
	if len(key) < 4 {
		return Prefix + "…"
	}
	return Prefix + "…" + key[len(key)-4:]
}

// WellFormed reports whether s has the shape of a key, so malformed input
// is refused without a database read.
func WellFormed(s string) bool {
	if len(s) != Len || s[:len(Prefix)] != Prefix {
		return false
	}
	for i := len(Prefix); i < len(s); i++ {
		c := s[i]
		if (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}

// MaxNameLen is the longest key name.
const MaxNameLen = 128

// CheckNew checks the name and lifetime of a key to be created (the CLI's
// admin key create and the dashboard share it); lifetime 0 is no expiry.
func CheckNew(name string, lifetime time.Duration) error {
	if len(name) > MaxNameLen {
		return fmt.Errorf("a key name is at most %d characters", MaxNameLen)
	}
	if lifetime < 0 {
		return fmt.Errorf("a key's lifetime must be a positive duration such as 720h")
	}
	return nil
}
