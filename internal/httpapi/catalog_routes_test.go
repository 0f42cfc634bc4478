package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// listBody decodes a page answer.
type listBody struct {
	Data       []map[string]any `json:"data"`
	NextCursor *string          `json:"nextCursor"`
	Facets     map[string]any   `json:"facets"`
}

func decodeList(t *testing.T, r response) listBody {
	t.Helper()
	if r.status != 200 {
		t.Fatalf("status %d: %s", r.status, r.body)
	}
	var b listBody
	if err := json.Unmarshal(r.body, &b); err != nil {
		t.Fatalf("%v: %s", err, r.body)
	}
	return b
}

func ids(b listBody) string {
	var out []string
	for _, d := range b.Data {
		out = append(out, d["id"].(string))
	}
	return strings.Join(out, ",")
}

func TestCatalogRoutes_ValidationErrors(t *testing.T) {
	t.Parallel()
	var scenarios []Scenario
	for _, c := range []struct{ path, field string }{
		{"/v1/connectors?limit=0", "limit"},
		{"/v1/connectors?limit=501", "limit"},
		{"/v1/connectors?limit=x", "limit"},
		{"/v1/connectors?cursor=", "cursor"},
		{"/v1/connectors?cursor=" + strings.Repeat("a", 301), "cursor"},
		{"/v1/connectors?cursor=bogus", "cursor"},
		{"/v1/connectors?query=", "query"},
		{"/v1/connectors?query=" + strings.Repeat("q", 201), "query"},
		{"/v1/connectors?category=games", "category"},
		{"/v1/connectors?popular=yes", "popular"},
		{"/v1/connectors?facets=1", "facets"},
		{"/v1/tools?view=compact", "view"},
		{"/v1/tools?dataClassification=secret", "dataClassification"},
		{"/v1/tools?category=x", "category"},
		{"/v1/tools?facets=TRUE", "facets"},
		{"/v1/tools?limit=1000", "limit"},
		{"/api/catalog?limit=0", "limit"},
		{"/api/catalog?popular=1", "popular"},
	} {
		sc := Scenario{Name: c.path, Method: "GET", Path: c.path, Status: 400, Code: "VALIDATION_ERROR", Issues: []string{c.field}}
		if strings.HasPrefix(c.path, "/api/") {
			sc.Auth = NoAuth
		}
		scenarios = append(scenarios, sc)
	}
	// Every problem is listed, not only the first.
	scenarios = append(scenarios, Scenario{Name: "every problem", Method: "GET", Path: "/v1/tools?limit=0&view=x&facets=maybe",
		Status: 400, Code: "VALIDATION_ERROR", Issues: []string{"view", "facets", "limit"}})
	runScenarios(t, scenarios)
}

func TestConnectorList_OrderFiltersFacetsAndPages(t *testing.T) {
	t.Parallel()
	f := setup(t)
	bearer := "Bearer " + f.key
	b := decodeList(t, f.do(f.h, "GET", "/v1/connectors", bearer, ""))
	if ids(b) != "beta,alpha,delta,gamma" || b.NextCursor != nil || b.Facets != nil {
		t.Fatalf("default order: %s next=%v facets=%v", ids(b), b.NextCursor, b.Facets)
	}
	item := b.Data[1]
	if item["logo"] != "http://sb.test/assets/logos/alpha" || item["mcp"] != false || item["category"] != "communication" {
		t.Fatalf("item: %v", item)
	}
	methods := item["authMethods"].([]any)
	if len(methods) != 2 || methods[0].(map[string]any)["type"] != "oauth2" || methods[0].(map[string]any)["id"] != "oauth2" {
		t.Fatalf("authMethods: %v", methods)
	}

	first := decodeList(t, f.do(f.h, "GET", "/v1/connectors?limit=2", bearer, ""))
	if ids(first) != "beta,alpha" || first.NextCursor == nil {
		t.Fatalf("page 1: %s %v", ids(first), first.NextCursor)
	}
	second := decodeList(t, f.do(f.h, "GET", "/v1/connectors?limit=2&cursor="+url.QueryEscape(*first.NextCursor), bearer, ""))
	if ids(second) != "delta,gamma" || second.NextCursor != nil {
		t.Fatalf("page 2: %s %v", ids(second), second.NextCursor)
	}
	// A cursor of one list is refused by another, and by another project.
	if r := f.do(f.h, "GET", "/v1/tools?cursor="+url.QueryEscape(*first.NextCursor), bearer, ""); r.status != 400 {
		t.Fatalf("foreign cursor: %d", r.status)
	}
	if r := f.do(f.h, "GET", "/api/catalog?cursor="+url.QueryEscape(*first.NextCursor), "", ""); r.status != 400 {
		t.Fatalf("private cursor on the public list: %d", r.status)
	}

	if got := ids(decodeList(t, f.do(f.h, "GET", "/v1/connectors?popular=true", bearer, ""))); got != "beta,alpha" {
		t.Fatalf("popular: %s", got)
	}
	if got := ids(decodeList(t, f.do(f.h, "GET", "/v1/connectors?popular=false", bearer, ""))); got != "delta,gamma" {
		t.Fatalf("not popular: %s", got)
	}
	if got := ids(decodeList(t, f.do(f.h, "GET", "/v1/connectors?category=finance", bearer, ""))); got != "beta" {
		t.Fatalf("category: %s", got)
	}
	if got := ids(decodeList(t, f.do(f.h, "GET", "/v1/connectors?query=chat", bearer, ""))); got != "alpha" {
		t.Fatalf("query: %s", got)
	}
	fb := decodeList(t, f.do(f.h, "GET", "/v1/connectors?facets=true&category=finance", bearer, ""))
	cat := fb.Facets["category"].(map[string]any)
	// The category facet ignores the category filter; popular respects it.
	if cat["finance"] != float64(1) || cat["communication"] != float64(1) || cat["productivity"] != float64(2) || fb.Facets["popular"] != float64(1) {
		t.Fatalf("facets: %v", fb.Facets)
	}
}

