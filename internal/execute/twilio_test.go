package execute

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
)

const testAccountSid = "AC0123456789abcdef0123456789abcdef"

// TestTwilio_AccountSidComesFromTheAccount: Twilio's resources sit under
// /Accounts/{AccountSid}, and with an API key the basic username is the
// key's SID, not the account's; the account's accountSid field fills the
// path, so a tool takes no Account SID input. An account stored before the
// field existed is told to reconnect before any request, and a value that
// is not an Account SID is refused when stored.
func TestTwilio_AccountSidComesFromTheAccount(t *testing.T) {
	t.Parallel()
	_, e := newBuiltinEnv(t)
	if _, err := e.connectAs("twilio", map[string]any{"type": "basic", "username": "SK0123456789abcdef0123456789abcdef",
		"password": "key-secret", "accountSid": testAccountSid}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.run("twilio_send_message", `{"To":"+14155552671","From":"+14155550100","Body":"hi"}`); err != nil {
		t.Fatal(err)
	}
	got := e.fake.last()
	user, pass, _ := (&http.Request{Header: got.Header}).BasicAuth()
	if got.Header.Get(originalHostHeader) != "api.twilio.com" || got.Method != "POST" ||
		got.Path != "/2010-04-01/Accounts/"+testAccountSid+"/Messages.json" || user != "SK0123456789abcdef0123456789abcdef" || pass != "key-secret" {
		t.Fatalf("request: %s %s%s as %s", got.Method, got.Header.Get(originalHostHeader), got.Path, user)
	}
	// An input naming the account is refused: the schema has no such property.
	if _, err := e.run("twilio_get_balance", `{"AccountSid":"`+testAccountSid+`"}`); err == nil {
		t.Fatal("an AccountSid input was accepted")
	}

	// An account stored without the field (before it existed).
	raw, _ := json.Marshal(map[string]any{"type": "basic", "username": testAccountSid, "password": "tok", "accountSid": testAccountSid})
	c, err := e.accounts.Create(context.Background(), e.tenant(), account.CreateRequest{ConnectorID: "twilio", UserID: "old", Credential: raw})
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := e.accounts.Seal(c.ID, account.Credential{Type: "basic", Username: testAccountSid, Password: "tok"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.store.RotateCredential(context.Background(), e.project.ID, c.ID, c.Revision, sealed, nil); err != nil {
		t.Fatal(err)
	}
	before := len(e.fake.requests)
	_, err = e.exec.Execute(context.Background(), e.tenant(), Call{ToolID: "twilio_get_balance", Input: json.RawMessage(`{}`), UserID: "old"})
	if ae := wantCode(t, err, apierr.ExecutionError, 400); !strings.Contains(ae.Message, "accountSid") || len(e.fake.requests) != before {
		t.Fatalf("old account: %v, %d requests", err, len(e.fake.requests)-before)
	}

	// Not an Account SID.
	raw, _ = json.Marshal(map[string]any{"type": "basic", "username": "SKx", "password": "s", "accountSid": "SK0123456789abcdef0123456789abcdef"})
	if _, err := e.accounts.Create(context.Background(), e.tenant(), account.CreateRequest{ConnectorID: "twilio", UserID: "bad", Credential: raw}); err == nil {
		t.Fatal("an API key SID was stored as the Account SID")
	}
}
