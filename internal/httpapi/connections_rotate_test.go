package httpapi

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/store"
)

// TestConnectionRotate_ExpectedRevisionOptional: a rotation without
// expectedRevision replaces whatever credential is current (the create
// response shows no revision, so a first rotation needs no list call);
// with one, a stale revision answers 409 CONFLICT and a current one
// rotates. Either way a reauth_required account becomes active and the
// new credential is the one used.
func TestConnectionRotate_ExpectedRevisionOptional(t *testing.T) {
	t.Parallel()
	f := setup(t)
	_, m, raw := f.json("POST", "/v1/connections", fmt.Sprintf(`{"connectorId":"delta","userId":"u1","credential":{"type":"api_key","apiKey":"old-key","host":%q}}`, f.providerHost))
	id, _ := dataOf(m)["id"].(string)
	if id == "" {
		t.Fatalf("create: %s", raw)
	}
	if _, ok := dataOf(m)["revision"]; ok {
		t.Fatalf("create shows a revision, which the create response (openapi.json) does not list: %s", raw)
	}
	if err := f.store.SetConnectionStatus(context.Background(), id, 1, store.StatusReauthRequired); err != nil {
		t.Fatal(err)
	}
	rot := fmt.Sprintf(`{"type":"api_key","apiKey":"delta-secret-key","host":%q}`, f.providerHost)
	st, m, raw := f.json("PATCH", "/v1/connections/"+id, `{"credential":`+rot+`}`)
	if st != 200 || dataOf(m)["revision"] != float64(2) || dataOf(m)["id"] != id {
		t.Fatalf("rotate without expectedRevision: %d %s", st, raw)
	}
	if st, _, raw := f.json("POST", "/v1/tools/execute", `{"toolId":"delta_get_task","userId":"u1","input":{"id":"1"}}`); st != 200 {
		t.Fatalf("execute with the rotated credential: %d %s", st, raw)
	}
	if st, m, raw := f.json("PATCH", "/v1/connections/"+id, `{"credential":`+rot+`,"expectedRevision":1}`); st != 409 || errCode(m) != "CONFLICT" ||
		!strings.Contains(raw, "expectedRevision") {
		t.Fatalf("stale expectedRevision: %d %s", st, raw)
	}
	if st, m, raw := f.json("PATCH", "/v1/connections/"+id, `{"credential":`+rot+`,"expectedRevision":2}`); st != 200 || dataOf(m)["revision"] != float64(3) {
		t.Fatalf("current expectedRevision: %d %s", st, raw)
	}
	if st, m, raw := f.json("PATCH", "/v1/connections/"+id, `{"expectedRevision":3}`); st != 400 || errCode(m) != "VALIDATION_ERROR" {
		t.Fatalf("expectedRevision without credential: %d %s", st, raw)
	}
}
