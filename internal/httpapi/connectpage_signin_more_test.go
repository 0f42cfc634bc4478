package httpapi

import (
	"context"
	"net/http"
	"strings"
	"testing"
)

// moreSignInConnectors are the built-in OAuth connectors whose sign-in
// hands over no value beyond the token (or only what the user typed):
// TestConnect_SignInWholeFlow runs their whole flow.
var moreSignInConnectors = []string{"bitbucket", "box", "calendly", "clickup", "close_crm", "figma", "front", "gitlab", "gmail", "google_docs", "google_drive",
	"google_meet", "google_sheets", "google_tasks", "help_scout", "intercom", "linear", "microsoft_excel", "monday", "okta", "onedrive",
	"pagerduty", "sentry", "sharepoint", "shopify", "slack", "square", "stripe", "todoist", "typeform", "vercel", "zendesk", "zoom",
	// conn-a
	"attio", "cal_com", "klaviyo", "webflow", "miro",
	"smartsheet",
	// conn-e
	"docusign", "servicenow"}

// googleParams are the authorize parameters every Google sign-in carries:
// offline access for a refresh token, and consent so that Google sends
// one again on a new sign-in.
func googleParams(scope string) map[string]string {
	return map[string]string{"scope": scope, "access_type": "offline", "prompt": "consent", "response_type": "code"}
}

