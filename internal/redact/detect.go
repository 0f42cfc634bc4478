package redact

import (
	"regexp"
	"strings"
)

// A detector finds one kind of sensitive text. hint is a cheap test a
// string must pass before the pattern runs; fit, when set, cuts a match to
// the length its format allows (given the text after it); check, when set,
// confirms each match (a checksum), so shapes that only look right are kept.
type detector struct {
	name    string
	hint    func(string) bool
	pattern *regexp.Regexp
	fit     func(m, after string) (int, bool)
	check   func(string) bool
}

// The built-in detectors' names (docs/redaction.md).
const (
	Email  = "email"
	Phone  = "phone"
	Card   = "card"
	IBAN   = "iban"
	Secret = "secret"
)

// Detectors lists the built-in detectors' names, in the order they run.
var Detectors = []string{Secret, Email, Card, IBAN, Phone}

var builtins = map[string][]detector{
	Email: {{
		hint:    func(s string) bool { return strings.IndexByte(s, '@') > 0 },
		pattern: regexp.MustCompile(`[A-Za-z0-9._%+\-]+@[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9\-]*[A-Za-z0-9])?)*\.[A-Za-z]{2,}`),
	}},
	// Card numbers: 13 to 19 digits, alone or in groups split by single
	// spaces or hyphens, with a card network's leading digits and a valid
	// Luhn check digit. Digits touching other digits or letters are part
	// of something else (an id, a hash) and are kept.
	Card: {{
		hint:    func(s string) bool { return digitCount(s) >= 13 },
		pattern: regexp.MustCompile(`(?:^|[^0-9A-Za-z_.\-])((?:\d[ \-]?){12,18}\d)(?:$|[^0-9A-Za-z_.\-]|\.(?:$|[^0-9]))`),
		check:   cardNumber,
	}},
	// IBANs: a country code, two check digits and the account, alone or
	// in groups of four split by spaces, with the country's length and a
	// valid mod-97 checksum.
	IBAN: {{
		hint:    func(s string) bool { return len(s) >= 15 && hasUpperPair(s) },
		pattern: regexp.MustCompile(`(?:^|[^0-9A-Za-z])([A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30})`),
		fit:     ibanFit,
		check:   ibanNumber,
	}},
	// Phone numbers in the forms people write them: international with a
	// leading + (8 to 15 digits), or the North American (555) 123-4567 and
	// 555-123-4567. A bare run of digits is an id, not a phone.
	Phone: {{
		hint:    func(s string) bool { return digitCount(s) >= 8 },
		pattern: regexp.MustCompile(`(?:^|[^0-9A-Za-z+])(\+[1-9]\d{0,3}(?:[ .\-]?\(?\d{1,5}\)?){2,5})(?:$|[^0-9A-Za-z])`),
		check:   func(m string) bool { n := digitCount(m); return n >= 8 && n <= 15 },
	}, {
		hint:    func(s string) bool { return digitCount(s) >= 10 },
		pattern: regexp.MustCompile(`(?:^|[^0-9A-Za-z])((?:\(\d{3}\) ?|\d{3}[\-.])\d{3}[\-.]\d{4})(?:$|[^0-9A-Za-z])`),
	}},
	// Secrets: keys and tokens by their published prefixes, JWTs and
	// private key blocks.
	Secret: {{
		hint:    func(s string) bool { return strings.Contains(s, "PRIVATE KEY") },
		pattern: regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|$)`),
	}, {
		hint:    func(s string) bool { return strings.Contains(s, "eyJ") },
		pattern: regexp.MustCompile(`eyJ[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]{4,}\.[A-Za-z0-9_\-]{8,}`),
	}, {
		hint: secretHint,
		pattern: regexp.MustCompile(`(?:` +
			`(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{10,}` + // Stripe secret and restricted keys
			`|whsec_[A-Za-z0-9+/=]{16,}` + // webhook signing secrets
			`|gh[pousr]_[A-Za-z0-9]{30,}` + // GitHub tokens
			`|github_pat_[A-Za-z0-9_]{30,}` +
			`|xox[abposr]-[A-Za-z0-9\-]{10,}` + // Slack tokens
			`|(?:AKIA|ASIA)[A-Z0-9]{16}` + // AWS access key ids
			`|AIza[A-Za-z0-9_\-]{35}` + // Google API keys
			`|glpat-[A-Za-z0-9_\-]{20,}` + // GitLab tokens
			`|npm_[A-Za-z0-9]{36}` +
			`|SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}` + // SendGrid
			`|sk-(?:proj-|ant-)?[A-Za-z0-9_\-]{32,}` + // model vendors' API keys
			`)`),
	}},
}

// secretPrefixes are the cheap test of the prefixed-token pattern.
var secretPrefixes = []string{"sk_", "rk_", "whsec_", "gh", "xox", "AKIA", "ASIA", "AIza", "glpat-", "npm_", "SG.", "sk-"}

func secretHint(s string) bool {
	for _, p := range secretPrefixes {
		if strings.Contains(s, p) {
			return true
		}
	}
	return false
}

func digitCount(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			n++
		}
	}
	return n
}

func hasUpperPair(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] >= 'A' && s[i] <= 'Z' && s[i+1] >= 'A' && s[i+1] <= 'Z' {
			return true
		}
	}
	return false
}

// digitsOf returns the digits of s, dropping separators.
func digitsOf(s string) []byte {
	out := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if s[i] >= '0' && s[i] <= '9' {
			out = append(out, s[i])
		}
	}
	return out
}

// cardNumber reports whether s (digits with optional separators) is a
// payment card number: 13 to 19 digits, a network's leading digits, a
// valid Luhn check digit, and separators (if any) of one kind.
func cardNumber(s string) bool {
	if strings.Contains(s, " ") && strings.Contains(s, "-") {
		return false
	}
	d := digitsOf(s)
	if len(d) < 13 || len(d) > 19 || !cardPrefix(d) {
		return false
	}
	return luhn(d)
}

// cardPrefix reports whether the digits begin as a card network's numbers
// do: Visa 4; Mastercard 51-55 and 2221-2720; American Express 34, 37;
// Diners 300-305, 36, 38; Discover 6011, 644-649, 65; JCB 3528-3589;
// UnionPay 62; Maestro 50, 56-58, 67.
func cardPrefix(d []byte) bool {
	n2 := int(d[0]-'0')*10 + int(d[1]-'0')
	n3 := n2*10 + int(d[2]-'0')
	n4 := n3*10 + int(d[3]-'0')
	switch {
	case d[0] == '4':
		return true
	case n2 >= 51 && n2 <= 55, n4 >= 2221 && n4 <= 2720:
		return true
	case n2 == 34, n2 == 37, n2 == 36, n2 == 38, n3 >= 300 && n3 <= 305:
		return true
	case n4 == 6011, n3 >= 644 && n3 <= 649, n2 == 65, n2 == 62, n2 == 50, n2 >= 56 && n2 <= 58, n2 == 67:
		return true
	case n4 >= 3528 && n4 <= 3589:
		return true
	}
	return false
}

// luhn reports whether digits end in a valid Luhn check digit.
func luhn(d []byte) bool {
	sum := 0
	for i := len(d) - 1; i >= 0; i-- {
		v := int(d[i] - '0')
		if (len(d)-1-i)%2 == 1 {
			v *= 2
			if v > 9 {
				v -= 9
			}
		}
		sum += v
	}
	return sum%10 == 0
}

// ibanLengths is each country's IBAN length (the IBAN registry).
var ibanLengths = map[string]int{
	"AD": 24, "AE": 23, "AL": 28, "AT": 20, "AZ": 28, "BA": 20, "BE": 16, "BG": 22, "BH": 22, "BR": 29,
	"BY": 28, "CH": 21, "CR": 22, "CY": 28, "CZ": 24, "DE": 22, "DK": 18, "DO": 28, "EE": 20, "EG": 29,
	"ES": 24, "FI": 18, "FO": 18, "FR": 27, "GB": 22, "GE": 22, "GI": 23, "GL": 18, "GR": 27, "GT": 28,
	"HR": 21, "HU": 28, "IE": 22, "IL": 23, "IQ": 23, "IS": 26, "IT": 27, "JO": 30, "KW": 30, "KZ": 20,
	"LB": 28, "LC": 32, "LI": 21, "LT": 20, "LU": 20, "LV": 21, "MC": 27, "MD": 24, "ME": 22, "MK": 19,
	"MR": 27, "MT": 31, "MU": 30, "NL": 18, "NO": 15, "PK": 24, "PL": 28, "PS": 29, "PT": 25, "QA": 29,
	"RO": 24, "RS": 22, "SA": 24, "SC": 31, "SE": 24, "SI": 19, "SK": 24, "SM": 27, "ST": 25, "SV": 28,
	"TL": 23, "TN": 24, "TR": 26, "UA": 29, "VA": 22, "VG": 24, "XK": 20,
}

// ibanFit cuts a candidate to its country's IBAN length (a match may run
// on into the next word: "DE89 3704 0044 0532 0130 00 EUR"). The cut must
// end the word, or be followed by a space.
func ibanFit(m, after string) (int, bool) {
	n, ok := ibanLengths[m[:2]]
	if !ok {
		return 0, false
	}
	count := 0
	for i := 0; i < len(m); i++ {
		if m[i] == ' ' {
			continue
		}
		count++
		if count == n {
			rest := m[i+1:] + after
			if rest != "" && rest[0] != ' ' && isAlnum(rest[0]) {
				return 0, false
			}
			return i + 1, true
		}
	}
	return 0, false
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
}

// ibanNumber reports whether s (spaces allowed) is an IBAN: a known
// country, its length, and a mod-97 remainder of 1.
func ibanNumber(s string) bool {
	s = strings.ReplaceAll(s, " ", "")
	if n, ok := ibanLengths[s[:2]]; !ok || n != len(s) {
		return false
	}
	r := s[4:] + s[:4]
	rem := 0
	for i := 0; i < len(r); i++ {
		c := r[i]
		switch {
		case c >= '0' && c <= '9':
			rem = (rem*10 + int(c-'0')) % 97
		case c >= 'A' && c <= 'Z':
			rem = (rem*100 + int(c-'A') + 10) % 97
		default:
			return false
		}
	}
	return rem == 1
}
