package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

func allRules(t *testing.T) *Set {
	t.Helper()
	s, err := Compile(Rules{Detectors: Detectors, Patterns: []Pattern{
		{Name: "employee_id", Pattern: `EMP-\d{6}`},
		{Name: "ssn", Pattern: `ssn[: ]+(\d{3}-\d{2}-\d{4})`},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// corpus holds sensitive values of every shape the detectors know, each
// in a sentence, with the detector that must replace it. The values are
// made up for this test (card numbers are the networks' public test
// numbers; the IBANs are the registry's examples).
var corpus = []struct {
	value, kind string
}{
	{"jane.doe@example.com", Email},
	{"first.last+tag@sub.mail.example.co.uk", Email},
	{"o'brien@example.org", Email},
	{"+1 415 555 0132", Phone},
	{"+1 (415) 555-0132", Phone},
	{"+44 20 7946 0958", Phone},
	{"+49-30-901820", Phone},
	{"+33.1.42.68.53.00", Phone},
	{"(415) 555-0132", Phone},
	{"415-555-0132", Phone},
	{"415.555.0132", Phone},
	{"4111111111111111", Card},
	{"4111 1111 1111 1111", Card},
	{"4111-1111-1111-1111", Card},
	{"5555555555554444", Card},
	{"2223003122003222", Card},
	{"378282246310005", Card},
	{"3782 822463 10005", Card},
	{"6011111111111117", Card},
	{"3530111333300000", Card},
	{"4000056655665556", Card},
	{"GB82 WEST 1234 5698 7654 32", IBAN},
	{"GB82WEST12345698765432", IBAN},
	{"DE89 3704 0044 0532 0130 00", IBAN},
	{"FR14 2004 1010 0505 0001 3M02 606", IBAN},
	{"NL91ABNA0417164300", IBAN},
	{"CH9300762011623852957", IBAN},
	{"sk_live_4eC39HqLyjWDarjtT1zdp7dc", Secret},
	{"sk_test_51HqLyjWDarjtT1zdp7dcXYZab", Secret},
	{"rk_live_51HqLyjWDarjtT1zdp7dcXY", Secret},
	{"whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", Secret},
	{"ghp_1a2B3c4D5e6F7g8H9i0J1k2L3m4N5o6P7q8R", Secret},
	{"gho_16C7e42F292c6912E7710c838347Ae178B4a", Secret},
	{"github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ", Secret},
	{"xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx", Secret},
	{"xoxp-123456789012-123456789012-123456789012-0123456789abcdef0123456789abcdef", Secret},
	{"AKIAIOSFODNN7EXAMPLE", Secret},
	{"ASIAY34FZKBOKMUTVV7A", Secret},
	{"AIzaSyDdI0hCZtE6vySjMm-WEfRq3CPzqKqqsHI", Secret},
	{"glpat-xxxxXXXXxxxxXXXXxxxx", Secret},
	{"npm_abcdefghijklmnopqrstuvwxyz0123456789", Secret},
	{"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", Secret},
	{"sk-proj-abcdefghijklmnopqrstuvwxyz0123456789ABCD", Secret},
	{"eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkphbmUifQ.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c", Secret},
	{"-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB\naFDrBz9vFqU4yN3M4gXq\n-----END RSA PRIVATE KEY-----", Secret},
	{"-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZW\n-----END OPENSSH PRIVATE KEY-----", Secret},
	{"-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7", Secret}, // cut off: no END line
	{"EMP-123456", "employee_id"},
}

// TestText_CorpusNeverSurvives: every sensitive value of the corpus, in
// several surroundings, is replaced by its placeholder and no part of it
// longer than its first few characters is left.
func TestText_CorpusNeverSurvives(t *testing.T) {
	t.Parallel()
	s := allRules(t)
	wraps := []string{"%s", "contact: %s.", "(%s)", "\"%s\"", "value=%s;", "line one\n%s\nline two", "<td>%s</td>"}
	for _, c := range corpus {
		for _, w := range wraps {
			in := strings.Replace(w, "%s", c.value, 1)
			got := s.Text(in)
			if strings.Contains(got, c.value) || !strings.Contains(got, Placeholder(c.kind)) {
				t.Errorf("%s in %q: got %q", c.kind, w, got)
			}
		}
	}
}

// TestValue_NoCorpusValueReachesTheOutput: the whole corpus inside one
// JSON answer (strings, nested objects and arrays, a card as a JSON
// number), as decoded values and as raw JSON, comes out with none of it.
func TestValue_NoCorpusValueReachesTheOutput(t *testing.T) {
	t.Parallel()
	s := allRules(t)
	items := []any{}
	for i, c := range corpus {
		items = append(items, map[string]any{"id": i, "note": "see " + c.value, "nested": []any{c.value}})
	}
	doc := map[string]any{"items": items, "total": len(items)}
	raw, _ := json.Marshal(doc)
	raw = append(raw[:len(raw)-1], []byte(`,"cardNumber":4111111111111111,"ssn":"ssn: 078-05-1120"}`)...)

	for name, in := range map[string]any{"raw": json.RawMessage(raw), "decoded": decode(t, raw)} {
		out, err := json.Marshal(s.Value(in))
		if err != nil {
			t.Fatal(err)
		}
		text := string(out)
		for _, c := range corpus {
			// JSON escapes newlines; look for the value as encoded too.
			enc, _ := json.Marshal(c.value)
			if strings.Contains(text, c.value) || strings.Contains(text, strings.Trim(string(enc), `"`)) {
				t.Errorf("%s: %s value %q survived", name, c.kind, c.value)
			}
		}
		for _, leak := range []string{"4111111111111111", "078-05-1120"} {
			if strings.Contains(text, leak) {
				t.Errorf("%s: %s survived: %s", name, leak, text)
			}
		}
		if !strings.Contains(text, `"ssn":"ssn: [redacted:ssn]"`) || !strings.Contains(text, `"total":`) {
			t.Errorf("%s: keys or the pattern's group context lost: %s", name, text)
		}
	}
}

func decode(t *testing.T, raw []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestText_LookalikesAreKept: ids, hashes, timestamps, amounts and dates
// that merely look like cards, IBANs or phones pass unchanged.
func TestText_LookalikesAreKept(t *testing.T) {
	t.Parallel()
	s := allRules(t)
	for _, in := range []string{
		"order 4111111111111112",        // Visa-like, fails Luhn
		"id 1234567890123456",           // no card network, fails Luhn
		"id 1000000000000009",           // Luhn-valid, but no card network starts with 1
		"created 1732560000000",         // Unix milliseconds
		"snowflake 1861234567890123456", // 19-digit id
		"tx 41111111111111110000",       // a card inside a longer number
		"ref A4111111111111111",         // glued to letters
		"hash 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
		"uuid 4111a111-1111-4111-8111-111111111111",
		"amount 4111111111111111.50",     // a decimal
		"on 2026-11-25 at 10:30:00",      // dates and times
		"total 1,234,567.89 EUR",         // an amount
		"DE12 3456 7890 1234 5678 90",    // IBAN shape, bad checksum
		"GB82 WEST 1234 5698 7654 33",    // one digit off
		"XX82WEST12345698765432",         // no such country
		"version 12.4.1, build 20261125", // numbers with dots
		"call 5551234",                   // a short number
		"room +5",                        // a plus and a digit
		"release v1.2.3+build.45",
		"just a sentence about sk learn and ghosts", // prefixes without tokens
		"ghp_short",                                 // too short to be a token
		"user at example dot com",
		"eyJ alone",
		"BEGIN PUBLIC KEY is fine: -----BEGIN PUBLIC KEY-----\nMIIBIjAN\n-----END PUBLIC KEY-----",
	} {
		if got := s.Text(in); got != in {
			t.Errorf("%q changed to %q", in, got)
		}
	}
}

func TestValue_NilSetAndNothingToFindPassThrough(t *testing.T) {
	t.Parallel()
	var none *Set
	raw := json.RawMessage(`{"email":"jane@example.com"}`)
	if got := none.Value(raw); string(got.(json.RawMessage)) != string(raw) {
		t.Fatalf("a nil set changed %s", raw)
	}
	s, _ := Compile(Rules{Detectors: []string{Card}})
	plain := json.RawMessage(`{"name":"widget","count":3}`)
	if got, ok := s.Value(plain).(json.RawMessage); !ok || string(got) != string(plain) {
		t.Fatalf("JSON with nothing to find was not passed through: %v", s.Value(plain))
	}
	// Only the detectors asked for run.
	if got := s.Text("jane@example.com 4111111111111111"); got != "jane@example.com [redacted:card]" {
		t.Fatalf("got %q", got)
	}
}

func TestRules_BadRulesRefusedWithIssues(t *testing.T) {
	t.Parallel()
	for name, r := range map[string]Rules{
		"nothing":          {},
		"unknown detector": {Detectors: []string{"ssn"}},
		"detector twice":   {Detectors: []string{Email, Email}},
		"bad regexp":       {Patterns: []Pattern{{Name: "x", Pattern: `(`}}},
		"empty match":      {Patterns: []Pattern{{Name: "x", Pattern: `a*`}}},
		"bad name":         {Patterns: []Pattern{{Name: "Bad Name", Pattern: `a`}}},
		"name of detector": {Patterns: []Pattern{{Name: "email", Pattern: `a`}}},
		"same name":        {Patterns: []Pattern{{Name: "x", Pattern: `a`}, {Name: "x", Pattern: `b`}}},
		"backreference":    {Patterns: []Pattern{{Name: "x", Pattern: `(a)\1`}}},
	} {
		if _, err := Compile(r); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := Compile(Rules{Detectors: []string{Secret}, Patterns: []Pattern{{Name: "x", Pattern: `a+`}}}); err != nil {
		t.Fatal(err)
	}
}

func TestChecksums(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]bool{
		"4111111111111111": true, "4111111111111112": false, "79927398713": false, // too short for a card
		"5555555555554444": true, "6011000990139424": true,
	} {
		if got := cardNumber(in); got != want {
			t.Errorf("cardNumber(%s) = %v", in, got)
		}
	}
	for in, want := range map[string]bool{
		"GB82WEST12345698765432": true, "GB82WEST12345698765433": false, "NO9386011117947": true, "NO9386011117948": false,
	} {
		if got := ibanNumber(in); got != want {
			t.Errorf("ibanNumber(%s) = %v", in, got)
		}
	}
}

func TestWith_AddsDetectorsOnce(t *testing.T) {
	t.Parallel()
	var none *Set
	s := none.With([]string{Email, "nope"})
	if got := s.Text("jane@example.com 4111111111111111"); got != "[redacted:email] 4111111111111111" {
		t.Fatalf("nil set with email: %q", got)
	}
	base, _ := Compile(Rules{Detectors: []string{Email}, RESTExecute: true})
	both := base.With([]string{Email, Card})
	if len(both.detectors) != 2 || !both.RESTExecute {
		t.Fatalf("detectors %d, restExecute %v", len(both.detectors), both.RESTExecute)
	}
	if got := base.Text("4111111111111111"); got != "4111111111111111" {
		t.Fatalf("With changed its base: %q", got)
	}
}
