// Package operator keeps the dashboard's operators: their passwords
// (argon2id), one-time sign-in links, sign-in with its rate limit, the
// dashboard sessions (stored hashed, with expiry, so sign-out and expiry
// hold on every replica), their CSRF tokens, and the operators' roles in
// projects. The CLI (admin operator) and the dashboard both use it.
package operator

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"net/mail"
	"strings"
	"time"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/store"
)

// Service is the operators' service.
type Service struct {
	store  *store.Store
	now    func() time.Time
	params Params
	// SessionTTL is how long a dashboard session lasts from sign-in;
	// LinkTTL how long a sign-in link stays usable.
	SessionTTL, LinkTTL time.Duration
	// Window, MaxPerAccount and MaxPerAddress are the sign-in rate limit:
	// at most so many failed sign-ins per account and per client address
	// within the window (counted in the database, so across replicas).
	Window                       time.Duration
	MaxPerAccount, MaxPerAddress int
	// hashing bounds the password hashes computed at once (each takes
	// Params.Memory), so a burst of sign-ins cannot exhaust memory.
	hashing chan struct{}
}

// MaxConcurrentHashes is how many password hashes a process computes at
// once; more sign-ins wait their turn.
const MaxConcurrentHashes = 4

// verify checks a password against a hash within the concurrency bound.
func (s *Service) verify(ctx context.Context, encoded, password string) (bool, error) {
	select {
	case s.hashing <- struct{}{}:
	case <-ctx.Done():
		return false, ctx.Err()
	}
	defer func() { <-s.hashing }()
	return VerifyPassword(encoded, password), nil
}

// hash hashes a password within the concurrency bound.
func (s *Service) hash(ctx context.Context, password string) (string, error) {
	select {
	case s.hashing <- struct{}{}:
	case <-ctx.Done():
		return "", ctx.Err()
	}
	defer func() { <-s.hashing }()
	return HashPassword(password, s.params)
}

// Options configure a Service.
type Options struct {
	Store *store.Store
	// Now is the clock (time.Now when nil); Params the argon2id cost of new
	// hashes (DefaultParams when zero).
	Now    func() time.Time
	Params Params
}

// NewService returns a Service with the default limits: 12-hour sessions,
// 24-hour links, 10 failures per account and 50 per address in 15 minutes.
func NewService(o Options) *Service {
	s := &Service{store: o.Store, now: o.Now, params: o.Params,
		SessionTTL: 12 * time.Hour, LinkTTL: 24 * time.Hour,
		Window: 15 * time.Minute, MaxPerAccount: 10, MaxPerAddress: 50, hashing: make(chan struct{}, MaxConcurrentHashes)}
	if s.now == nil {
		s.now = time.Now
	}
	if s.params == (Params{}) {
		s.params = DefaultParams
	}
	return s
}

// MinPasswordLen is the shortest password accepted.
const MinPasswordLen = 12

// NormalizeEmail returns the email in the form it is stored (trimmed, lower
// case), or a VALIDATION_ERROR.
func NormalizeEmail(email string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(email))
	a, err := mail.ParseAddress(e)
	if err != nil || a.Address != e || len(e) > 254 {
		return "", apierr.New(apierr.ValidationError, "%q is not an email address such as ops@example.com", email)
	}
	return e, nil
}

// CheckPassword refuses a password too short or too long to be hashed.
func CheckPassword(password string) error {
	if len([]rune(password)) < MinPasswordLen {
		return apierr.New(apierr.ValidationError, "a password is at least %d characters", MinPasswordLen)
	}
	if len(password) > 1024 {
		return apierr.New(apierr.ValidationError, "a password is at most 1024 bytes")
	}
	return nil
}

