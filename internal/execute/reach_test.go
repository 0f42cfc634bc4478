package execute

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"errors"
	"io"
	"log"
	"log/slog"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/netguard"
)

// lockedLog is a log sink tests read while the executor may write.
type lockedLog struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *lockedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *lockedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// certServer is a TLS server on a self-signed certificate of its own for
// 127.0.0.1, valid until notAfter, and a pool that trusts it.
func certServer(t *testing.T, notAfter time.Time) (*httptest.Server, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(7), Subject: pkix.Name{CommonName: "expired"},
		NotBefore: time.Now().Add(-48 * time.Hour), NotAfter: notAfter,
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are the point
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	srv.StartTLS()
	t.Cleanup(srv.Close)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return srv, pool
}

// TestExecute_UnreachableProvider_NamesTheCause: a provider that gives no
// answer is UPSTREAM_ERROR naming why, and one WARN log line has the
// connector, the host and the cause, but not the request's query or key.
func TestExecute_UnreachableProvider_NamesTheCause(t *testing.T) {
	t.Parallel()
	// Every httptest server shares one certificate, which the fixture's
	// guard trusts: the untrusted server has one of its own.
	untrusted, _ := certServer(t, time.Now().Add(time.Hour))
	slow := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-time.After(5 * time.Second):
		}
	}))
	t.Cleanup(slow.Close)
	expired, expiredPool := certServer(t, time.Now().Add(-24*time.Hour))
	// Nothing listens on port 1 (tcpmux) here: a port freed by closing a
	// listener can be taken at once by another test's server, which then
	// answers instead of refusing.
	const closedHost = "127.0.0.1:1"

	cases := []struct {
		name, host, want string
		guard            func(e *env) *netguard.Guard
	}{
		{name: "unknown authority", host: strings.TrimPrefix(untrusted.URL, "https://"), want: "signed by an unknown authority"},
		{name: "name mismatch", want: "not valid for this host name"}, // the fake's certificate names 127.0.0.1, not localhost
		{name: "expired", host: strings.TrimPrefix(expired.URL, "https://"), want: "has expired",
			guard: func(*env) *netguard.Guard {
				return netguard.New(netguard.Options{AllowLoopback: true, Timeout: 2 * time.Second, TLSConfig: &tls.Config{RootCAs: expiredPool}})
			}},
		{name: "refused", host: closedHost, want: "the connection was refused"},
		{name: "timeout", host: strings.TrimPrefix(slow.URL, "https://"), want: "did not answer in time",
			guard: func(e *env) *netguard.Guard {
				pool := x509.NewCertPool()
				pool.AddCert(slow.Certificate())
				return netguard.New(netguard.Options{AllowLoopback: true, Timeout: 300 * time.Millisecond, TLSConfig: &tls.Config{RootCAs: pool}})
			}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, nil)
			logs := &lockedLog{}
			e.exec.log = slog.New(slog.NewJSONHandler(logs, nil))
			if c.guard != nil {
				e.exec.guard = c.guard(e)
			}
			host := c.host
			if host == "" {
				_, port, _ := net.SplitHostPort(e.fake.host())
				host = "localhost:" + port
			}
			e.connect("u1", map[string]any{"type": "api_key", "apiKey": "key-that-must-not-leak", "host": host})
			_, err := e.run("acme_get_item", `{"id":"1","verbose":true,"limit":3}`)
			ae := wantCode(t, err, apierr.UpstreamError, 502)
			if !strings.Contains(ae.Message, c.want) || !strings.Contains(ae.Message, "acme") {
				t.Errorf("message %q does not name the cause %q", ae.Message, c.want)
			}
			line := logs.String()
			for _, want := range []string{`"level":"WARN"`, `"connector_id":"acme"`, `"host":"` + host + `"`, c.want} {
				if !strings.Contains(line, want) {
					t.Errorf("log lacks %s: %s", want, line)
				}
			}
			for _, secret := range []string{"key-that-must-not-leak", "limit=3", "verbose"} {
				if strings.Contains(line, secret) || strings.Contains(ae.Message, secret) {
					t.Errorf("%q leaked: message %q, log %s", secret, ae.Message, line)
				}
			}
		})
	}
}

// TestReachCause_DNS: the error chain net/http returns for a name that does
// not resolve (the guard dials with the system resolver, which a test
// cannot steer, so the chain is built here as net/http builds it).
func TestReachCause_DNS(t *testing.T) {
	t.Parallel()
	dial := func(dnsErr *net.DNSError) error {
		return &url.Error{Op: "Get", URL: "https://nowhere.invalid/v1?token=secret",
			Err: &net.OpError{Op: "dial", Net: "tcp", Err: dnsErr}}
	}
	cases := []struct {
		err  error
		want string
		to   bool
	}{
		{dial(&net.DNSError{Err: "no such host", Name: "nowhere.invalid", IsNotFound: true}), "does not resolve", false},
		{dial(&net.DNSError{Err: "i/o timeout", Name: "nowhere.invalid", IsTimeout: true}), "DNS lookup timed out", true},
		{dial(&net.DNSError{Err: "server misbehaving", Name: "nowhere.invalid"}), "DNS lookup failed", false},
		{&url.Error{Op: "Get", URL: "https://x?token=secret", Err: errors.New("something else")}, "request failed before an answer", false},
	}
	for _, c := range cases {
		cause, timeout := reachCause(c.err)
		if !strings.Contains(cause, c.want) || timeout != c.to || strings.Contains(cause, "secret") {
			t.Errorf("reachCause(%v) = %q %v, want %q %v", c.err, cause, timeout, c.want, c.to)
		}
	}
}

// TestExecute_UnreachableTokenEndpoint_NamesTheCause: a token refresh that
// gets no answer says why, like a tool call, and never shows the tokens.
func TestExecute_UnreachableTokenEndpoint_NamesTheCause(t *testing.T) {
	t.Parallel()
	e := newEnv(t, nil)
	logs := &lockedLog{}
	e.exec.log = slog.New(slog.NewJSONHandler(logs, nil))
	closed, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	host := closed.Addr().String()
	closed.Close()
	e.oauthConfigOn(host)
	raw, _ := json.Marshal(map[string]any{"type": "oauth2", "accessToken": "old-access", "refreshToken": "refresh-secret",
		"expiresAt": e.clock.Now().Add(-time.Hour), "host": host})
	if _, err := e.accounts.Create(context.Background(), e.tenant(), createReq("u1", raw, "acme-oauth")); err != nil {
		t.Fatal(err)
	}
	_, err = e.run("acme_get_item", `{"id":"1"}`)
	ae := wantCode(t, err, apierr.UpstreamError, 502)
	if !strings.Contains(ae.Message, "token endpoint of acme") || !strings.Contains(ae.Message, "the connection was refused") {
		t.Fatalf("message: %q", ae.Message)
	}
	line := logs.String()
	if !strings.Contains(line, `"level":"WARN"`) || !strings.Contains(line, `"host":"`+host+`"`) || !strings.Contains(line, "connection was refused") {
		t.Fatalf("log: %s", line)
	}
	for _, secret := range []string{"refresh-secret", "old-access", "client-secret-1"} {
		if strings.Contains(line, secret) || strings.Contains(ae.Message, secret) {
			t.Fatalf("%q leaked: %q %s", secret, ae.Message, line)
		}
	}
}
