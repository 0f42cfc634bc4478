package httpapi

import "testing"

func TestSameWebOrigin_LoopbackNamesAreOneOrigin(t *testing.T) {
	t.Parallel()
	cases := []struct {
		origin, web string
		want        bool
	}{
		{"http://localhost:8080", "http://localhost:8080", true},
		{"http://127.0.0.1:8080", "http://localhost:8080", true},
		{"http://[::1]:8080", "http://localhost:8080", true},
		{"http://localhost:8080", "http://127.0.0.1:8080", true},
		{"http://LOCALHOST:8080", "http://[::1]:8080", true},
		{"http://127.0.0.1", "http://localhost:80", true},
		{"http://127.0.0.1:8081", "http://localhost:8080", false},
		{"https://127.0.0.1:8080", "http://localhost:8080", false},
		{"http://127.0.0.2:8080", "http://localhost:8080", false},
		{"http://localhost.evil.example:8080", "http://localhost:8080", false},
		{"http://127.0.0.1:8080", "https://app.example", false},
		{"https://app.example", "https://app.example", true},
		{"https://APP.example", "https://app.example", true},
		{"https://app.example:443", "https://app.example", false},
		{"https://evil.example", "https://app.example", false},
		{"null", "http://localhost:8080", false},
		{"http://user@127.0.0.1:8080", "http://localhost:8080", false},
	}
	for _, c := range cases {
		if got := sameWebOrigin(c.origin, c.web); got != c.want {
			t.Errorf("sameWebOrigin(%q, %q) = %v, want %v", c.origin, c.web, got, c.want)
		}
	}
}