func TestConnectorGet(t *testing.T) {
	t.Parallel()
	f := setup(t)
	bearer := "Bearer " + f.key
	r := f.do(f.h, "GET", "/v1/connectors/alpha", bearer, "")
	var body struct {
		Data struct {
			ID      string   `json:"id"`
			ToolIDs []string `json:"toolIds"`
		} `json:"data"`
	}
	if r.status != 200 || json.Unmarshal(r.body, &body) != nil || strings.Join(body.Data.ToolIDs, ",") != "alpha_list_channels,alpha_send_message" {
		t.Fatalf("%d %s", r.status, r.body)
	}
	if r := f.do(f.h, "GET", "/v1/connectors/nope", bearer, ""); r.status != 404 || errorCode(t, r) != "CONNECTOR_NOT_FOUND" {
		t.Fatalf("unknown: %d %s", r.status, r.body)
	}
	if err := f.store.SetToolsEnabled(context.Background(), f.project.ID, []string{"alpha_send_message"}, false); err != nil {
		t.Fatal(err)
	}
	r = f.do(f.h, "GET", "/v1/connectors/alpha", bearer, "")
	_ = json.Unmarshal(r.body, &body)
	if strings.Join(body.Data.ToolIDs, ",") != "alpha_list_channels" {
		t.Fatalf("disabled tool listed: %s", r.body)
	}
}

func TestToolList_ViewsFiltersFacetsAndSwitches(t *testing.T) {
	t.Parallel()
	f := setup(t)
	bearer := "Bearer " + f.key
	b := decodeList(t, f.do(f.h, "GET", "/v1/tools", bearer, ""))
	if ids(b) != "alpha_list_channels,alpha_send_message,beta_create_invoice,beta_delete_invoice,delta_create_task,delta_get_task,gamma_get_record" {
		t.Fatalf("order: %s", ids(b))
	}
	send := b.Data[1]
	if send["connectorId"] != "alpha" || send["category"] != "communication" || send["effect"] != "write" ||
		send["dataClassification"] != "pii" || send["inputSchema"] == nil || send["outputSchema"] == nil ||
		send["requiredScopes"].([]any)[0] != "chat:write" {
		t.Fatalf("full view: %v", send)
	}
	idx := decodeList(t, f.do(f.h, "GET", "/v1/tools?view=index", bearer, ""))
	for _, k := range []string{"inputSchema", "outputSchema", "requiredScopes"} {
		if _, ok := idx.Data[0][k]; ok {
			t.Fatalf("index view has %s", k)
		}
	}
	for query, want := range map[string]string{
		"connectorId=beta":                  "beta_create_invoice,beta_delete_invoice",
		"category=finance":                  "beta_create_invoice,beta_delete_invoice",
		"dataClassification=phi":            "gamma_get_record",
		"dataClassification=standard":       "alpha_list_channels,beta_delete_invoice,delta_get_task",
		"query=send+a+chat+message&limit=1": "alpha_send_message",
		"connectorId=nope":                  "",
	} {
		if got := ids(decodeList(t, f.do(f.h, "GET", "/v1/tools?"+query, bearer, ""))); got != want {
			t.Errorf("%s: %s, want %s", query, got, want)
		}
	}
	fb := decodeList(t, f.do(f.h, "GET", "/v1/tools?facets=true&dataClassification=pii", bearer, ""))
	if fb.Facets["category"].(map[string]any)["finance"] != float64(1) ||
		fb.Facets["dataClassification"].(map[string]any)["standard"] != float64(3) {
		t.Fatalf("facets: %v", fb.Facets)
	}
	if err := f.store.SetToolsEnabled(context.Background(), f.project.ID, []string{"beta_create_invoice"}, false); err != nil {
		t.Fatal(err)
	}
	if got := ids(decodeList(t, f.do(f.h, "GET", "/v1/tools?connectorId=beta", bearer, ""))); got != "beta_delete_invoice" {
		t.Fatalf("disabled tool listed: %s", got)
	}
}