// TestConnect_SignInWholeFlow runs, for each built-in OAuth connector not
// in TestConnect_SignInHandsOverAccountValues, the whole sign-in through a
// connect link against a fake provider, as each provider documents it
// (each definition's header names the documentation): the authorize URL
// (host and path, scopes exactly, PKCE S256 where the provider takes it,
// extra parameters), the code exchange (the fake's signInTokens entry
// checks the client authentication, the body type and extra fields), the
// fields the account keeps, the first tool call's host and path, and,
// where tokens expire, the refresh at the documented URL.
func TestConnect_SignInWholeFlow(t *testing.T) {
	t.Parallel()
	fake := newSignInFake(t)
	cases := []signInCase{{
		// Bitbucket: permissions are ticked on the consumer, not asked for
		// as scopes; the client in a basic header; two-hour tokens.
		connector: "bitbucket", authorize: "/bitbucket.org/site/oauth2/authorize",
		params: map[string]string{"response_type": "code"}, noParams: []string{"scope"},
		token: "/bitbucket.org/site/oauth2/access_token", identity: "/api.bitbucket.org/2.0/user",
		tool: "bitbucket_get_repository", input: `{"workspace":"acme","repo_slug":"api"}`,
		wantPath: "/api.bitbucket.org/2.0/repositories/acme/api",
		refresh:  "/bitbucket.org/site/oauth2/access_token",
	}, {
		// Box: no PKCE, the client in the body, scope root_readwrite.
		connector: "box", authorize: "/account.box.com/api/oauth2/authorize",
		params: map[string]string{"response_type": "code", "scope": "root_readwrite"},
		token:  "/api.box.com/oauth2/token", identity: "/api.box.com/2.0/users/me",
		tool: "box_get_folder", input: `{"folder_id":"0"}`, wantPath: "/api.box.com/2.0/folders/0",
		refresh: "/api.box.com/oauth2/token",
	}, {
		// Calendly: PKCE, and scopes (mandatory for apps created since 2026).
		connector: "calendly", authorize: "/auth.calendly.com/oauth/authorize", pkce: true,
		params: map[string]string{"response_type": "code",
			"scope": "users:read event_types:read scheduled_events:read scheduled_events:write scheduling_links:write webhooks:read webhooks:write"},
		token: "/auth.calendly.com/oauth/token", identity: "/api.calendly.com/users/me",
		tool: "calendly_get_current_user", input: `{}`, wantPath: "/api.calendly.com/users/me",
		refresh: "/auth.calendly.com/oauth/token",
	}, {
		// ClickUp: no scopes (the user picks workspaces), tokens that last.
		connector: "clickup", authorize: "/app.clickup.com/api", noParams: []string{"scope"},
		token: "/api.clickup.com/api/v2/oauth/token", identity: "/api.clickup.com/api/v2/user",
		tool: "clickup_list_workspaces", input: `{}`, wantPath: "/api.clickup.com/api/v2/team",
	}, {
		// Close: no scope parameter (every app gets all.full_access
		// offline_access), no PKCE, the client in the form body, refresh.
		connector: "close_crm", authorize: "/app.close.com/oauth2/authorize/",
		params: map[string]string{"response_type": "code"}, noParams: []string{"scope", "code_challenge"},
		token: "/api.close.com/oauth2/token/", identity: "/api.close.com/api/v1/me/",
		tool: "close_crm_get_lead", input: `{"lead_id":"lead_IIDHIStmFDvyOkw5"}`,
		wantPath: "/api.close.com/api/v1/lead/lead_IIDHIStmFDvyOkw5/",
		refresh:  "/api.close.com/oauth2/token/",
	}, {
		// Figma: PKCE, the client in a basic header, and a refresh URL of
		// its own.
		connector: "figma", authorize: "/www.figma.com/oauth", pkce: true,
		params: map[string]string{"response_type": "code", "scope": "current_user:read file_content:read file_metadata:read " +
			"file_versions:read file_comments:read file_comments:write projects:read library_content:read"},
		token: "/api.figma.com/v1/oauth/token", identity: "/api.figma.com/v1/me",
		tool: "figma_get_me", input: `{}`, wantPath: "/api.figma.com/v1/me",
		refresh: "/api.figma.com/v1/oauth/refresh",
	}, {
		// Front: no scope parameter (access is set on the app), no PKCE,
		// the client in a basic header, expiring tokens with refresh.
		connector: "front", authorize: "/app.frontapp.com/oauth/authorize",
		params: map[string]string{"response_type": "code"}, noParams: []string{"scope", "code_challenge"},
		token: "/app.frontapp.com/oauth/token", identity: "/api2.frontapp.com/me",
		tool: "front_get_conversation", input: `{"conversation_id":"cnv_55c8c149"}`,
		wantPath: "/api2.frontapp.com/conversations/cnv_55c8c149",
		refresh:  "/app.frontapp.com/oauth/token",
	}, {
		// GitLab.com: the host the account keeps, PKCE, refresh tokens.
		connector: "gitlab", typed: `{"host":"gitlab.com"}`, authorize: "/gitlab.com/oauth/authorize", pkce: true,
		params: map[string]string{"response_type": "code", "scope": "api read_user"},
		token:  "/gitlab.com/oauth/token", identity: "/gitlab.com/api/v4/user",
		stored: map[string]string{"host": "gitlab.com"},
		tool:   "gitlab_get_current_user", input: `{}`, wantPath: "/gitlab.com/api/v4/user",
		refresh: "/gitlab.com/oauth/token",
	}, {
		connector: "gmail", authorize: "/accounts.google.com/o/oauth2/v2/auth", pkce: true,
		params: googleParams("https://www.googleapis.com/auth/gmail.send https://www.googleapis.com/auth/gmail.readonly " +
			"https://www.googleapis.com/auth/gmail.modify https://mail.google.com/ https://www.googleapis.com/auth/gmail.settings.basic"),
		token: "/oauth2.googleapis.com/token", identity: "/gmail.googleapis.com/gmail/v1/users/me/profile",
		tool: "gmail_list_labels", input: `{}`, wantPath: "/gmail.googleapis.com/gmail/v1/users/me/labels",
		refresh: "/oauth2.googleapis.com/token",
	}, {
		// No identity call: the Docs API has no "who am I".
		connector: "google_docs", authorize: "/accounts.google.com/o/oauth2/v2/auth", pkce: true,
		params: googleParams("https://www.googleapis.com/auth/documents.readonly https://www.googleapis.com/auth/documents"),
		token:  "/oauth2.googleapis.com/token",
		tool:   "google_docs_get_document", input: `{"documentId":"d1"}`, wantPath: "/docs.googleapis.com/v1/documents/d1",
		refresh: "/oauth2.googleapis.com/token",
	}, {
		connector: "google_drive", authorize: "/accounts.google.com/o/oauth2/v2/auth", pkce: true,
		params: googleParams("https://www.googleapis.com/auth/drive.readonly https://www.googleapis.com/auth/drive"),
		token:  "/oauth2.googleapis.com/token", identity: "/www.googleapis.com/drive/v3/about",
		tool: "google_drive_get_file", input: `{"fileId":"f1"}`, wantPath: "/www.googleapis.com/drive/v3/files/f1",
		refresh: "/oauth2.googleapis.com/token",
	}, {
		// No identity call: the Meet API has no "who am I".
		connector: "google_meet", authorize: "/accounts.google.com/o/oauth2/v2/auth", pkce: true,
		params: googleParams("https://www.googleapis.com/auth/meetings.space.created https://www.googleapis.com/auth/meetings.space.readonly " +
			"https://www.googleapis.com/auth/meetings.space.settings"),
		token: "/oauth2.googleapis.com/token",
		tool:  "google_meet_get_space", input: `{"space":"abc-mnop-xyz"}`, wantPath: "/meet.googleapis.com/v2/spaces/abc-mnop-xyz",
		refresh: "/oauth2.googleapis.com/token",
	}, {
		connector: "google_sheets", authorize: "/accounts.google.com/o/oauth2/v2/auth", pkce: true,
		params: googleParams("https://www.googleapis.com/auth/spreadsheets.readonly https://www.googleapis.com/auth/spreadsheets"),
		token:  "/oauth2.googleapis.com/token",
		tool:   "google_sheets_get_spreadsheet", input: `{"spreadsheetId":"s1"}`, wantPath: "/sheets.googleapis.com/v4/spreadsheets/s1",
		refresh: "/oauth2.googleapis.com/token",
	}, {
		// No identity call: the Tasks API has no "who am I".
		connector: "google_tasks", authorize: "/accounts.google.com/o/oauth2/v2/auth", pkce: true,
		params: googleParams("https://www.googleapis.com/auth/tasks.readonly https://www.googleapis.com/auth/tasks"),
		token:  "/oauth2.googleapis.com/token",
		tool:   "google_tasks_get_task_list", input: `{"tasklist":"l1"}`, wantPath: "/tasks.googleapis.com/tasks/v1/users/@me/lists/l1",
		refresh: "/oauth2.googleapis.com/token",
	}, {
		// Help Scout: no scopes, no PKCE, the client in the body of a form,
		// expiring tokens with refresh.
		connector: "help_scout", authorize: "/secure.helpscout.net/authentication/authorizeClientApplication",
		noParams: []string{"scope", "code_challenge"},
		token:    "/api.helpscout.net/v2/oauth2/token", identity: "/api.helpscout.net/v2/users/me",
		tool: "help_scout_get_conversation", input: `{"conversationId":10001}`,
		wantPath: "/api.helpscout.net/v2/conversations/10001",
		refresh:  "/api.helpscout.net/v2/oauth2/token",
	}, {
		// Intercom: permissions are set on the app, not asked for; the
		// token comes from the US host, a European workspace is called on
		// its own.
		connector: "intercom", typed: `{"host":"api.eu.intercom.io"}`, authorize: "/app.intercom.com/oauth", noParams: []string{"scope"},
		token: "/api.intercom.io/auth/eagle/token", identity: "/api.eu.intercom.io/me",
		stored: map[string]string{"host": "api.eu.intercom.io"},
		tool:   "intercom_list_conversations", input: `{}`, wantPath: "/api.eu.intercom.io/conversations",
		wantHdr: http.Header{"Intercom-Version": {"2.16"}},
	}, {
		// Linear: comma-separated scopes, PKCE, refresh tokens.
		connector: "linear", authorize: "/linear.app/oauth/authorize", pkce: true,
		params: map[string]string{"response_type": "code", "scope": "read,write"},
		token:  "/api.linear.app/oauth/token", identity: "/api.linear.app/graphql",
		tool: "linear_list_issues", input: `{}`, wantPath: "/api.linear.app/graphql",
		refresh: "/api.linear.app/oauth/token",
	}, {
		// Microsoft Graph's Excel API: work or school accounts only.
		connector: "microsoft_excel", typed: `{}`, authorize: "/login.microsoftonline.com/organizations/oauth2/v2.0/authorize", pkce: true,
		params: map[string]string{"response_type": "code", "scope": "offline_access User.Read Files.ReadWrite.All"},
		token:  "/login.microsoftonline.com/organizations/oauth2/v2.0/token", identity: "/graph.microsoft.com/v1.0/me",
		stored: map[string]string{"tenant": "organizations"},
		tool:   "microsoft_excel_list_worksheets", input: `{"driveId":"d1","itemId":"i1"}`,
		wantPath: "/graph.microsoft.com/v1.0/drives/d1/items/i1/workbook/worksheets",
		refresh:  "/login.microsoftonline.com/organizations/oauth2/v2.0/token",
	}, {
		// monday.com: the token goes bare in Authorization, with the
		// pinned API version.
		connector: "monday", authorize: "/auth.monday.com/oauth2/authorize",
		params: map[string]string{"response_type": "code",
			"scope": "me:read boards:read boards:write updates:read updates:write users:read workspaces:read"},
		token: "/auth.monday.com/oauth2/token", identity: "/api.monday.com/v2",
		tool: "monday_list_boards", input: `{}`, wantPath: "/api.monday.com/v2",
		wantHdr: http.Header{"Authorization": {"at-monday"}, "Api-Version": {"2026-10"}},
	}, {
		// Okta: the org's own authorization server, a basic header, PKCE.
		connector: "okta", typed: `{"domain":"acme.okta.com"}`, authorize: "/acme.okta.com/oauth2/v1/authorize", pkce: true,
		params: map[string]string{"response_type": "code", "scope": "okta.users.read okta.users.manage okta.groups.read " +
			"okta.groups.manage okta.apps.read okta.logs.read offline_access"},
		token: "/acme.okta.com/oauth2/v1/token", identity: "/acme.okta.com/api/v1/users/me",
		stored: map[string]string{"domain": "acme.okta.com"},
		tool:   "okta_get_user", input: `{"id":"00u1"}`, wantPath: "/acme.okta.com/api/v1/users/00u1",
		refresh: "/acme.okta.com/oauth2/v1/token",
	}, {
		// Microsoft Graph files: nothing typed signs in at common.
		connector: "onedrive", typed: `{}`, authorize: "/login.microsoftonline.com/common/oauth2/v2.0/authorize", pkce: true,
		params: map[string]string{"response_type": "code", "scope": "offline_access User.Read Files.Read.All Files.ReadWrite.All"},
		token:  "/login.microsoftonline.com/common/oauth2/v2.0/token", identity: "/graph.microsoft.com/v1.0/me",
		stored: map[string]string{"tenant": "common"},
		tool:   "onedrive_get_item", input: `{"itemId":"01ABC"}`, wantPath: "/graph.microsoft.com/v1.0/me/drive/items/01ABC",
		refresh: "/login.microsoftonline.com/common/oauth2/v2.0/token",
	}, {
		// PagerDuty scoped OAuth: PKCE, the API's version in Accept.
		connector: "pagerduty", authorize: "/identity.pagerduty.com/oauth/authorize", pkce: true,
		params: map[string]string{"response_type": "code",
			"scope": "incidents.read incidents.write services.read users.read schedules.read oncalls.read escalation_policies.read"},
		token: "/identity.pagerduty.com/oauth/token", identity: "/api.pagerduty.com/users/me",
		stored: map[string]string{"host": "api.pagerduty.com"},
		tool:   "pagerduty_get_incident", input: `{"id":"P1"}`, wantPath: "/api.pagerduty.com/incidents/P1",
		wantHdr: http.Header{"Accept": {"application/vnd.pagerduty+json;version=2"}},
		refresh: "/identity.pagerduty.com/oauth/token",
	}, {
		// Sentry: the sign-in on sentry.io, the calls on the data region's host.
		connector: "sentry", typed: `{"region":"de"}`, authorize: "/sentry.io/oauth/authorize/",
		params: map[string]string{"response_type": "code", "scope": "org:read project:read project:releases event:read event:write event:admin"},
		token:  "/sentry.io/oauth/token/", identity: "/de.sentry.io/api/0/",
		stored: map[string]string{"region": "de"},
		tool:   "sentry_list_organizations", input: `{}`, wantPath: "/de.sentry.io/api/0/organizations/",
		refresh: "/sentry.io/oauth/token/",
	}, {
		// SharePoint: work or school accounts only, so organizations when
		// nothing is typed.
		connector: "sharepoint", typed: `{}`, authorize: "/login.microsoftonline.com/organizations/oauth2/v2.0/authorize", pkce: true,
		params: map[string]string{"response_type": "code", "scope": "offline_access User.Read Sites.Read.All Sites.ReadWrite.All Sites.Manage.All"},
		token:  "/login.microsoftonline.com/organizations/oauth2/v2.0/token", identity: "/graph.microsoft.com/v1.0/me",
		stored: map[string]string{"tenant": "organizations"},
		tool:   "sharepoint_get_site", input: `{"siteId":"root"}`, wantPath: "/graph.microsoft.com/v1.0/sites/root",
		refresh: "/login.microsoftonline.com/organizations/oauth2/v2.0/token",
	}, {
		// Shopify: the shop the user types, comma-separated scopes, the
		// token in its own header.
		connector: "shopify", typed: `{"shop":"acme-store"}`, authorize: "/acme-store.myshopify.com/admin/oauth/authorize",
		params: map[string]string{"scope": "read_products,write_products,read_orders,write_orders,read_customers,write_customers," +
			"read_inventory,write_inventory,read_locations,read_merchant_managed_fulfillment_orders,write_merchant_managed_fulfillment_orders,write_price_rules"},
		token: "/acme-store.myshopify.com/admin/oauth/access_token", identity: "/acme-store.myshopify.com/admin/api/2026-10/shop.json",
		stored: map[string]string{"shop": "acme-store"},
		tool:   "shopify_list_products", input: `{}`, wantPath: "/acme-store.myshopify.com/admin/api/2026-10/products.json",
		wantHdr: http.Header{"X-Shopify-Access-Token": {"at-shopify"}, "Authorization": {""}},
	}, {
		// Slack: bot scopes comma-separated, no user scopes, the client in
		// a basic header.
		connector: "slack", authorize: "/slack.com/oauth/v2/authorize", noParams: []string{"user_scope"},
		params: map[string]string{"scope": "chat:write,channels:read,channels:history,channels:manage,channels:join,groups:read," +
			"groups:history,groups:write,im:read,im:history,im:write,mpim:read,users:read,users:read.email,users.profile:read," +
			"reactions:read,reactions:write,files:read,pins:write"},
		token: "/slack.com/api/oauth.v2.access", identity: "/slack.com/api/auth.test",
		tool: "slack_list_channels", input: `{}`, wantPath: "/slack.com/api/conversations.list",
	}, {
		// Square: the code exchange and the refresh take a JSON body.
		connector: "square", authorize: "/connect.squareup.com/oauth2/authorize",
		params: map[string]string{"response_type": "code", "scope": "MERCHANT_PROFILE_READ PAYMENTS_READ PAYMENTS_WRITE " +
			"CUSTOMERS_READ CUSTOMERS_WRITE ORDERS_READ ORDERS_WRITE ITEMS_READ"},
		token: "/connect.squareup.com/oauth2/token", identity: "/connect.squareup.com/v2/merchants/me",
		tool: "square_get_payment", input: `{"payment_id":"p1"}`, wantPath: "/connect.squareup.com/v2/payments/p1",
		wantHdr: http.Header{"Square-Version": {"2025-08-20"}},
		refresh: "/connect.squareup.com/oauth2/token",
	}, {
		// Stripe Connect OAuth: read_write, the secret in the body, tokens
		// that last.
		connector: "stripe", authorize: "/connect.stripe.com/oauth/authorize",
		params: map[string]string{"response_type": "code", "scope": "read_write"},
		token:  "/connect.stripe.com/oauth/token", identity: "/api.stripe.com/v1/account",
		tool: "stripe_get_customer", input: `{"customer":"cus_1"}`, wantPath: "/api.stripe.com/v1/customers/cus_1",
		wantHdr: http.Header{"Stripe-Version": {"2026-08-26.dahlia"}},
	}, {
		// Todoist API v1: authorize on app.todoist.com, the code exchange
		// on api.todoist.com, comma-separated scopes.
		connector: "todoist", authorize: "/app.todoist.com/oauth/authorize",
		params: map[string]string{"scope": "data:read,data:read_write,data:delete"},
		token:  "/api.todoist.com/oauth/access_token", identity: "/api.todoist.com/api/v1/user",
		tool: "todoist_get_task", input: `{"task_id":"t1"}`, wantPath: "/api.todoist.com/api/v1/tasks/t1",
	}, {
		// Typeform on the newer EU data center: its own OAuth server on
		// the API host the user typed, the client in the body, the offline
		// scope for a refresh token.
		connector: "typeform", typed: `{"host":"api.typeform.eu"}`, authorize: "/api.typeform.eu/oauth/authorize",
		params: map[string]string{"response_type": "code", "scope": "offline accounts:read forms:read forms:write " +
			"responses:read responses:write workspaces:read workspaces:write themes:read images:read images:write " +
			"webhooks:read webhooks:write"},
		token: "/api.typeform.eu/oauth/token", identity: "/api.typeform.eu/me",
		stored: map[string]string{"host": "api.typeform.eu"},
		tool:   "typeform_get_form", input: `{"form_id":"aBcD12"}`, wantPath: "/api.typeform.eu/forms/aBcD12",
		refresh: "/api.typeform.eu/oauth/token",
	}, {
		// Vercel Apps (Sign in with Vercel): PKCE required, OpenID scopes
		// with offline_access for a refresh token, the client in a basic
		// header.
		connector: "vercel", authorize: "/vercel.com/oauth/authorize", pkce: true,
		params: map[string]string{"response_type": "code", "scope": "openid email profile offline_access"},
		token:  "/api.vercel.com/login/oauth/token", identity: "/api.vercel.com/v2/user",
		tool: "vercel_get_project", input: `{"idOrName":"web"}`, wantPath: "/api.vercel.com/v9/projects/web",
		refresh: "/api.vercel.com/login/oauth/token",
	}, {
		// Zendesk: the subdomain typed, PKCE, and a code exchange as JSON
		// that names the scope again.
		connector: "zendesk", typed: `{"subdomain":"acme"}`, authorize: "/acme.zendesk.com/oauth/authorizations/new", pkce: true,
		params: map[string]string{"response_type": "code", "scope": "read write"},
		token:  "/acme.zendesk.com/oauth/tokens", identity: "/acme.zendesk.com/api/v2/users/me",
		stored: map[string]string{"subdomain": "acme"},
		tool:   "zendesk_get_ticket", input: `{"ticket_id":1}`, wantPath: "/acme.zendesk.com/api/v2/tickets/1",
		refresh: "/acme.zendesk.com/oauth/tokens",
	}, {
		// Zoom: granular scopes, PKCE, a basic header.
		connector: "zoom", authorize: "/zoom.us/oauth/authorize", pkce: true,
		params: map[string]string{"response_type": "code", "scope": "cloud_recording:read:list_recording_files " +
			"cloud_recording:read:list_user_recordings meeting:delete:meeting meeting:read:list_meetings " +
			"meeting:read:list_past_participants meeting:read:list_registrants meeting:read:meeting meeting:update:meeting " +
			"meeting:update:status meeting:write:meeting meeting:write:registrant user:read:user"},
		token: "/zoom.us/oauth/token", identity: "/api.zoom.us/v2/users/me",
		tool: "zoom_get_meeting", input: `{"meetingId":123}`, wantPath: "/api.zoom.us/v2/meetings/123",
		refresh: "/zoom.us/oauth/token",
	}, {
		// conn-a: Attio: no scope parameter (the app's scopes are ticked in
		// the developer dashboard), the client in the body, tokens that last.
		connector: "attio", authorize: "/app.attio.com/authorize",
		params: map[string]string{"response_type": "code"}, noParams: []string{"scope"},
		token: "/app.attio.com/oauth/token", identity: "/api.attio.com/v2/self",
		tool: "attio_get_record", input: `{"object":"people","record_id":"r1"}`,
		wantPath: "/api.attio.com/v2/objects/people/records/r1",
	}, {
		// conn-a: Cal.com: scopes named in the authorize URL, the client in
		// the body of a v2 token endpoint that also refreshes; each tool
		// pins its endpoint's cal-api-version.
		connector: "cal_com", authorize: "/app.cal.com/auth/oauth2/authorize",
		params: map[string]string{"response_type": "code", "scope": "PROFILE_READ PROFILE_WRITE BOOKING_READ BOOKING_WRITE " +
			"EVENT_TYPE_READ EVENT_TYPE_WRITE SCHEDULE_READ SCHEDULE_WRITE APPS_READ"},
		token: "/api.cal.com/v2/auth/oauth2/token", identity: "/api.cal.com/v2/me",
		tool: "cal_com_get_booking", input: `{"bookingUid":"bk1"}`, wantPath: "/api.cal.com/v2/bookings/bk1",
		wantHdr: http.Header{"Cal-Api-Version": {"2026-02-25"}},
		refresh: "/api.cal.com/v2/auth/oauth2/token",
	}, {
		// conn-a: Klaviyo: PKCE, the client in a basic header at the
		// a.klaviyo.com token host, the revision pinned on every call.
		connector: "klaviyo", authorize: "/www.klaviyo.com/oauth/authorize", pkce: true,
		params: map[string]string{"response_type": "code", "scope": "accounts:read profiles:read profiles:write lists:read " +
			"lists:write segments:read subscriptions:write campaigns:read campaigns:write flows:read flows:write metrics:read " +
			"events:read events:write templates:read"},
		token: "/a.klaviyo.com/oauth/token", identity: "/a.klaviyo.com/api/accounts",
		tool: "klaviyo_get_profile", input: `{"id":"01GDD"}`, wantPath: "/a.klaviyo.com/api/profiles/01GDD",
		wantHdr: http.Header{"Revision": {"2026-10-15"}},
		refresh: "/a.klaviyo.com/oauth/token",
	}, {
		// conn-a: Webflow Data Client app: scopes by spaces, the client in
		// the body, tokens that last.
		connector: "webflow", authorize: "/webflow.com/oauth/authorize",
		params: map[string]string{"response_type": "code", "scope": "authorized_user:read sites:read sites:write pages:read " +
			"pages:write cms:read cms:write forms:read forms:write assets:read ecommerce:read ecommerce:write"},
		token: "/api.webflow.com/oauth/access_token", identity: "/api.webflow.com/v2/sites",
		tool: "webflow_get_authorized_user", input: `{}`, wantPath: "/api.webflow.com/v2/token/authorized_by",
	}, {
		// conn-a: Miro: no scope parameter (the app's scopes), the client in
		// the form body, and the refresh (for apps with expiring tokens) at
		// the same v1 token URL.
		connector: "miro", authorize: "/miro.com/oauth/authorize",
		params: map[string]string{"response_type": "code"}, noParams: []string{"scope"},
		token: "/api.miro.com/v1/oauth/token", identity: "/api.miro.com/v1/oauth-token",
		tool: "miro_get_board", input: `{"board_id":"uXjVOfjkmAk="}`, wantPath: "/api.miro.com/v2/boards/uXjVOfjkmAk=",
		refresh: "/api.miro.com/v1/oauth/token",
	}, {
		// Smartsheet: the region typed (Regions Europe has its own app and
		// token hosts), scopes, the client in a form body, seven-day tokens.
		connector: "smartsheet", typed: `{"region":"eu"}`, authorize: "/app.smartsheet.eu/b/authorize",
		params: map[string]string{"response_type": "code", "scope": "READ_SHEETS WRITE_SHEETS CREATE_SHEETS DELETE_SHEETS " +
			"SHARE_SHEETS ADMIN_SHEETS ADMIN_WORKSPACES READ_USERS"},
		token: "/api.smartsheet.eu/2.0/token", identity: "/api.smartsheet.eu/2.0/users/me",
		stored: map[string]string{"region": "eu"},
		tool:   "smartsheet_get_row", input: `{"sheetId":4583173393803140,"rowId":6572427401553796}`,
		wantPath: "/api.smartsheet.eu/2.0/sheets/4583173393803140/rows/6572427401553796",
		refresh:  "/api.smartsheet.eu/2.0/token",
	}, {
		// conn-e: DocuSign: the account server, base URI host and API
		// account id typed (a developer account here), scopes signature and
		// extended, the client in a basic header, refresh at the same URL.
		connector: "docusign",
		typed:     `{"authHost":"account-d.docusign.com","host":"demo.docusign.net","accountId":"4f6c1a9e-8b2d-4c3e-9a7f-1d2e3f4a5b6c"}`,
		authorize: "/account-d.docusign.com/oauth/auth",
		params:    map[string]string{"response_type": "code", "scope": "signature extended"},
		token:     "/account-d.docusign.com/oauth/token",
		identity:  "/demo.docusign.net/restapi/v2.1/accounts/4f6c1a9e-8b2d-4c3e-9a7f-1d2e3f4a5b6c",
		stored: map[string]string{"authHost": "account-d.docusign.com", "host": "demo.docusign.net",
			"accountId": "4f6c1a9e-8b2d-4c3e-9a7f-1d2e3f4a5b6c"},
		tool: "docusign_get_envelope", input: `{"envelopeId":"93be49ab"}`,
		wantPath: "/demo.docusign.net/restapi/v2.1/accounts/4f6c1a9e-8b2d-4c3e-9a7f-1d2e3f4a5b6c/envelopes/93be49ab",
		refresh:  "/account-d.docusign.com/oauth/token",
	}, {
		// conn-e: ServiceNow: the instance typed, its own OAuth endpoints,
		// the useraccount scope, the client in the form body, refreshable
		// half-hour tokens.
		connector: "servicenow", typed: `{"instance":"acme"}`, authorize: "/acme.service-now.com/oauth_auth.do",
		params: map[string]string{"response_type": "code", "scope": "useraccount"},
		token:  "/acme.service-now.com/oauth_token.do", identity: "/acme.service-now.com/api/now/table/sys_user",
		stored: map[string]string{"instance": "acme"},
		tool:   "servicenow_get_incident", input: `{"sys_id":"9d38"}`,
		wantPath: "/acme.service-now.com/api/now/table/incident/9d38",
		refresh:  "/acme.service-now.com/oauth_token.do",
	}}
	if len(cases) != len(moreSignInConnectors) {
		t.Fatalf("%d cases for %d connectors", len(cases), len(moreSignInConnectors))
	}
	f := setupWith(t, sqliteDB, signInCatalog(t, fake, moreSignInConnectors...), fake.srv)
	for _, c := range cases {
		addOAuthClient(t, f, c.connector)
	}
	for _, c := range cases {
		t.Run(c.connector, func(t *testing.T) {
			f.t = t
			runSignIn(t, f, fake, c)
		})
	}
	expireTokens(f)
	for _, c := range cases {
		if c.refresh != "" {
			t.Run(c.connector+"/refresh", func(t *testing.T) {
				f.t = t
				runRefresh(t, f, fake, c)
			})
		}
	}
}