// Create stores an operator. An empty password makes an operator who can
// sign in only through a sign-in link (CreateLink) until one is set.
func (s *Service) Create(ctx context.Context, email, password string) (store.Operator, error) {
	e, err := NormalizeEmail(email)
	if err != nil {
		return store.Operator{}, err
	}
	hash := ""
	if password != "" {
		if err := CheckPassword(password); err != nil {
			return store.Operator{}, err
		}
		if hash, err = s.hash(ctx, password); err != nil {
			return store.Operator{}, err
		}
	}
	o, err := s.store.CreateOperator(ctx, e, hash)
	if errors.Is(err, store.ErrConflict) {
		return store.Operator{}, apierr.New(apierr.Conflict, "an operator with the email %s exists already", e)
	}
	return o, err
}

// SetPassword replaces an operator's password, ending its sessions.
func (s *Service) SetPassword(ctx context.Context, operatorID, password string) error {
	if err := CheckPassword(password); err != nil {
		return err
	}
	hash, err := s.hash(ctx, password)
	if err != nil {
		return err
	}
	return s.store.SetOperatorPassword(ctx, operatorID, hash)
}

// CheckRole refuses a role other than owner or member.
func CheckRole(role string) error {
	if role != store.RoleOwner && role != store.RoleMember {
		return apierr.New(apierr.ValidationError, "role is owner or member, not %q", role)
	}
	return nil
}

// newToken returns a random token and its SHA-256 (hex), the stored form.
func newToken() (token, hash string, err error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", "", err
	}
	token = hex.EncodeToString(b[:])
	return token, HashToken(token), nil
}

// HashToken is the stored form of a session or link token.
func HashToken(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// CreateLink makes a one-time sign-in link token for an operator, valid
// for LinkTTL; the caller shows {web_url}/dashboard/signin/link/<token> once.
func (s *Service) CreateLink(ctx context.Context, operatorID string) (string, error) {
	token, hash, err := newToken()
	if err != nil {
		return "", err
	}
	if err := s.store.CreateSigninLink(ctx, hash, operatorID, s.now().Add(s.LinkTTL)); err != nil {
		return "", err
	}
	return token, nil
}

// LinkOperator returns the operator of a live sign-in link, without using it.
func (s *Service) LinkOperator(ctx context.Context, token string) (store.Operator, error) {
	o, err := s.store.SigninLinkOperator(ctx, HashToken(token))
	if errors.Is(err, store.ErrNotFound) {
		return store.Operator{}, errLinkInvalid
	}
	return o, err
}

var errLinkInvalid = apierr.New(apierr.LinkExpired, "this sign-in link was used already or has expired; ask for a new one ('switchboard admin operator link EMAIL')")

// UseLink consumes a sign-in link, sets the operator's password and signs
// in: it returns the new session token. oldToken is the browser's previous
// session, ended (rotation).
func (s *Service) UseLink(ctx context.Context, token, password, oldToken string) (string, error) {
	if err := CheckPassword(password); err != nil {
		return "", err
	}
	opID, err := s.store.UseSigninLink(ctx, HashToken(token))
	if errors.Is(err, store.ErrNotFound) {
		return "", errLinkInvalid
	}
	if err != nil {
		return "", err
	}
	if err := s.SetPassword(ctx, opID, password); err != nil {
		return "", err
	}
	return s.startSession(ctx, opID, oldToken)
}

// dummyHash is verified against when the account is unknown or has no
// password, so that those take as long as a wrong password.
var dummyHash, _ = HashPassword("switchboard-no-such-operator", DefaultParams)

// ErrSignIn is the one answer to a wrong email or password.
var ErrSignIn = apierr.New(apierr.Unauthorized, "the email or password is not correct")

// SignIn checks an email and password, counting failures per account and
// per client address; it returns a new session token. oldToken, the
// browser's previous session if any, is ended: the session is rotated on
// every sign-in.
func (s *Service) SignIn(ctx context.Context, email, password, addr, oldToken string) (string, error) {
	e := strings.ToLower(strings.TrimSpace(email))
	acct, ip := "email:"+e, "addr:"+addr
	since := s.now().Add(-s.Window)
	for _, lim := range []struct {
		subject string
		max     int
	}{{acct, s.MaxPerAccount}, {ip, s.MaxPerAddress}} {
		n, err := s.store.SigninFailures(ctx, lim.subject, since)
		if err != nil {
			return "", err
		}
		if n >= lim.max {
			return "", apierr.New(apierr.RateLimited, "too many failed sign-ins; wait %d minutes and try again", int(s.Window.Minutes()))
		}
	}
	o, err := s.store.OperatorByEmail(ctx, e)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return "", err
	}
	// An unknown email, or an operator without a password yet, is checked
	// against a dummy hash (so it takes as long) and fails whatever matched.
	real := err == nil && o.PasswordHash != ""
	encoded := o.PasswordHash
	if !real {
		encoded = dummyHash
	}
	ok, err := s.verify(ctx, encoded, password)
	if err != nil {
		return "", err
	}
	if !real || !ok {
		if err := s.store.RecordSigninFailure(ctx, since, acct, ip); err != nil {
			return "", err
		}
		return "", ErrSignIn
	}
	if err := s.store.ClearSigninFailures(ctx, acct); err != nil {
		return "", err
	}
	return s.startSession(ctx, o.ID, oldToken)
}

