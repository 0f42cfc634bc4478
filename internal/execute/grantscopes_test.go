package execute

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/apierr"
)

// serviceAccountKey is a Google service account JSON key with the test key.
func serviceAccountKey(t *testing.T) string {
	t.Helper()
	_, keyPEM := rsaTestKey(t)
	b, _ := json.Marshal(map[string]string{
		"type": "service_account", "project_id": "p1", "private_key_id": "kid-1", "private_key": keyPEM,
		"client_email": "bot@p1.iam.gserviceaccount.com", "client_id": "1234", "token_uri": "https://oauth2.googleapis.com/token",
	})
	return string(b)
}

// TestServiceAccount_GrantedScopesRecordedAndChecked: a service account's
// granted scopes are recorded from its token answer, or are the scopes the
// assertion asked for when the answer names none (Google's usual answer),
// and a tool needing a scope the account was not granted is refused before
// any API call, as for an OAuth account.
func TestServiceAccount_GrantedScopesRecordedAndChecked(t *testing.T) {
	t.Parallel()
	wantAll := []string{"https://www.googleapis.com/auth/gmail.send", "https://www.googleapis.com/auth/gmail.readonly",
		"https://www.googleapis.com/auth/gmail.modify", "https://mail.google.com/",
		"https://www.googleapis.com/auth/gmail.settings.basic"}
	for _, tc := range []struct {
		name, scopeField string
		want             []string
		refused          bool // gmail_send_message refused for a missing scope
	}{
		{"no scope in the answer", "", wantAll, false},
		{"narrower scope in the answer", `,"scope":"https://www.googleapis.com/auth/gmail.readonly"`,
			[]string{"https://www.googleapis.com/auth/gmail.readonly"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, g := newGrantEnv(t, "/token", func(w http.ResponseWriter, r grantReq) {
				_, _ = io.WriteString(w, `{"access_token":"sa-access","token_type":"Bearer","expires_in":3599`+tc.scopeField+`}`)
			})
			id, err := e.connectAs("gmail", map[string]any{"type": "google_service_account", "serviceAccountKey": serviceAccountKey(t)})
			if err != nil {
				t.Fatal(err)
			}
			_, err = e.run("gmail_send_message", `{"to":["bob@example.com"],"subject":"hi","body":"hello"}`)
			tokens, calls := g.counts()
			if tc.refused {
				if mse, ok := err.(*MissingScopesError); !ok || !slices.Equal(mse.Missing, []string{"https://www.googleapis.com/auth/gmail.send"}) {
					t.Fatalf("send with a read-only grant: %v, want a missing gmail.send scope", err)
				}
				wantCode(t, err, apierr.ActionDisabled, 403)
				if tokens != 1 || calls != 0 {
					t.Fatalf("token requests %d, API calls %d; want 1 and none", tokens, calls)
				}
			} else if err != nil || calls != 1 {
				t.Fatalf("send with every scope: %v, %d API calls", err, calls)
			}
			conn, err := e.store.GetConnection(context.Background(), e.project.ID, id)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(conn.Scopes, tc.want) {
				t.Fatalf("recorded scopes %v, want %v", conn.Scopes, tc.want)
			}
		})
	}
}
