package httpapi

import (
	"bytes"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

const dashNotesV1 = `openapi: 3.1.0
info: {title: Notes, version: "1"}
servers: [{url: "https://notes.example/api"}]
paths:
  /notes:
    get: {operationId: listNotes, responses: {"200": {description: ok}}}
  /notes/{id}:
    delete:
      operationId: deleteNote
      parameters: [{name: id, in: path, required: true, schema: {type: string}}]
      responses: {"204": {description: ok}}
`

const dashNotesV2 = `openapi: 3.1.0
info: {title: Notes, version: "2"}
servers: [{url: "https://notes.example/api"}]
paths:
  /notes:
    get:
      operationId: listNotes
      parameters: [{name: q, in: query, schema: {type: string}}]
      responses: {"200": {description: ok}}
    post: {operationId: createNote, responses: {"201": {description: ok}}}
`

// postDocument posts the OpenAPI import form with a document.
func (c *dashClient) postDocument(path string, fields map[string]string, name, doc string) response {
	c.t.Helper()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	for k, v := range fields {
		_ = mw.WriteField(k, v)
	}
	if name != "" {
		fw, _ := mw.CreateFormFile("document", name)
		_, _ = fw.Write([]byte(doc))
	}
	mw.Close()
	req := httptest.NewRequest("POST", path, &body)
	req.Header.Set("Content-Type", mw.FormDataContentType())
	req.Header.Set("Origin", c.origin)
	for n, v := range c.cookies {
		req.AddCookie(&http.Cookie{Name: n, Value: v})
	}
	rec := httptest.NewRecorder()
	c.h.ServeHTTP(rec, req)
	return response{status: rec.Code, header: rec.Header(), body: rec.Body.Bytes()}
}

// The own connectors screen imports an uploaded OpenAPI document (the
// report shows what was added, changed and removed on a re-import), its
// tools reach the project's catalog, and the connector is removed.
func TestDashboard_Connectors(t *testing.T) {
	t.Parallel()
	f := setup(t)
	page := "/dashboard/p/" + f.project.ID + "/connectors"
	c := newDashClient(t, f.h)
	if r := c.do("GET", page, nil); r.status != 303 {
		t.Fatalf("signed out: %d", r.status)
	}
	dashOperator(t, f, "member@example.com", store.RoleMember)
	c.signIn("member@example.com", dashPassword)
	if r := c.do("GET", page, nil); r.status != 200 || !strings.Contains(string(r.body), "No own connectors") {
		t.Fatalf("empty: %d %s", r.status, r.body)
	}
	tok := c.csrf(page)
	if r := c.postDocument(page+"/openapi", map[string]string{"id": "notes"}, "notes.yaml", dashNotesV1); r.status != 403 {
		t.Fatalf("without token: %d", r.status)
	}
	if r := c.postDocument(page+"/openapi", map[string]string{"csrf": tok, "id": "Notes!"}, "notes.yaml", dashNotesV1); r.status != 422 ||
		!strings.Contains(string(r.body), "was not imported") || !strings.Contains(string(r.body), "lowercase letters") {
		t.Fatalf("bad id: %d %s", r.status, r.body)
	}
	if r := c.postDocument(page+"/openapi", map[string]string{"csrf": tok, "id": "notes"}, "notes.yaml", "not: [an openapi"); r.status != 422 ||
		!strings.Contains(string(r.body), "was not imported") {
		t.Fatalf("bad document: %d %s", r.status, r.body)
	}
	r := c.postDocument(page+"/openapi", map[string]string{"csrf": tok, "id": "notes"}, "notes.yaml", dashNotesV1)
	if r.status != 200 || !strings.Contains(string(r.body), "Imported <span class=\"mono\">notes</span>: 2 tools") {
		t.Fatalf("import: %d %s", r.status, r.body)
	}
	_, m, raw := f.json("GET", "/v1/connectors/notes", "")
	if dataOf(m)["id"] != "notes" {
		t.Fatalf("the catalog does not have it: %s", raw)
	}
	r = c.postDocument(page+"/openapi", map[string]string{"csrf": tok, "id": "notes"}, "notes-2.yaml", dashNotesV2)
	body := string(r.body)
	added, changed, removed := dashFact(body, "Added"), dashFact(body, "Changed"), dashFact(body, "Removed")
	if r.status != 200 || !strings.Contains(added, "create_note") || !strings.Contains(changed, "list_notes") || !strings.Contains(removed, "delete_note") {
		t.Fatalf("re-import report: added %q changed %q removed %q\n%s", added, changed, removed, body)
	}
	if r := c.do("GET", page, nil); !strings.Contains(string(r.body), "upload: notes-2.yaml") {
		t.Fatalf("list: %s", r.body)
	}
	if r := c.do("POST", page+"/notes/remove", url.Values{"csrf": {tok}}); r.status != 303 {
		t.Fatalf("remove: %d %s", r.status, r.body)
	}
	if st, _, _ := f.json("GET", "/v1/connectors/notes", ""); st != 404 {
		t.Fatalf("still in the catalog: %d", st)
	}
	if r := c.do("POST", page+"/notes/remove", url.Values{"csrf": {tok}}); r.status != 404 {
		t.Fatalf("remove twice: %d", r.status)
	}

	// By URL, fetched through the outbound guard (loopback is open in tests).
	docs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/openapi.yaml" {
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte(dashNotesV2))
	}))
	defer docs.Close()
	if r := c.postDocument(page+"/openapi", map[string]string{"csrf": tok, "id": "notes", "url": docs.URL + "/missing.yaml"}, "", ""); r.status != 422 ||
		!strings.Contains(string(r.body), "could not be fetched") || !strings.Contains(string(r.body), "HTTP 404") {
		t.Fatalf("missing document: %d %s", r.status, r.body)
	}
	if r := c.postDocument(page+"/openapi", map[string]string{"csrf": tok, "id": "notes"}, "", ""); r.status != 422 || !strings.Contains(string(r.body), "or give its URL") {
		t.Fatalf("neither file nor URL: %d %s", r.status, r.body)
	}
	r = c.postDocument(page+"/openapi", map[string]string{"csrf": tok, "id": "notes", "url": docs.URL + "/openapi.yaml"}, "", "")
	if r.status != 200 || !strings.Contains(dashFact(string(r.body), "Added"), "create_note") {
		t.Fatalf("import by URL: %d %s", r.status, r.body)
	}
	if r := c.do("GET", page, nil); !strings.Contains(string(r.body), docs.URL+"/openapi.yaml") {
		t.Fatalf("the source is not the URL: %s", r.body)
	}
}

