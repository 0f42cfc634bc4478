package httpapi

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/apikey"
	"github.com/switchboard-gw/switchboard/internal/catalog"
	"github.com/switchboard-gw/switchboard/internal/store"
)

type projectKey struct{}

// projectID returns the project the request's API key decided.
func projectID(ctx context.Context) string {
	id, _ := ctx.Value(projectKey{}).(string)
	return id
}

// requireAPIKey admits a request only with `Authorization: Bearer <key>`
// naming a live key, and puts the key's project in the context for the whole
// request. The store answers from its key cache on PostgreSQL, cleared on
// every replica by notification, or reads the key (docs/design-notes.md).
func (s *Server) requireAPIKey(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		key, err := bearerKey(r)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		kp, err := s.store.ProjectForKey(r.Context(), apikey.Hash(key))
		if errors.Is(err, store.ErrNotFound) {
			s.fail(w, r, apierr.New(apierr.Unauthorized, "API key is not valid: it is unknown, revoked or expired"))
			return
		}
		if err != nil {
			s.fail(w, r, err)
			return
		}
		if info := infoFrom(r.Context()); info != nil {
			info.projectID = kp.ID
		}
		ctx := store.WithKeyProject(context.WithValue(r.Context(), projectKey{}, kp.ID), kp)
		if s.catalogs != nil {
			cat, err := s.catalogs.For(ctx, kp.ID)
			if err != nil {
				s.fail(w, r, err)
				return
			}
			ctx = catalog.NewContext(ctx, cat)
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// bearerKey returns the well-formed API key of the Authorization header.
func bearerKey(r *http.Request) (string, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", apierr.New(apierr.Unauthorized, "missing API key: send the header Authorization: Bearer <API key>")
	}
	scheme, key, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", apierr.New(apierr.Unauthorized, "malformed Authorization header: use Authorization: Bearer <API key>")
	}
	key = strings.TrimSpace(key)
	if !apikey.WellFormed(key) {
		return "", apierr.New(apierr.Unauthorized, "malformed API key: a key is sb_ followed by 64 lowercase hexadecimal characters")
	}
	return key, nil
}
