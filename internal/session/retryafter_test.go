package session

import (
	"testing"
	"time"
)

func TestRetryAfterSeconds(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for in, want := range map[string]int64{
		"":                              0,
		"30":                            30,
		" 7 ":                           7,
		"-5":                            0,
		"soon":                          0,
		"Fri, 02 Jan 2026 03:05:05 GMT": 60,
		"Fri, 02 Jan 2026 03:04:05 GMT": 1, // already due: try again at once, but not in the same instant
	} {
		if got := retryAfterSeconds(in, now); got != want {
			t.Errorf("retryAfterSeconds(%q) = %d, want %d", in, got, want)
		}
	}
}