// dashFact is the text of a <dd> after the <dt> named, on a page.
func dashFact(body, name string) string {
	i := strings.Index(body, "<dt>"+name+"</dt>")
	if i < 0 {
		return ""
	}
	rest := body[i:]
	j := strings.Index(rest, "</dd>")
	if j < 0 {
		return ""
	}
	return rest[:j]
}

// An MCP server added on the dashboard with its static header is
// discovered through the outbound guard, its tools run, a refresh reuses
// the sealed header, and the header never shows on a page.
func TestDashboard_MCPServer(t *testing.T) {
	t.Parallel()
	crm := crmServer(t)
	f := setupWith(t, storeOpen, testCatalogFS, crm)
	page := "/dashboard/p/" + f.project.ID + "/connectors"
	dashOperator(t, f, "member@example.com", store.RoleMember)
	c := newDashClient(t, f.h)
	c.signIn("member@example.com", dashPassword)
	tok := c.csrf(page)
	form := url.Values{"csrf": {tok}, "id": {"crm"}, "url": {crm.URL}}
	if r := c.do("POST", page+"/mcp", form); r.status != 422 || !strings.Contains(string(r.body), "was not added") {
		t.Fatalf("without the header: %d %s", r.status, r.body)
	}
	form.Set("headers", "not a header")
	if r := c.do("POST", page+"/mcp", form); r.status != 422 || !strings.Contains(string(r.body), "must be &#39;Name: value&#39;") {
		t.Fatalf("bad header: %d %s", r.status, r.body)
	}
	form.Set("headers", "X-Api-Key: static-crm-key\n")
	form.Del("csrf")
	if r := c.do("POST", page+"/mcp", form); r.status != 403 {
		t.Fatalf("without token: %d", r.status)
	}
	form.Set("csrf", tok)
	r := c.do("POST", page+"/mcp", form)
	if r.status != 200 || !strings.Contains(dashFact(string(r.body), "Added"), "crm_lookup_customer") {
		t.Fatalf("add: %d %s", r.status, r.body)
	}
	if st, m, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"crm_lookup_customer","userId":"u1","input":{"email":"ann@example.com"}}`); st != 200 || dataOf(m)["name"] != "Ann" {
		t.Fatalf("execute: %d %s", st, raw)
	}
	r = c.do("POST", page+"/crm/refresh", url.Values{"csrf": {tok}})
	if r.status != 200 || !strings.Contains(string(r.body), "2 tools") {
		t.Fatalf("refresh: %d %s", r.status, r.body)
	}
	if r := c.do("GET", page, nil); strings.Contains(string(r.body), "static-crm-key") || !strings.Contains(string(r.body), "/crm/refresh") {
		t.Fatalf("list: %s", r.body)
	}
	if r := c.do("POST", page+"/nope/refresh", url.Values{"csrf": {tok}}); r.status != 422 || !strings.Contains(string(r.body), "no MCP server") {
		t.Fatalf("refresh unknown: %d", r.status)
	}
}
