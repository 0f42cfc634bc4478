package account

import (
	"context"
	"errors"
	"strings"

	"github.com/switchboard-gw/switchboard/internal/apierr"
	"github.com/switchboard-gw/switchboard/internal/store"
	"github.com/switchboard-gw/switchboard/internal/tenant"
)

// Use is what a call asks of account resolution.
type Use struct {
	UserID      string
	ConnectorID string
	// ConnectionID names the account explicitly.
	ConnectionID string
	// Preferred is a session's accounts entry for the connector: an
	// account id, name or label.
	Preferred string
	// AllowGlobal lets the call fall back to a global account.
	AllowGlobal bool
	// ToolID is the tool to run, or "" for the raw proxy.
	ToolID string
}

// Resolve picks the account a call runs with, as docs/connections.md says:
// explicit connectionId -> session preference -> the user's default -> when
// global accounts are allowed, the single global account -> 400
// MISSING_CONNECTION. It refuses accounts that need reconnecting (400
// REAUTH_REQUIRED) and global accounts without permission for the call
// (403 ACTION_DISABLED).
func (s *Service) Resolve(ctx context.Context, t tenant.Tenant, u Use) (store.Connection, error) {
	if err := t.Check(); err != nil {
		return store.Connection{}, err
	}
	c, err := s.pick(ctx, t, u)
	if err != nil {
		return store.Connection{}, err
	}
	if c.Status == store.StatusReauthRequired {
		return store.Connection{}, apierr.New(apierr.ReauthRequired,
			"connection %s (%s) must be reconnected: its authorization was revoked or expired", c.ID, c.Name)
	}
	if c.Global {
		if err := s.checkGlobal(ctx, c, u.ToolID); err != nil {
			return store.Connection{}, err
		}
	}
	return c, nil
}

func (s *Service) pick(ctx context.Context, t tenant.Tenant, u Use) (store.Connection, error) {
	if u.ConnectionID != "" {
		c, err := s.store.ResolutionConnection(ctx, t.ProjectID, t.ConnectionsVersion, u.ConnectionID)
		if errors.Is(err, store.ErrNotFound) || (err == nil && !c.Global && c.UserID != u.UserID) {
			return store.Connection{}, apierr.New(apierr.ConnectionNotFound,
				"connection %s is not an account of user %q in this project", u.ConnectionID, u.UserID).WithStatus(400)
		}
		if err != nil {
			return store.Connection{}, err
		}
		if c.ConnectorID != u.ConnectorID {
			return store.Connection{}, apierr.New(apierr.ConnectionNotFound,
				"connection %s is a %s account, not %s", c.ID, c.ConnectorID, u.ConnectorID).WithStatus(400)
		}
		return c, nil
	}
	candidates, err := s.store.ResolutionCandidates(ctx, t.ProjectID, t.ConnectionsVersion, u.UserID, u.ConnectorID)
	if err != nil {
		return store.Connection{}, err
	}
	if u.Preferred != "" {
		for _, c := range candidates {
			if (c.Global && !u.AllowGlobal) || !MatchesRef(c, u.Preferred) {
				continue
			}
			return c, nil
		}
		return store.Connection{}, apierr.New(apierr.ConnectionNotFound,
			"the session names account %q for %s, but user %q has no such account", u.Preferred, u.ConnectorID, u.UserID).WithStatus(400)
	}
	var globals []store.Connection
	for _, c := range candidates {
		if c.Global {
			globals = append(globals, c)
			continue
		}
		if c.IsDefault {
			return c, nil
		}
	}
	if u.AllowGlobal {
		switch len(globals) {
		case 1:
			return globals[0], nil
		case 0:
		default:
			choices := make([]apierr.Choice, len(globals))
			for i, g := range globals {
				choices[i] = apierr.Choice{ID: g.ID, DisplayName: DisplayName(g)}
			}
			return store.Connection{}, &apierr.Error{Code: apierr.AmbiguousConnection, Choices: choices,
				Message: "the project has several global " + u.ConnectorID + " accounts; name one with connectionId"}
		}
	}
	return store.Connection{}, apierr.New(apierr.MissingConnection,
		"user %q has not connected %s; create a connect link or POST /v1/connections first", u.UserID, u.ConnectorID)
}

// DisplayName is the label of an account, else its name.
func DisplayName(c store.Connection) string {
	if c.Label != nil && *c.Label != "" {
		return *c.Label
	}
	return c.Name
}

func (s *Service) checkGlobal(ctx context.Context, c store.Connection, toolID string) error {
	p, err := s.store.GetGlobalPermission(ctx, c.ID)
	if err != nil {
		return err
	}
	if toolID == "" {
		if !p.Proxy {
			return apierr.New(apierr.ActionDisabled, "global account %s is not allowed to use the proxy; an admin can allow it with 'switchboard admin global allow %s --proxy'", c.ID, c.ID)
		}
		return nil
	}
	if !ToolAllowed(p.Tools, toolID) {
		return apierr.New(apierr.ActionDisabled, "global account %s is not allowed to run %s; an admin can allow it with 'switchboard admin global allow %s --tools %s'", c.ID, toolID, c.ID, toolID)
	}
	return nil
}

// ToolAllowed reports whether toolID matches one of patterns: a tool id or
// a prefix ending in *.
func ToolAllowed(patterns []string, toolID string) bool {
	for _, p := range patterns {
		if p == toolID || (strings.HasSuffix(p, "*") && strings.HasPrefix(toolID, strings.TrimSuffix(p, "*"))) {
			return true
		}
	}
	return false
}
