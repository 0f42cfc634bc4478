package execute

import (
	"net/url"

	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// posthogIngestHosts maps PostHog Cloud app hosts to their ingestion hosts:
// events are captured on us.i.posthog.com and eu.i.posthog.com, not on the
// app host the rest of the API uses. A self-hosted instance takes both on
// its one host.
var posthogIngestHosts = map[string]string{
	"us.posthog.com":  "us.i.posthog.com",
	"app.posthog.com": "us.i.posthog.com",
	"eu.posthog.com":  "eu.i.posthog.com",
}

// posthogCapture maps the capture tool as usual, then sends it to the
// connection's ingestion host.
func posthogCapture(tool *catalog.Tool, input map[string]any, base *url.URL) (*outgoing, error) {
	out, err := buildRequest(tool, input, base)
	if err != nil {
		return nil, err
	}
	if h, ok := posthogIngestHosts[out.URL.Host]; ok {
		u := *out.URL
		u.Host = h
		out.URL = &u
	}
	return out, nil
}
