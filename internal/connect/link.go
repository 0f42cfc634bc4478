// Package connect owns connect links: single-use links to the hosted
// Connect page where an end user connects their own accounts. A link's
// token is 32 random bytes, given out once in its URL and stored only as
// its SHA-256.
package connect

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"net/url"
	"slices"
	"time"

	"github.com/switchboard-gw/switchboard/internal/account"
	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// Limits (docs/README.md, "Limits").
const (
	DefaultExpiry = 30
	MinExpiry     = 5
	MaxExpiry     = 1440
)

// Service creates connect links.
type Service struct {
	store  *store.Store
	webURL string
	now    func() time.Time
}

// NewService returns a Service; links point at webURL + /connect/<token>.
// The connectors a link may offer come from the tenant passed to Create.
func NewService(st *store.Store, webURL string, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: st, webURL: webURL, now: now}
}

// Request is the body of POST /v1/connect-links.
type Request struct {
	UserID           string
	Connectors       []string
	AuthConfigs      []string
	RedirectURL      string
	ExpiresInMinutes *int
	// ConnectionID and Scopes make an incremental link (not offered on
	// POST /v1/connect-links): it reconnects that account of the user,
	// asking for Scopes beyond those the account was granted. A session's
	// missing_scopes refusal makes one.
	ConnectionID string
	Scopes       []string
}

// Link is a created connect link. URL holds the token and is shown once.
type Link struct {
	ID          string    `json:"id"`
	URL         string    `json:"url"`
	UserID      string    `json:"userId"`
	AuthConfigs []string  `json:"authConfigs"`
	ExpiresAt   time.Time `json:"expiresAt"`
}

// Create checks a request and stores a new single-use link.
func (s *Service) Create(ctx context.Context, t tenant.Tenant, r Request) (Link, error) {
	if err := t.Check(); err != nil {
		return Link{}, err
	}
	projectID := t.ProjectID
	var issues apierr.Issues
	account.CheckUserID(r.UserID, "userId", true, &issues)
	cat := t.Catalog
	for i, c := range r.Connectors {
		if _, ok := cat.Connector(c); !ok {
			issues.Add(apierr.IssueInvalidValue, []any{"connectors", i}, "%q is not a connector", c)
		}
	}
	if r.Connectors != nil && len(r.Connectors) == 0 {
		issues.Add(apierr.IssueTooSmall, []any{"connectors"}, "must name at least one connector, or be left out for all")
	}
	for i, key := range r.AuthConfigs {
		if _, err := s.store.AuthConfigByKey(ctx, projectID, key); err != nil {
			issues.Add(apierr.IssueInvalidValue, []any{"authConfigs", i}, "%q is not an auth config key of this project", key)
		}
	}
	minutes := DefaultExpiry
	if r.ExpiresInMinutes != nil {
		minutes = *r.ExpiresInMinutes
		if minutes < MinExpiry || minutes > MaxExpiry {
			issues.Add(apierr.IssueInvalidValue, []any{"expiresInMinutes"}, "must be from %d to %d", MinExpiry, MaxExpiry)
		}
	}
	if r.RedirectURL != "" {
		allowed, err := s.store.RedirectURLs(ctx, projectID)
		if err != nil {
			return Link{}, err
		}
		u, perr := url.Parse(r.RedirectURL)
		switch {
		case perr != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "":
			issues.Add(apierr.IssueInvalidValue, []any{"redirectUrl"}, "must be an absolute http(s) URL")
		case !slices.Contains(allowed, r.RedirectURL):
			issues.Add(apierr.IssueInvalidValue, []any{"redirectUrl"},
				"is not on the project's allowed list; an admin can add it with 'switchboard admin project set --redirect-urls'")
		}
	}
	if r.ConnectionID != "" {
		conn, err := s.store.GetConnection(ctx, projectID, r.ConnectionID)
		if err != nil || conn.Global || conn.UserID != r.UserID || (len(r.Connectors) > 0 && !slices.Contains(r.Connectors, conn.ConnectorID)) {
			issues.Add(apierr.IssueInvalidValue, []any{"connectionId"}, "is not an account of this user among the link's connectors")
		}
	}
	if err := issues.Err(); err != nil {
		return Link{}, err
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return Link{}, fmt.Errorf("connect: token: %w", err)
	}
	token := base64.RawURLEncoding.EncodeToString(raw[:])
	l, err := s.store.CreateConnectLink(ctx, store.ConnectLink{
		ProjectID: projectID, UserID: r.UserID, TokenHash: apikey.Hash(token), Connectors: r.Connectors,
		AuthConfigs: r.AuthConfigs, RedirectURL: r.RedirectURL, ExpiresAt: s.now().Add(time.Duration(minutes) * time.Minute),
		ConnectionID: r.ConnectionID, Scopes: r.Scopes,
	})
	if err != nil {
		return Link{}, err
	}
	out := Link{ID: l.ID, URL: s.webURL + "/connect/" + token, UserID: l.UserID, ExpiresAt: l.ExpiresAt}
	if len(l.AuthConfigs) > 0 {
		out.AuthConfigs = l.AuthConfigs
	}
	return out, nil
}