func TestPublicCatalog(t *testing.T) {
	t.Parallel()
	f := setup(t)
	r := f.do(f.h, "GET", "/api/catalog?facets=true", "", "")
	b := decodeList(t, r)
	if r.header.Get("Cache-Control") != "public, max-age=300" || ids(b) != "beta,alpha,delta,gamma" {
		t.Fatalf("list: %s %v", ids(b), r.header)
	}
	beta, gamma := b.Data[0], b.Data[3]
	if beta["popular"] != true || beta["verification"] != "unverified" || beta["actions"] != float64(2) || gamma["popular"] != false {
		t.Fatalf("items: %v %v", beta, gamma)
	}
	if _, ok := beta["authMethods"]; ok {
		t.Fatal("public list item has authMethods")
	}
	if b.Facets["popular"] != float64(2) {
		t.Fatalf("facets: %v", b.Facets)
	}

	r = f.do(f.h, "GET", "/api/catalog/alpha", "", "")
	var d struct {
		Data struct {
			Proxy        bool   `json:"proxy"`
			Verification string `json:"verification"`
			AuthMethods  []map[string]any
			Tools        []map[string]any
			Triggers     []map[string]any
		} `json:"data"`
	}
	if r.status != 200 || json.Unmarshal(r.body, &d) != nil || r.header.Get("Cache-Control") != "public, max-age=300" {
		t.Fatalf("detail: %d %s", r.status, r.body)
	}
	if !d.Data.Proxy || d.Data.Verification != "verified" || len(d.Data.AuthMethods) != 2 || len(d.Data.Tools) != 2 ||
		len(d.Data.Triggers) != 1 || d.Data.Triggers[0]["id"] != "alpha_message_posted" {
		t.Fatalf("detail: %s", r.body)
	}
	if d.Data.AuthMethods[0]["description"] != "Sign in with Alpha." || d.Data.AuthMethods[1]["description"] != nil {
		t.Fatalf("auth methods: %v", d.Data.AuthMethods)
	}
	r = f.do(f.h, "GET", "/api/catalog/gamma", "", "")
	if !strings.Contains(string(r.body), `"dataClassification":"phi"`) {
		t.Fatalf("gamma: %s", r.body)
	}
	if r := f.do(f.h, "GET", "/api/catalog/nope", "", ""); r.status != 404 || errorCode(t, r) != "NOT_FOUND" {
		t.Fatalf("unknown: %d %s", r.status, r.body)
	}
}

func TestAssets_LogosAreInertAndCached(t *testing.T) {
	t.Parallel()
	f := setup(t)
	for _, h := range []struct {
		handler http.Handler
		path    string
	}{{f.h, "/assets/logos/alpha"}, {f.srv.AssetsHandler(), "/logos/alpha"}} {
		r := f.do(h.handler, "GET", h.path, "", "")
		if r.status != 200 || r.header.Get("Content-Type") != "image/svg+xml" || r.header.Get("Cache-Control") != "public, max-age=86400" ||
			!strings.Contains(r.header.Get("Content-Security-Policy"), "sandbox") || r.header.Get("X-Content-Type-Options") != "nosniff" ||
			!strings.HasPrefix(string(r.body), "<svg") {
			t.Fatalf("%s: %d %v %s", h.path, r.status, r.header, r.body)
		}
	}
	for _, p := range []string{"/assets/logos/nope", "/assets/other", "/assets/logos/alpha.svg"} {
		r := f.do(f.h, "GET", p, "", "")
		if r.status != 404 || r.header.Get("X-Content-Type-Options") != "nosniff" {
			t.Fatalf("%s: %d", p, r.status)
		}
	}
}
