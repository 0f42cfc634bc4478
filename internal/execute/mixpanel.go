package execute

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"

	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// mixpanelIngestHosts maps a project's data residency host (the Query
// API's) to the host that takes its events.
var mixpanelIngestHosts = map[string]string{
	"mixpanel.com":    "api.mixpanel.com",
	"eu.mixpanel.com": "api-eu.mixpanel.com",
	"in.mixpanel.com": "api-in.mixpanel.com",
}

// mixpanelImport sends one event to the Import API (/import on the
// ingestion host of the connection's residency), which takes the service
// account the other tools use. The event gets an $insert_id derived from
// its name, user and time when the caller gives none, so that sending the
// same event twice records it once.
func mixpanelImport(tool *catalog.Tool, input map[string]any, base *url.URL) (*outgoing, error) {
	out, err := buildRequest(tool, input, base)
	if err != nil {
		return nil, err
	}
	host, ok := mixpanelIngestHosts[out.URL.Host]
	if !ok {
		return nil, fmt.Errorf("execute: no Mixpanel ingestion host for %s", out.URL.Host)
	}
	props := map[string]any{}
	if p, ok := input["properties"].(map[string]any); ok {
		for k, v := range p {
			props[k] = v
		}
	}
	event := str(input, "event")
	props["distinct_id"] = str(input, "distinct_id")
	props["time"] = input["time"]
	insertID := str(input, "insert_id")
	if insertID == "" {
		sum := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%s\x00%v", event, props["distinct_id"], props["time"])))
		insertID = hex.EncodeToString(sum[:16])
	}
	props["$insert_id"] = insertID
	u := *out.URL
	u.Host = host
	u.Path = "/import"
	u.RawPath = ""
	out.URL = &u
	return withJSONBody(out, []any{map[string]any{"event": event, "properties": props}})
}
