package trigger

import (
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/catalog"
)

func TestParseTime_ProviderFormats(t *testing.T) {
	t.Parallel()
	want := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC).UnixMilli()
	for _, v := range []any{
		"2026-01-02T03:04:05Z",         // Google, Graph, Cloudflare
		"2026-01-02T03:04:05.000Z",     // Notion, Okta, HubSpot
		"2026-01-02T03:04:05.000+0000", // Salesforce
		"2026-01-02T04:04:05+01:00",    // an offset
		"2026-01-02T03:04:05.000000",   // no zone: UTC
		float64(want / 1000),           // Unix seconds
		float64(want),                  // Unix milliseconds
		"1767323045",                   // seconds as digits
		"1767323045000",                // milliseconds as digits
	} {
		got, ok := parseTime(v)
		if !ok || got != want {
			t.Errorf("parseTime(%v) = %d, %v; want %d", v, got, ok, want)
		}
	}
	for _, v := range []any{nil, "", "yesterday", true, map[string]any{}} {
		if _, ok := parseTime(v); ok {
			t.Errorf("parseTime(%v) read a time", v)
		}
	}
}

func TestFormatTime_RoundsDown(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 1, 2, 3, 4, 5, 678_900_000, time.UTC)
	for format, want := range map[string]string{
		"":                      "2026-01-02T03:04:05Z",
		catalog.FormatRFC3339:   "2026-01-02T03:04:05Z",
		catalog.FormatRFC3339MS: "2026-01-02T03:04:05.678Z",
		catalog.FormatUnix:      "1767323045",
		catalog.FormatUnixMS:    "1767323045678",
	} {
		if got := formatTime(at, format); got != want {
			t.Errorf("formatTime(%q) = %s, want %s", format, got, want)
		}
	}
}

func TestConfigText_WholeNumbersAsDigits(t *testing.T) {
	t.Parallel()
	for v, want := range map[any]string{float64(4583173393803140): "4583173393803140", float64(15): "15", 1.5: "1.5", "abc": "abc", true: "true"} {
		if got := configText(v); got != want {
			t.Errorf("configText(%v) = %q, want %q", v, got, want)
		}
	}
}
