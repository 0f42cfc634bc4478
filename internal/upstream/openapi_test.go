package upstream

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/catalog"
)

func importFile(t *testing.T, file, id string) (*catalog.Connector, Report) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	con, rep, err := ImportOpenAPI(context.Background(), data, ImportOptions{ID: id})
	if err != nil {
		t.Fatal(err)
	}
	return con, rep
}

func tool(t *testing.T, con *catalog.Connector, id string) *catalog.Tool {
	t.Helper()
	for _, tl := range con.Tools {
		if tl.ID == id {
			return tl
		}
	}
	var ids []string
	for _, tl := range con.Tools {
		ids = append(ids, tl.ID)
	}
	t.Fatalf("no tool %s in %v", id, ids)
	return nil
}

func schemaOf(t *testing.T, tl *catalog.Tool) map[string]any {
	var m map[string]any
	if err := json.Unmarshal(tl.InputSchema, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestImportOpenAPI30_ParametersBodiesRefsAndAuth(t *testing.T) {
	t.Parallel()
	con, rep := importFile(t, "testdata/shop-30.yaml", "acme_shop")
	if con.API.BaseURL != "https://eu.shop.example/v1" || con.Name != "Acme Shop" || con.Origin != catalog.OriginOpenAPI {
		t.Fatalf("connector: %+v", con)
	}
	if len(con.Tools) != 4 || rep.Tools != 4 || len(rep.Skipped) != 2 {
		t.Fatalf("tools %d, report %+v", len(con.Tools), rep)
	}
	get := tool(t, con, "acme_shop_get_order")
	s := schemaOf(t, get)
	props := s["properties"].(map[string]any)
	if get.Effect != "read" || get.Request.Method != "GET" || get.Request.Path != "/orders/{orderId}" ||
		get.Request.Headers["X-Request-Id"] != "X-Request-Id" || get.Request.Rename["expand"] != "expand[]" ||
		props["session"] != nil || props["expand"] == nil {
		t.Fatalf("get: %+v %s", get.Request, get.InputSchema)
	}
	if req := s["required"].([]any); len(req) != 2 {
		t.Fatalf("required: %v", req)
	}
	if tool(t, con, "acme_shop_cancel_order").Effect != "destructive" {
		t.Fatal("DELETE is not destructive")
	}
	create := tool(t, con, "acme_shop_create_order")
	cs := schemaOf(t, create)
	cp := cs["properties"].(map[string]any)
	q := cp["quantity"].(map[string]any)
	note := cp["note"].(map[string]any)
	if q["exclusiveMinimum"] != float64(0) || q["minimum"] != nil || q["maximum"] != float64(100) {
		t.Fatalf("3.0 exclusive bound: %v", q)
	}
	if types, _ := note["type"].([]any); len(types) != 2 || types[1] != "null" || note["examples"] == nil {
		t.Fatalf("nullable: %v", note)
	}
	defs := cs["$defs"].(map[string]any)
	cat := defs["Category"].(map[string]any)["properties"].(map[string]any)["parent"].(map[string]any)
	if cp["category"].(map[string]any)["$ref"] != "#/$defs/Category" || cat["$ref"] != "#/$defs/Category" {
		t.Fatalf("refs: %s", create.InputSchema)
	}
	if r := cs["required"].([]any); len(r) != 1 || r[0] != "sku" {
		t.Fatalf("body required: %v", r)
	}
	form := tool(t, con, "acme_shop_post_subscribe")
	if form.Request.BodyType != "form" || strings.Join(form.Request.Body, ",") != "email" {
		t.Fatalf("form: %+v", form.Request)
	}
	types := map[string]string{}
	for _, m := range con.AuthMethods {
		types[m.ID] = m.Type
	}
	want := map[string]string{"api_key_header": "api_key", "api_key_query": "api_key", "bearer": "api_key", "basic_auth": "basic",
		"oauth": "oauth2", "machine": "oauth2_client_credentials"}
	for id, typ := range want {
		if types[id] != typ {
			t.Errorf("auth %s: %q, want %q (all: %v)", id, types[id], typ, types)
		}
	}
	// Every input schema compiles and accepts a valid input.
	if err := catalog.CheckOwn(con); err != nil {
		t.Fatal(err)
	}
}

func TestImportOpenAPI31(t *testing.T) {
	t.Parallel()
	con, rep := importFile(t, "testdata/notes-31.yaml", "notes")
	if len(con.Tools) != 2 || len(rep.Skipped) != 0 || con.AuthMethods[0].APIKey.Format != "Bearer {value}" {
		t.Fatalf("%+v %+v", con, rep)
	}
	s := schemaOf(t, tool(t, con, "notes_create_note"))
	score := s["$defs"].(map[string]any)["Note"].(map[string]any)["properties"].(map[string]any)["score"].(map[string]any)
	if score["exclusiveMinimum"] != float64(0) {
		t.Fatalf("3.1 exclusive bound: %v", score)
	}
	if tool(t, con, "notes_list_notes").Effect != "read" {
		t.Fatal("GET is not read")
	}
}

func TestImportOpenAPI_Refusals(t *testing.T) {
	t.Parallel()
	for name, doc := range map[string]string{
		"not yaml":     "{{{",
		"not openapi":  `{"swagger":"2.0"}`,
		"invalid":      `{"openapi":"3.0.3","info":{"title":"x"},"paths":{}}`,
		"no server":    `{"openapi":"3.0.3","info":{"title":"x","version":"1"},"paths":{"/a":{"get":{"responses":{"200":{"description":"ok"}}}}}}`,
		"http server":  `{"openapi":"3.0.3","info":{"title":"x","version":"1"},"servers":[{"url":"http://a.example"}],"paths":{"/a":{"get":{"responses":{"200":{"description":"ok"}}}}}}`,
		"no operation": `{"openapi":"3.0.3","info":{"title":"x","version":"1"},"servers":[{"url":"https://a.example"}],"paths":{}}`,
	} {
		if _, _, err := ImportOpenAPI(context.Background(), []byte(doc), ImportOptions{ID: "x"}); err == nil {
			t.Errorf("%s: imported", name)
		}
	}
	if _, _, err := ImportOpenAPI(context.Background(), []byte(`{}`), ImportOptions{ID: "Bad-Id"}); err == nil {
		t.Error("bad id accepted")
	}
}
