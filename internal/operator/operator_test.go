package operator_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/operator"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/store/storetest"
)

var cheap = operator.Params{Memory: 64, Time: 1, Threads: 1}

func TestPassword_HashVerify(t *testing.T) {
	h, err := operator.HashPassword("correct horse battery", operator.DefaultParams)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("encoding: %s", h)
	}
	if !operator.VerifyPassword(h, "correct horse battery") {
		t.Fatal("the right password does not verify")
	}
	if operator.VerifyPassword(h, "correct horse batterY") {
		t.Fatal("a wrong password verifies")
	}
	h2, _ := operator.HashPassword("correct horse battery", operator.DefaultParams)
	if h2 == h {
		t.Fatal("two hashes of one password are equal: no salt")
	}
	// A hash keeps its parameters: one made under others still verifies.
	old, _ := operator.HashPassword("pw", cheap)
	if !operator.VerifyPassword(old, "pw") {
		t.Fatal("a hash under other parameters does not verify")
	}
	parts := strings.Split(h, "$")
	for name, bad := range map[string]string{
		"empty":          "",
		"bcrypt":         "$2a$10$abcdefghijklmnopqrstuv",
		"huge memory":    strings.Replace(h, "m=19456", "m=99999999", 1),
		"other version":  strings.Replace(h, "v=19", "v=16", 1),
		"truncated hash": strings.Join(append(parts[:5:5], "AAAA"), "$"),
	} {
		if operator.VerifyPassword(bad, "correct horse battery") {
			t.Errorf("%s: verifies", name)
		}
	}
}

func newService(t *testing.T) (*operator.Service, *store.Store, *storetest.Clock) {
	clock := storetest.NewClock()
	st := storetest.OpenSQLite(t, clock.Now)
	return operator.NewService(operator.Options{Store: st, Now: clock.Now, Params: cheap}), st, clock
}

func code(err error) apierr.Code {
	if e, ok := apierr.As(err); ok {
		return e.Code
	}
	return ""
}

func TestCreate_ValidatesEmailAndPassword(t *testing.T) {
	s, _, _ := newService(t)
	ctx := context.Background()
	if _, err := s.Create(ctx, "not an email", "long enough password"); code(err) != apierr.ValidationError {
		t.Fatalf("bad email: %v", err)
	}
	if _, err := s.Create(ctx, "a@example.com", "short"); code(err) != apierr.ValidationError {
		t.Fatalf("short password: %v", err)
	}
	o, err := s.Create(ctx, " A@Example.COM ", "long enough password")
	if err != nil || o.Email != "a@example.com" {
		t.Fatalf("create: %+v %v", o, err)
	}
	if _, err := s.Create(ctx, "a@example.com", ""); code(err) != apierr.Conflict {
		t.Fatalf("same email: %v", err)
	}
}

func TestSignIn_SessionCSRFSignOut(t *testing.T) {
	s, _, clock := newService(t)
	ctx := context.Background()
	if _, err := s.Create(ctx, "a@example.com", "long enough password"); err != nil {
		t.Fatal(err)
	}
	first, err := s.SignIn(ctx, "A@example.com", "long enough password", "10.0.0.1", "")
	if err != nil {
		t.Fatal(err)
	}
	sess, err := s.Session(ctx, first)
	if err != nil || sess.Email != "a@example.com" || sess.CSRF == "" || sess.CSRF == first {
		t.Fatalf("session: %+v %v", sess, err)
	}
	if !sess.CheckCSRF(operator.CSRFToken(first)) || sess.CheckCSRF("") || sess.CheckCSRF(operator.CSRFToken("other")) {
		t.Fatal("CSRF check")
	}
	// Signing in again from the same browser rotates: the old token ends.
	second, err := s.SignIn(ctx, "a@example.com", "long enough password", "10.0.0.1", first)
	if err != nil || second == first {
		t.Fatalf("second sign-in: %v", err)
	}
	if _, err := s.Session(ctx, first); !errors.Is(err, operator.ErrSignedOut) {
		t.Fatalf("the rotated token still works: %v", err)
	}
	if err := s.SignOut(ctx, second); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Session(ctx, second); !errors.Is(err, operator.ErrSignedOut) {
		t.Fatalf("after sign-out: %v", err)
	}
	third, _ := s.SignIn(ctx, "a@example.com", "long enough password", "10.0.0.1", "")
	clock.Advance(s.SessionTTL)
	if _, err := s.Session(ctx, third); !errors.Is(err, operator.ErrSignedOut) {
		t.Fatalf("after expiry: %v", err)
	}
}

