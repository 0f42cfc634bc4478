package execute

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/account"
)

// TestExecute_AccountStoredBeforeAFieldExisted_UsesItsDefault: an account
// stored before its connector gained a connection field with a default
// (Intercom's region host) keeps calling the host it called before, and one
// that has the field calls its own.
func TestExecute_AccountStoredBeforeAFieldExisted_UsesItsDefault(t *testing.T) {
	t.Parallel()
	_, e := newBuiltinEnv(t)
	for _, tc := range []struct {
		user, host, want string
	}{{"old", "", "api.intercom.io"}, {"eu", "api.eu.intercom.io", "api.eu.intercom.io"}} {
		raw, _ := json.Marshal(map[string]any{"type": "api_key", "apiKey": "k", "host": "api.au.intercom.io"})
		c, err := e.accounts.Create(context.Background(), e.tenant(), account.CreateRequest{ConnectorID: "intercom", UserID: tc.user, Credential: raw})
		if err != nil {
			t.Fatal(err)
		}
		// Store the credential as an older release did: without the field,
		// or with the value under test.
		cred := account.Credential{Type: "api_key", APIKey: "k"}
		if tc.host != "" {
			cred.Connection = map[string]string{"host": tc.host}
		}
		sealed, err := e.accounts.Seal(c.ID, cred)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := e.store.RotateCredential(context.Background(), e.project.ID, c.ID, c.Revision, sealed, nil); err != nil {
			t.Fatal(err)
		}
		before := len(e.fake.requests)
		if _, err := e.exec.Execute(context.Background(), e.tenant(), Call{ToolID: "intercom_list_admins", Input: json.RawMessage(`{}`), UserID: tc.user}); err != nil {
			t.Fatalf("%s: %v", tc.user, err)
		}
		if len(e.fake.requests) != before+1 {
			t.Fatalf("%s: %d requests", tc.user, len(e.fake.requests)-before)
		}
		if got := e.fake.last(); got.Header.Get(originalHostHeader) != tc.want || got.Path != "/admins" {
			t.Errorf("%s: called https://%s%s, want https://%s/admins", tc.user, got.Header.Get(originalHostHeader), got.Path, tc.want)
		}
	}
}
