package webhook

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"syscall"

	"github.com/switchboard-gw/switchboard/internal/netguard"
)

// failureCause turns a failed send into the short cause the delivery log
// stores, and says whether trying again can help. The raw error is never
// stored: it carries resolved addresses and dial details of the network
// the server runs in.
func failureCause(err error) (cause string, retry bool) {
	var (
		dnsErr   *net.DNSError
		certErr  *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		hostErr  x509.HostnameError
		invalid  x509.CertificateInvalidError
		alertErr tls.AlertError
		recErr   tls.RecordHeaderError
		netErr   net.Error
	)
	switch {
	case errors.Is(err, netguard.ErrForbiddenAddress):
		// The guard's rule will not change by waiting; retrying for 38 hours
		// would only probe the address again and again.
		return "address not allowed: the host resolves to a private or reserved address; not retried", false
	case errors.As(err, &dnsErr):
		if dnsErr.IsNotFound {
			return "the host name does not resolve", true
		}
		return "DNS lookup failed", true
	case errors.As(err, &certErr), errors.As(err, &unknown), errors.As(err, &hostErr), errors.As(err, &invalid):
		return "TLS handshake failed: the certificate is not trusted for this host", true
	case errors.As(err, &alertErr), errors.As(err, &recErr):
		return "TLS handshake failed", true
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused", true
	case errors.Is(err, syscall.ECONNRESET):
		return "connection reset", true
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "host unreachable", true
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "timeout", true
	}
	return "the request failed before an answer", true
}
