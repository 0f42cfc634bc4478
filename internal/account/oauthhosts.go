package account

import (
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// OAuthHosts returns the hosts an auth config's OAuth client may send its
// secret to when the connector's OAuth URLs take a user-typed host: the
// hosts the operator set on the auth config, or else the connector
// definition's allowedHosts.
func OAuthHosts(ac store.AuthConfig, m *catalog.AuthMethod) []string {
	if len(ac.Hosts) > 0 {
		return ac.Hosts
	}
	if m == nil || m.OAuth2 == nil {
		return nil
	}
	return m.OAuth2.AllowedHosts
}
