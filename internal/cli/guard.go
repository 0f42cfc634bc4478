package cli

import (
	"github.com/switchboard-gw/switchboard/internal/app"
	"github.com/switchboard-gw/switchboard/internal/config"
	"github.com/switchboard-gw/switchboard/internal/netguard"
)

// outboundGuard is the outbound guard of a configuration (app.OutboundGuard),
// for admin commands that reach out on their own.
func outboundGuard(cfg *config.Config) *netguard.Guard { return app.OutboundGuard(cfg) }
