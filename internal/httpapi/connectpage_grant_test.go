package httpapi

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/fstest"
)

// TestConnect_ServiceAccountKeyThroughPageAndAPI stores a Google-style
// service account key through the Connect page (a multi-line field that
// takes the JSON key file) and through POST /v1/connections, runs a tool
// with the token the key buys, and checks that the key shows up in no
// answer.
func TestConnect_ServiceAccountKeyThroughPageAndAPI(t *testing.T) {
	t.Parallel()
	k, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	der, _ := x509.MarshalPKCS8PrivateKey(k)
	keyPEM := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}))
	keyBody := strings.Split(keyPEM, "\n")[1]

	var mu sync.Mutex
	var grants []url.Values
	provider := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/token":
			_ = r.ParseForm()
			mu.Lock()
			grants = append(grants, r.PostForm)
			mu.Unlock()
			_, _ = io.WriteString(w, `{"access_token":"kappa-access","token_type":"Bearer","expires_in":3600}`)
		case "/api/me":
			if r.Header.Get("Authorization") != "Bearer kappa-access" {
				w.WriteHeader(401)
				return
			}
			_, _ = io.WriteString(w, `{"email":"bot@p1.iam.gserviceaccount.com"}`)
		default:
			w.WriteHeader(404)
		}
	}))
	t.Cleanup(provider.Close)
	mfs := testCatalogCopy()
	mfs["connectors/kappa.yaml"] = &fstest.MapFile{Data: []byte(fmt.Sprintf(`
id: kappa
name: Kappa Docs
description: A test document service that takes a service account key.
category: productivity
api: {baseUrl: "%[1]s/api"}
authMethods:
  - id: service_account
    type: google_service_account
    name: Kappa service account
    oauth2: {tokenUrl: "%[1]s/token", scopes: [kappa.read]}
identity: {method: GET, path: /me, label: email}
tools:
  - id: kappa_get_me
    name: Get me
    description: Returns the account the service account acts as, for the tests.
    effect: read
    inputSchema: {type: object, properties: {}, additionalProperties: false}
    request: {method: GET, path: /me}
`, provider.URL))}
	mfs["logos/kappa.svg"] = &fstest.MapFile{Data: []byte("<svg/>")}
	f := setupWith(t, sqliteDB, mfs, provider)

	keyFile, _ := json.Marshal(map[string]string{"type": "service_account", "private_key_id": "kid", "private_key": keyPEM, "client_email": "bot@p1.iam.gserviceaccount.com"})
	token := f.link(t, `{"userId":"ann","connectors":["kappa"]}`)
	st, m, raw := f.page("GET", "/api/connect/"+token, "")
	if st != 200 {
		t.Fatalf("view: %d %s", st, raw)
	}
	cfg := dataOf(m)["connectors"].([]any)[0].(map[string]any)["authConfigs"].([]any)[0].(map[string]any)
	fields := cfg["fields"].([]any)
	if len(fields) != 2 {
		t.Fatalf("service account fields: %v", fields)
	}
	keyField, subject := fields[0].(map[string]any), fields[1].(map[string]any)
	if cfg["type"] != "google_service_account" || keyField["name"] != "serviceAccountKey" || keyField["multiline"] != true || keyField["secret"] != true ||
		!strings.Contains(keyField["accept"].(string), ".json") || subject["name"] != "subject" || subject["optional"] != true {
		t.Fatalf("service account fields: %v", cfg)
	}
	// A key that is not a service account key is refused, without echoing it.
	body, _ := json.Marshal(map[string]any{"authConfigId": cfg["id"], "fields": map[string]string{"serviceAccountKey": `{"type":"user","private_key":` + string(mustJSON(keyPEM)) + `}`, "subject": ""}})
	if st, m, raw := f.page("POST", "/api/connect/"+token+"/accounts", string(body)); st != 400 || errCode(m) != "VALIDATION_ERROR" || strings.Contains(raw, keyBody) {
		t.Fatalf("bad key: %d %s", st, raw)
	}
	body, _ = json.Marshal(map[string]any{"authConfigId": cfg["id"], "fields": map[string]string{"serviceAccountKey": string(keyFile), "subject": ""}})
	st, m, raw = f.page("POST", "/api/connect/"+token+"/accounts", string(body))
	if st != 201 || strings.Contains(raw, keyBody) || dataOf(m)["label"] != "bot@p1.iam.gserviceaccount.com" {
		t.Fatalf("save: %d %s", st, raw)
	}
	if st, _, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"kappa_get_me","userId":"ann"}`); st != 200 || !strings.Contains(raw, "bot@p1") {
		t.Fatalf("execute: %d %s", st, raw)
	}
	mu.Lock()
	g := grants[len(grants)-1]
	mu.Unlock()
	if g.Get("grant_type") != "urn:ietf:params:oauth:grant-type:jwt-bearer" || g.Get("assertion") == "" {
		t.Fatalf("token request: %v", g)
	}

	// The API takes the key file as an object, and a subject.
	apiBody, _ := json.Marshal(map[string]any{"connectorId": "kappa", "userId": "bob", "credential": map[string]any{
		"type": "google_service_account", "serviceAccountKey": json.RawMessage(keyFile), "subject": "bob@example.com"}})
	st, m, raw = f.json("POST", "/v1/connections", string(apiBody))
	if st != 200 || strings.Contains(raw, keyBody) || strings.Contains(raw, "bob@example.com") {
		t.Fatalf("create: %d %s", st, raw)
	}
	if st, _, raw := f.json("GET", "/v1/connections?userId=bob", ""); st != 200 || strings.Contains(raw, keyBody) || strings.Contains(raw, "privateKey") {
		t.Fatalf("list: %d %s", st, raw)
	}
	_ = m
	bad, _ := json.Marshal(map[string]any{"connectorId": "kappa", "userId": "bob", "credential": map[string]any{
		"type": "google_service_account", "serviceAccountKey": map[string]any{"type": "service_account", "client_email": "x@y", "private_key": strings.Replace(keyPEM, "A", "B", 9)}}})
	if st, m, raw := f.json("POST", "/v1/connections", string(bad)); st != 400 || errCode(m) != "VALIDATION_ERROR" || strings.Contains(raw, keyBody[:20]) {
		t.Fatalf("broken key: %d %s", st, raw)
	}
	if strings.Contains(f.logs.String(), keyBody) {
		t.Fatal("the key is in the logs")
	}
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}
