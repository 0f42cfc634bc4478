// Package webhook delivers trigger.fired events to a project's webhook
// endpoints, signed per Standard Webhooks. The delivery row is both the
// queue and the log: a worker claims due rows, posts them through the
// guarded client, and records each attempt; retries back off on a fixed
// schedule with jitter and survive restarts.
package webhook

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
)

// SecretPrefix starts every webhook signing secret.
const SecretPrefix = "whsec_"

// Sign returns the webhook-signature header value for a message:
// "v1," + base64(HMAC-SHA256(key, id + "." + timestamp + "." + body)), where
// the key is the secret without its whsec_ prefix, base64-decoded.
func Sign(secret, id string, timestamp int64, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil {
		return "", errors.New("webhook: the secret is not whsec_ followed by base64")
	}
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id))
	mac.Write([]byte{'.'})
	mac.Write([]byte(strconv.FormatInt(timestamp, 10)))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// Verify checks a webhook-signature header (space-separated signatures) in
// constant time.
func Verify(secret, id string, timestamp int64, body []byte, header string) bool {
	want, err := Sign(secret, id, timestamp, body)
	if err != nil {
		return false
	}
	for _, sig := range strings.Fields(header) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return true
		}
	}
	return false
}
