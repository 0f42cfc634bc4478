package mcpserver

import (
	"bytes"
	"encoding/json"
	"testing"
)

// encodeString is how encoding/json writes a string without HTML escapes.
func encodeString(s []byte) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(string(s))
	return bytes.TrimSuffix(b.Bytes(), []byte("\n"))
}

func TestAppendString_AsEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"", "plain", `{"ok":true,"result":{"a":"<b>&</b>"}}`, "quote \" backslash \\ slash /",
		"\x00\x01\x1f\x7f\b\f\n\r\t", "é ü 日本 🎉", "\u2028\u2029", "bad \xff utf-8 \xc3", "\xed\xa0\x80 surrogate",
	} {
		if got, want := appendString(nil, []byte(s)), encodeString([]byte(s)); !bytes.Equal(got, want) {
			t.Errorf("%q: got %s, want %s", s, got, want)
		}
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add([]byte("a\"b\\c\x00\u2028\xff"))
	f.Fuzz(func(t *testing.T, s []byte) {
		if got, want := appendString(nil, s), encodeString(s); !bytes.Equal(got, want) {
			t.Fatalf("%q: got %s, want %s", s, got, want)
		}
	})
}

func TestPlainID(t *testing.T) {
	t.Parallel()
	for id, want := range map[string]bool{
		`1`: true, `0`: true, `-7`: true, `"abc"`: true, `""`: true, `123456789012345`: true,
		`1234567890123456`: false, `1.5`: false, `1e3`: false, `01`: false, `-0`: false, `-`: false,
		`null`: false, `true`: false, `{}`: false, `[1]`: false, ``: false,
	} {
		if got := plainID(json.RawMessage(id)); got != want {
			t.Errorf("plainID(%s) = %v, want %v", id, got, want)
		}
	}
}
