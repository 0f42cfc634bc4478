package account

import (
	"context"
	"errors"
	"fmt"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// AuthConfigRequest is an auth config to create: a connector's auth method
// with the project's OAuth client (admin authconfig create and the
// dashboard's auth configs screen).
type AuthConfigRequest struct {
	ConnectorID string
	// Type is the auth method's type (oauth2 when empty); MethodID picks
	// one when the connector has several of the type.
	Type, MethodID         string
	ClientID, ClientSecret string
	// Scopes are asked for at sign-in; none means those the project's
	// switched-on tools need, plus the method's base scopes.
	Scopes []string
	// Key names the config in the project (<connector>_<method> when empty).
	Key string
	// Hosts replace the definition's allowed hosts, for a connector whose
	// OAuth URLs take a user-typed host.
	Hosts []string
}

// CreateAuthConfig checks a request against the project's catalog (its own
// connectors included), seals the client secret and stores the config.
func (s *Service) CreateAuthConfig(ctx context.Context, tn tenant.Tenant, r AuthConfigRequest) (store.AuthConfig, error) {
	if err := tn.Check(); err != nil {
		return store.AuthConfig{}, err
	}
	if r.Type == "" {
		r.Type = catalog.AuthOAuth2
	}
	con, ok := tn.Catalog.Connector(r.ConnectorID)
	if !ok {
		return store.AuthConfig{}, apierr.New(apierr.ConnectorNotFound, "the project has no connector %q", r.ConnectorID)
	}
	var method *catalog.AuthMethod
	for i := range con.AuthMethods {
		m := &con.AuthMethods[i]
		if m.Type == r.Type && (r.MethodID == "" || m.ID == r.MethodID) {
			method = m
			break
		}
	}
	if method == nil {
		return store.AuthConfig{}, apierr.New(apierr.ValidationError, "%s has no auth method of type %s", con.ID, r.Type)
	}
	for _, h := range r.Hosts {
		if !catalog.ValidHostPattern(h) {
			return store.AuthConfig{}, apierr.New(apierr.ValidationError, "%q is not a host name, host:port or *.domain", h)
		}
	}
	if len(r.Hosts) > 0 && (method.OAuth2 == nil || !catalog.Templated(method.OAuth2.AuthorizeURL) && !catalog.Templated(method.OAuth2.TokenURL)) {
		return store.AuthConfig{}, apierr.New(apierr.ValidationError,
			"hosts are only for a connector whose OAuth URLs take a user-typed host; %s's %s URLs are fixed", con.ID, method.ID)
	}
	if method.Type == catalog.AuthOAuth2 && (r.ClientID == "" || r.ClientSecret == "") {
		return store.AuthConfig{}, apierr.New(apierr.ValidationError, "an oauth2 auth config needs a client id and a client secret")
	}
	if len(r.ClientID) > 512 || len(r.ClientSecret) > 4096 || len(r.Key) > 128 {
		return store.AuthConfig{}, apierr.New(apierr.ValidationError, "the client id, client secret or key is too long")
	}
	if r.Key == "" {
		r.Key = con.ID + "_" + method.ID
	}
	ac := store.AuthConfig{ID: store.NewID(), ProjectID: tn.ProjectID, ConnectorID: con.ID, Key: r.Key, AuthMethodID: method.ID,
		AuthType: method.Type, ClientID: r.ClientID, Scopes: r.Scopes, Hosts: r.Hosts}
	if r.ClientSecret != "" {
		sealed, err := s.SealClientSecret(ac.ID, r.ClientSecret)
		if err != nil {
			return store.AuthConfig{}, err
		}
		ac.ClientSecret = sealed
	}
	ac, err := s.store.CreateAuthConfig(ctx, ac)
	if errors.Is(err, store.ErrConflict) {
		return store.AuthConfig{}, apierr.New(apierr.Conflict, "the project already has an auth config keyed %q; choose another key", r.Key)
	}
	if err != nil {
		return store.AuthConfig{}, fmt.Errorf("account: create auth config: %w", err)
	}
	return ac, nil
}
