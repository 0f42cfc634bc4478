package execute

import (
	"context"
	"encoding/json"
	"maps"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/account"
)

// TestBuiltInTools_ProviderContract pins, for tools whose provider moved
// (a retired API version, another host, another body field), the exact
// host, path, headers and body the provider documents today, so a definition
// cannot drift back. TestBuiltInTools_EachRunsAgainstAFake only checks that a
// request follows its definition.
func TestBuiltInTools_ProviderContract(t *testing.T) {
	t.Parallel()
	cat, e := newBuiltinEnv(t)

	cases := []struct {
		tool    string
		cred    map[string]any // fields over the sample credential
		input   map[string]any // fields over the sample input
		method  string
		host    string
		path    string
		header  map[string]string
		query   []string
		body    []string // top-level body fields that must be sent
		noBody  []string // and those that must not
		noQuery []string
	}{
		// Todoist REST v2 answers 410; API v1 lives under /api/v1, filters moved to /tasks/filter.
		{tool: "todoist_list_tasks", method: "GET", host: "api.todoist.com", path: "/api/v1/tasks", noQuery: []string{"filter", "lang"}},
		{tool: "todoist_filter_tasks", method: "GET", host: "api.todoist.com", path: "/api/v1/tasks/filter", query: []string{"query"}},
		{tool: "todoist_close_task", input: map[string]any{"task_id": "6X7rM8997g3RQmvh"}, method: "POST", host: "api.todoist.com", path: "/api/v1/tasks/6X7rM8997g3RQmvh/close"},
		// PostHog capture goes to the ingestion host, the rest to the app host.
		{tool: "posthog_capture_event", cred: map[string]any{"host": "eu.posthog.com"}, method: "POST", host: "eu.i.posthog.com", path: "/capture/"},
		{tool: "posthog_capture_event", cred: map[string]any{"host": "us.posthog.com"}, method: "POST", host: "us.i.posthog.com", path: "/capture/"},
		{tool: "posthog_capture_event", cred: map[string]any{"host": "posthog.example.com"}, method: "POST", host: "posthog.example.com", path: "/capture/"},
		{tool: "posthog_list_insights", cred: map[string]any{"host": "eu.posthog.com"}, method: "GET", host: "eu.posthog.com", path: "/api/projects/v-projectid/insights/"},
		// Shopify Admin API 2024-10 is out of support.
		{tool: "shopify_list_products", method: "GET", host: "acme-store.myshopify.com", path: "/admin/api/2026-10/products.json"},
		// Cloudflare: CAA, HTTPS, SRV, SVCB and URI records carry data, not content.
		{tool: "cloudflare_create_dns_record", input: map[string]any{"type": "SRV", "content": nil, "data": map[string]any{"priority": 10.0, "weight": 5.0, "port": 5060.0, "target": "sip.example.com"}},
			method: "POST", host: "api.cloudflare.com", path: "/client/v4/zones/v-zoneid/dns_records", body: []string{"type", "name", "data"}, noBody: []string{"content"}},
		{tool: "cloudflare_create_dns_record", input: map[string]any{"type": "A", "content": "192.0.2.1", "data": nil},
			method: "POST", host: "api.cloudflare.com", path: "/client/v4/zones/v-zoneid/dns_records", body: []string{"type", "name", "content"}, noBody: []string{"data"}},
		// HubSpot versions by date since 2026-03; the /crm/v3 and /crm/v4 paths are legacy (v4 support ends 2027-03-30).
		{tool: "hubspot_search_contacts", method: "POST", host: "api.hubapi.com", path: "/crm/objects/2026-09/contacts/search"},
		{tool: "hubspot_create_association", input: map[string]any{"fromObjectType": "contacts", "fromObjectId": "1", "toObjectType": "companies", "toObjectId": "2"},
			method: "PUT", host: "api.hubapi.com", path: "/crm/objects/2026-09/contacts/1/associations/default/companies/2"},
		// Notion 2025-09-03 split databases into data sources; 2026-03-11 renamed archived and after.
		{tool: "notion_query_database", method: "POST", host: "api.notion.com", path: "/v1/data_sources/v-datasourceid/query",
			header: map[string]string{"Notion-Version": "2026-03-11"}, query: []string{"filter_properties"}, body: []string{"filter", "sorts", "page_size"}, noBody: []string{"data_source_id", "filter_properties"}},
		{tool: "notion_get_data_source", method: "GET", host: "api.notion.com", path: "/v1/data_sources/v-datasourceid"},
		{tool: "notion_update_data_source", method: "PATCH", host: "api.notion.com", path: "/v1/data_sources/v-datasourceid", body: []string{"properties", "title"}},
		{tool: "notion_create_database", method: "POST", host: "api.notion.com", path: "/v1/databases", body: []string{"parent", "title", "initial_data_source"}, noBody: []string{"properties"}},
		{tool: "notion_update_database", method: "PATCH", host: "api.notion.com", path: "/v1/databases/v-databaseid", body: []string{"title", "description"}, noBody: []string{"properties"}},
		{tool: "notion_archive_page", method: "PATCH", host: "api.notion.com", path: "/v1/pages/v-pageid", body: []string{"in_trash"}, noBody: []string{"archived"}},
		{tool: "notion_append_block_children", method: "PATCH", host: "api.notion.com", path: "/v1/blocks/v-blockid/children", body: []string{"children", "position"}, noBody: []string{"after"}},
		// Pipedrive v1 deals, persons, organizations and activities are out of support since 2026-08-01; v2 pages by cursor.
		{tool: "pipedrive_list_deals", method: "GET", host: "api.pipedrive.com", path: "/api/v2/deals", header: map[string]string{"X-Api-Token": "key-pipedrive"},
			query: []string{"cursor", "owner_id", "sort_by"}, noQuery: []string{"start", "user_id", "api_token"}},
		{tool: "pipedrive_update_deal", input: map[string]any{"id": 42.0}, method: "PATCH", host: "api.pipedrive.com", path: "/api/v2/deals/42", body: []string{"stage_id", "owner_id"}, noBody: []string{"id", "user_id"}},
		{tool: "pipedrive_create_person", method: "POST", host: "api.pipedrive.com", path: "/api/v2/persons", body: []string{"name", "emails", "phones"}, noBody: []string{"email", "phone"}},
		{tool: "pipedrive_search_organizations", method: "GET", host: "api.pipedrive.com", path: "/api/v2/organizations/search", query: []string{"term", "cursor"}, noQuery: []string{"start"}},
		{tool: "pipedrive_update_activity", input: map[string]any{"id": 7.0, "done": true}, method: "PATCH", host: "api.pipedrive.com", path: "/api/v2/activities/7", body: []string{"done", "owner_id"}},
		{tool: "pipedrive_list_stages", method: "GET", host: "api.pipedrive.com", path: "/api/v2/stages", query: []string{"pipeline_id"}},
		// Notes have no v2 yet.
		{tool: "pipedrive_create_note", method: "POST", host: "api.pipedrive.com", path: "/api/v1/notes", body: []string{"content", "deal_id"}},
		{tool: "notion_search", input: map[string]any{"filter": map[string]any{"property": "object", "value": "data_source"}}, method: "POST", host: "api.notion.com", path: "/v1/search", body: []string{"filter"}},
	}
	for _, tc := range cases {
		tool, ok := cat.Tool(tc.tool)
		if !ok {
			t.Errorf("no tool %s", tc.tool)
			continue
		}
		con := tool.Connector()
		m := pickMethod(con)
		cred := sampleCredential(con, m)
		maps.Copy(cred, tc.cred)
		raw, _ := json.Marshal(cred)
		user := "u-" + tc.tool + "-" + tc.host
		if _, err := e.accounts.Create(context.Background(), e.tenant(), account.CreateRequest{ConnectorID: con.ID, UserID: user, Credential: raw}); err != nil {
			t.Errorf("%s: connect: %v", tc.tool, err)
			continue
		}
		input := allInput(tool)
		for k, v := range tc.input {
			if v == nil {
				delete(input, k)
			} else {
				input[k] = v
			}
		}
		in, _ := json.Marshal(input)
		before := len(e.fake.requests)
		if _, err := e.exec.Execute(context.Background(), e.tenant(), Call{ToolID: tool.ID, Input: in, UserID: user}); err != nil {
			t.Errorf("%s: %v", tc.tool, err)
			continue
		}
		if len(e.fake.requests) != before+1 {
			t.Errorf("%s: the provider got %d requests", tc.tool, len(e.fake.requests)-before)
			continue
		}
		got := e.fake.last()
		if host := got.Header.Get(originalHostHeader); got.Method != tc.method || host != tc.host || got.Path != tc.path {
			t.Errorf("%s: sent %s https://%s%s, want %s https://%s%s", tc.tool, got.Method, host, got.Path, tc.method, tc.host, tc.path)
		}
		for k, v := range tc.header {
			if got.Header.Get(k) != v {
				t.Errorf("%s: header %s = %q, want %q", tc.tool, k, got.Header.Get(k), v)
			}
		}
		for _, q := range tc.query {
			if !got.Query.Has(q) {
				t.Errorf("%s: query %s missing from %s", tc.tool, q, got.Query.Encode())
			}
		}
		for _, q := range tc.noQuery {
			if got.Query.Has(q) {
				t.Errorf("%s: query %s sent in %s", tc.tool, q, got.Query.Encode())
			}
		}
		if len(tc.body)+len(tc.noBody) == 0 {
			continue
		}
		var body map[string]any
		if err := json.Unmarshal([]byte(got.Body), &body); err != nil {
			t.Errorf("%s: body %q is not a JSON object", tc.tool, got.Body)
			continue
		}
		for _, b := range tc.body {
			if _, ok := body[b]; !ok {
				t.Errorf("%s: body field %s missing from %s", tc.tool, b, got.Body)
			}
		}
		for _, b := range tc.noBody {
			if _, ok := body[b]; ok {
				t.Errorf("%s: body field %s sent in %s", tc.tool, b, got.Body)
			}
		}
	}
}
