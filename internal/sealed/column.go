// Package sealed looks after the stored secrets as a whole, rather than one
// at a time: which keys the sealed data needs, checked at every start
// against the key ring (Check), and resealing everything under the ring's
// primary key so that an old key can be retired (Rekey).
package sealed

import (
	"fmt"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/mcpauth"
	"github.com/switchboard-gw/switchboard/internal/secret"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/trigger"
	"github.com/switchboard-gw/switchboard/internal/upstream"
	"github.com/switchboard-gw/switchboard/internal/webhook"
)

// purposes maps each sealed column to the purpose its owner binds values to
// (the AAD is the purpose and the row id). A test checks that every column
// the store lists has one.
var purposes = map[string]string{
	"connections.credential":     account.PurposeCredential,
	"auth_configs.client_secret": account.PurposeClientSecret,
	"webhooks.secret":            webhook.PurposeSecret,
	"triggers.secret":            trigger.PurposeSecret,
	// internal/connect seals the PKCE verifier of an OAuth flow under this
	// literal purpose.
	"oauth_states.verifier":      "oauth_state.verifier",
	"project_connectors.headers": upstream.PurposeHeaders,
	"endpoints.auth_secret":      mcpauth.PurposeAuthSecret,
}

// aad returns the additional data a stored value was sealed with.
func aad(v store.SealedValue) ([]byte, error) {
	p, ok := purposes[v.Column]
	if !ok {
		return nil, fmt.Errorf("sealed: no purpose known for column %s", v.Column)
	}
	return secret.AAD(p, v.RowID()), nil
}