// TestConnect_TwilioAsksForTheAccountSid: Twilio's tools name the account
// in their paths, and an API key's SID is not the Account SID, so the page
// asks for it beside the basic credential, with its pattern; a value in
// another form is refused and nothing is stored.
func TestConnect_TwilioAsksForTheAccountSid(t *testing.T) {
	t.Parallel()
	fake := newSignInFake(t)
	f := setupWith(t, sqliteDB, signInCatalog(t, fake, "twilio"), fake.srv)
	token := f.link(t, `{"userId":"ann","connectors":["twilio"]}`)
	_, m, raw := f.page("GET", "/api/connect/"+token, "")
	var fields []any
	cfgID := ""
	for _, c := range dataOf(m)["connectors"].([]any) {
		for _, ac := range c.(map[string]any)["authConfigs"].([]any) {
			ac := ac.(map[string]any)
			fields, cfgID = ac["fields"].([]any), ac["id"].(string)
		}
	}
	var names []string
	var sid map[string]any
	for _, fl := range fields {
		fl := fl.(map[string]any)
		names = append(names, fl["name"].(string))
		if fl["name"] == "accountSid" {
			sid = fl
		}
	}
	if strings.Join(names, ",") != "username,password,accountSid" || sid == nil || sid["pattern"] != "AC[0-9a-fA-F]{32}" || sid["optional"] == true {
		t.Fatalf("fields %v, accountSid %v (view %s)", names, sid, raw)
	}
	r := f.do(f.h, "POST", "/api/connect/"+token+"/accounts", "",
		`{"authConfigId":"`+cfgID+`","fields":{"username":"SK0123456789abcdef0123456789abcdef","password":"s","accountSid":"SK0123456789abcdef0123456789abcdef"}}`,
		"Content-Type", "application/json")
	if r.status != 400 || !strings.Contains(string(r.body), "accountSid") {
		t.Fatalf("an API key SID as the Account SID: %d %s", r.status, r.body)
	}
	if conns, _ := f.store.ListConnections(context.Background(), f.project.ID, "ann"); len(conns) != 0 {
		t.Fatalf("%d accounts stored", len(conns))
	}
}
