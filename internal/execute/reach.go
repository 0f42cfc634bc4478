package execute

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"

	"github.com/switchboard-gw/switchboard/internal/netguard"
)

// reachCause names why a request got no answer at all, in words an
// operator can act on: the certificate (unknown authority, expired, wrong
// name), DNS, a refused or reset connection, a timeout, a failed TLS
// handshake. It never quotes the error itself, which carries the request
// URL (with its query) and the resolved addresses. timeout reports a
// deadline passed.
func reachCause(err error) (cause string, timeout bool) {
	var (
		unknown  x509.UnknownAuthorityError
		hostErr  x509.HostnameError
		invalid  x509.CertificateInvalidError
		certErr  *tls.CertificateVerificationError
		dnsErr   *net.DNSError
		alertErr tls.AlertError
		recErr   tls.RecordHeaderError
		netErr   net.Error
	)
	switch {
	case err == nil:
		return causeUnknown, false
	case errors.Is(err, netguard.ErrForbiddenAddress):
		return "its address is on a private or local network, which Switchboard does not reach", false
	case errors.As(err, &unknown):
		return "its TLS certificate is signed by an unknown authority", false
	case errors.As(err, &hostErr):
		return "its TLS certificate is not valid for this host name", false
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return "its TLS certificate has expired or is not yet valid", false
	case errors.As(err, &invalid), errors.As(err, &certErr):
		return "its TLS certificate is not valid", false
	case errors.As(err, &dnsErr) && dnsErr.IsNotFound:
		return "the host name does not resolve (no such host)", false
	case errors.As(err, &dnsErr) && dnsErr.IsTimeout:
		return "the DNS lookup timed out", true
	case errors.As(err, &dnsErr):
		return "the DNS lookup failed", false
	case errors.As(err, &recErr):
		return "the TLS handshake failed: the server did not answer in TLS", false
	case errors.As(err, &alertErr):
		return "the TLS handshake failed: the server refused it", false
	case errors.Is(err, syscall.ECONNREFUSED):
		return "the connection was refused", false
	case errors.Is(err, syscall.ECONNRESET):
		return "the connection was reset", false
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "the host is unreachable", false
	case errors.As(err, &netErr) && netErr.Timeout() && strings.Contains(err.Error(), "TLS handshake timeout"):
		return "the TLS handshake timed out", true
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return causeNoAnswerInTime, true
	case strings.Contains(err.Error(), "tls: "):
		// A handshake failure the tls package reports without a type.
		return "the TLS handshake failed", false
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.EPIPE):
		return "the connection closed before an answer", false
	}
	return causeUnknown, false
}

// causeUnknown is the cause of a failure reachCause cannot name.
const causeUnknown = "the request failed before an answer"

// causeNoAnswerInTime is the cause of a request past its deadline.
const causeNoAnswerInTime = "it did not answer in time"

// hostOf is the host (and port) of a URL, for logs: never its path, query
// or user information.
func hostOf(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Host
}
