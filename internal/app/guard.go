package app

import (
	"crypto/tls"
	"net/netip"
	"slices"

	"github.com/switchboard-gw/switchboard/internal/config"
	"github.com/switchboard-gw/switchboard/internal/netguard"
)

// OutboundGuard is the outbound guard of a configuration: the private
// networks opened per purpose, and, in development, loopback for webhook
// receivers (--webhooks-allow-http-loopback) and nothing else.
func OutboundGuard(cfg *config.Config) *netguard.Guard { return newGuard(cfg, false, nil) }

// newGuard is OutboundGuard, with loopback opened to every purpose and
// other TLS settings when tests ask for them.
func newGuard(cfg *config.Config, allowLoopback bool, tlsConfig *tls.Config) *netguard.Guard {
	allow := cfg.OutboundAllowances
	if cfg.WebhooksAllowHTTPLoopback {
		allow.Webhooks = append(slices.Clip(allow.Webhooks), netip.MustParsePrefix("127.0.0.0/8"), netip.MustParsePrefix("::1/128"))
	}
	return netguard.New(netguard.Options{Allow: allow, AllowLoopback: allowLoopback, TLSConfig: tlsConfig})
}