func (s *Service) startSession(ctx context.Context, operatorID, oldToken string) (string, error) {
	token, hash, err := newToken()
	if err != nil {
		return "", err
	}
	old := ""
	if oldToken != "" {
		old = HashToken(oldToken)
	}
	if err := s.store.CreateDashboardSession(ctx, hash, old, operatorID, s.now().Add(s.SessionTTL)); err != nil {
		return "", err
	}
	return token, nil
}

// Session is a signed-in operator.
type Session struct {
	OperatorID, Email string
	ExpiresAt         time.Time
	// CSRF is the session's synchroniser token (CSRFToken).
	CSRF string
}

// ErrSignedOut answers a request without a live session.
var ErrSignedOut = apierr.New(apierr.Unauthorized, "sign in to the dashboard first: this needs a dashboard session (API keys are not accepted here)")

// Session returns the live session of a token, or ErrSignedOut.
func (s *Service) Session(ctx context.Context, token string) (Session, error) {
	if token == "" {
		return Session{}, ErrSignedOut
	}
	d, err := s.store.DashboardSessionFor(ctx, HashToken(token))
	if errors.Is(err, store.ErrNotFound) {
		return Session{}, ErrSignedOut
	}
	if err != nil {
		return Session{}, err
	}
	return Session{OperatorID: d.OperatorID, Email: d.Email, ExpiresAt: d.ExpiresAt, CSRF: CSRFToken(token)}, nil
}

// SignOut ends a session on every replica.
func (s *Service) SignOut(ctx context.Context, token string) error {
	if token == "" {
		return nil
	}
	return s.store.DeleteDashboardSession(ctx, HashToken(token))
}

// CSRFToken is the synchroniser token of a session: derived from the
// session token (so it is tied to the session and rotates with it) but
// not from what the database stores, so the stored hash does not give it.
func CSRFToken(sessionToken string) string {
	sum := sha256.Sum256([]byte("switchboard dashboard csrf\x00" + sessionToken))
	return hex.EncodeToString(sum[:])
}

// CheckCSRF reports whether given is the session's CSRF token.
func (sess Session) CheckCSRF(given string) bool {
	return given != "" && subtle.ConstantTimeCompare([]byte(given), []byte(sess.CSRF)) == 1
}

// Role returns the operator's role in a project; not being in it is a
// NOT_FOUND, so that other projects' ids are not confirmed.
func (s *Service) Role(ctx context.Context, operatorID, projectID string) (string, error) {
	projects, err := s.store.OperatorProjects(ctx, operatorID)
	if err != nil {
		return "", err
	}
	for _, p := range projects {
		if p.ProjectID == projectID {
			return p.Role, nil
		}
	}
	return "", apierr.New(apierr.NotFound, "project %s not found among your projects", projectID)
}
