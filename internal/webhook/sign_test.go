package webhook

import "testing"

// TestSign_StandardWebhooksTestVector checks the signing against the test
// vector published with the Standard Webhooks specification.
func TestSign_StandardWebhooksTestVector(t *testing.T) {
	t.Parallel()
	const (
		secret = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
		id     = "msg_p5jXN8AQM9LWM0D4loKWxJek"
		ts     = int64(1614265330)
		body   = `{"test": 2432232314}`
		want   = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
	)
	got, err := Sign(secret, id, ts, []byte(body))
	if err != nil || got != want {
		t.Fatalf("Sign = %q, %v; want %q", got, err, want)
	}
	if !Verify(secret, id, ts, []byte(body), "v1,bad "+want) {
		t.Fatal("Verify refused the vector among several signatures")
	}
	if Verify(secret, id, ts+1, []byte(body), want) || Verify(secret, id, ts, []byte(body+" "), want) {
		t.Fatal("Verify accepted a changed timestamp or body")
	}
	if _, err := Sign("whsec_!!!", id, ts, nil); err == nil {
		t.Fatal("a malformed secret signed")
	}
}
