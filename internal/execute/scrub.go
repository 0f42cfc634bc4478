package execute

import (
	"bytes"
	"encoding/json"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// minScrubbed is the shortest secret value scrubSecrets looks for: a
// shorter one (a custom field such as a region) would match ordinary text.
const minScrubbed = 8

var redactedValue = []byte("[redacted]")

// scrubSecrets replaces, in a provider's answer, every occurrence of one of
// the credential's secret values with [redacted], so that a provider that
// echoes a key, password or token back (an error quoting the request, an
// account resource that holds its own token) never hands it to the caller
// of a tool or the proxy. An answer without any is returned as it is, with
// no allocation.
func scrubSecrets(body []byte, c account.Credential) []byte {
	for _, s := range [...]string{c.APIKey, c.Password, c.AccessToken, c.RefreshToken, c.ClientSecret, c.SecretAccessKey, c.SessionToken, c.PrivateKey} {
		body = scrubOne(body, s)
	}
	for _, s := range c.Fields {
		body = scrubOne(body, s)
	}
	return body
}

func scrubOne(body []byte, s string) []byte {
	if len(s) < minScrubbed || !bytes.Contains(body, []byte(s)) {
		return body
	}
	return bytes.ReplaceAll(body, []byte(s), redactedValue)
}

// omitFields removes a connector's api.omit fields from a JSON answer of
// the raw proxy (credentials its API sends back, such as Twilio's account
// auth_token); it reports false for an answer that is not JSON, which the
// proxy then cannot pass on.
func omitFields(con *catalog.Connector, body []byte) (any, bool) {
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		return nil, false
	}
	for _, p := range con.API.Omit {
		catalog.DeletePath(v, p)
	}
	return v, true
}