func TestSignIn_RateLimitedPerAccountAndAddress(t *testing.T) {
	s, _, clock := newService(t)
	s.MaxPerAccount, s.MaxPerAddress = 3, 5
	ctx := context.Background()
	_, _ = s.Create(ctx, "a@example.com", "long enough password")
	for i := range 3 {
		if _, err := s.SignIn(ctx, "a@example.com", "wrong password!", "10.0.0.1", ""); !errors.Is(err, operator.ErrSignIn) {
			t.Fatalf("failure %d: %v", i, err)
		}
	}
	// The account is locked, even with the right password and from elsewhere.
	if _, err := s.SignIn(ctx, "a@example.com", "long enough password", "10.0.0.2", ""); code(err) != apierr.RateLimited {
		t.Fatalf("locked account: %v", err)
	}
	// The address: unknown accounts count against it too.
	for i := range 2 {
		if _, err := s.SignIn(ctx, "nobody"+string(rune('a'+i))+"@example.com", "x", "10.0.0.1", ""); !errors.Is(err, operator.ErrSignIn) {
			t.Fatalf("unknown account %d: %v", i, err)
		}
	}
	if _, err := s.SignIn(ctx, "other@example.com", "x", "10.0.0.1", ""); code(err) != apierr.RateLimited {
		t.Fatalf("locked address: %v", err)
	}
	clock.Advance(s.Window + time.Second)
	if _, err := s.SignIn(ctx, "a@example.com", "long enough password", "10.0.0.1", ""); err != nil {
		t.Fatalf("after the window: %v", err)
	}
}

func TestLink_SetsPasswordOnce(t *testing.T) {
	s, _, clock := newService(t)
	ctx := context.Background()
	o, _ := s.Create(ctx, "a@example.com", "")
	for _, pw := range []string{"", "switchboard-no-such-operator"} { // the second is the dummy hash's
		if _, err := s.SignIn(ctx, "a@example.com", pw, "10.0.0.1", ""); !errors.Is(err, operator.ErrSignIn) {
			t.Fatalf("an operator without a password signs in with %q: %v", pw, err)
		}
	}
	tok, err := s.CreateLink(ctx, o.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.LinkOperator(ctx, tok); err != nil || got.ID != o.ID {
		t.Fatalf("link operator: %+v %v", got, err)
	}
	if _, err := s.UseLink(ctx, tok, "short", ""); code(err) != apierr.ValidationError {
		t.Fatalf("short password: %v", err)
	}
	sessTok, err := s.UseLink(ctx, tok, "my new long password", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Session(ctx, sessTok); err != nil {
		t.Fatalf("the link did not sign in: %v", err)
	}
	if _, err := s.UseLink(ctx, tok, "my new long password", ""); code(err) != apierr.LinkExpired {
		t.Fatalf("second use: %v", err)
	}
	if _, err := s.SignIn(ctx, "a@example.com", "my new long password", "10.0.0.1", ""); err != nil {
		t.Fatalf("the password the link set: %v", err)
	}
	late, _ := s.CreateLink(ctx, o.ID)
	clock.Advance(s.LinkTTL)
	if _, err := s.LinkOperator(ctx, late); code(err) != apierr.LinkExpired {
		t.Fatalf("expired link: %v", err)
	}
}

func TestRole_OtherProjectsAreNotFound(t *testing.T) {
	s, st, _ := newService(t)
	ctx := context.Background()
	o, _ := s.Create(ctx, "a@example.com", "")
	p, _ := st.CreateProjectOwned(ctx, "mine", o.ID)
	q, _ := st.CreateProject(ctx, "theirs")
	if r, err := s.Role(ctx, o.ID, p.ID); err != nil || r != store.RoleOwner {
		t.Fatalf("own project: %q %v", r, err)
	}
	if _, err := s.Role(ctx, o.ID, q.ID); code(err) != apierr.NotFound {
		t.Fatalf("other project: %v", err)
	}
	if err := operator.CheckRole("admin"); code(err) != apierr.ValidationError {
		t.Fatalf("role admin: %v", err)
	}
}
