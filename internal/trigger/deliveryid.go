package trigger

import (
	"net/http"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// idSource says where a provider puts the id of a delivery, the same on
// every retry of it: a header, or a dotted path into the JSON body. A body
// id is covered by the signature; a header id usually is not (GitHub signs
// only the body), so a header id stops resends of a delivery, and a replayer
// who also changes the header is left to the signature's own replay rules.
type idSource struct {
	headers []string // the first one present wins
	body    string
	// signedHeader: the scheme's signature covers the header id too.
	signedHeader bool
}

// deliveryIDs is, per verification scheme, where its providers name a
// delivery. Schemes missing here (Calendly, Zoom, ClickUp, Asana, HubSpot's
// batches) send no stable id; their timestamped signatures are the replay
// guard where they have one.
var deliveryIDs = map[string]idSource{
	"github_hmac_sha256": {headers: []string{"X-GitHub-Delivery"}},
	"gitlab_token":       {headers: []string{"Idempotency-Key", "X-Gitlab-Event-UUID"}},
	"shopify_hmac":       {headers: []string{"X-Shopify-Webhook-Id"}},
	"linear_hmac":        {headers: []string{"Linear-Delivery"}},
	"jira_hmac":          {headers: []string{"X-Atlassian-Webhook-Identifier"}},
	"sentry":             {headers: []string{"Request-ID"}},
	"twilio":             {headers: []string{"I-Twilio-Idempotency-Token"}},
	"zendesk":            {headers: []string{"X-Zendesk-Webhook-Invocation-Id"}},
	"standard_webhooks":  {headers: []string{"Webhook-Id"}, signedHeader: true},
	"stripe":             {body: "id"},
	"slack_v0":           {body: "event_id"},
	"intercom_hmac_sha1": {body: "id"},
	"pagerduty_v1":       {body: "event.id"},
	"square":             {body: "event_id"},
}

// maxDeliveryIDLen bounds an id taken from a delivery; longer is not an id.
const maxDeliveryIDLen = 200

// deliveryID returns the provider's id of a verified delivery, or "" when
// the scheme or this delivery has none, and whether the signature covers it.
func deliveryID(scheme string, h http.Header, body any) (id string, signed bool) {
	src, ok := deliveryIDs[scheme]
	if !ok {
		return "", false
	}
	signed = src.signedHeader
	for _, name := range src.headers {
		if id = strings.TrimSpace(h.Get(name)); id != "" {
			break
		}
	}
	if id == "" && src.body != "" {
		id, _ = catalog.SelectPath(body, src.body).(string)
		signed = true
	}
	if id == "" || len(id) > maxDeliveryIDLen {
		return "", false
	}
	return id, signed
}
