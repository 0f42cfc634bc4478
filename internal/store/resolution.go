package store

import "context"

// maxCachedResolutions bounds the resolution cache.
const maxCachedResolutions = 8192

// ResolutionCandidates is ConnectorConnections for account resolution on
// a request's hot path. When ctx carries the project's connections version
// (WithKeyProject, from the API key lookup), the answer may come from an
// in-process cache keyed by that version: every change a resolution could
// see bumps the version in the same transaction (database triggers), so a
// change made anywhere shows on the next request. It must not be used to
// read back a request's own writes. The slice must not be modified.
func (s *Store) ResolutionCandidates(ctx context.Context, projectID, userID, connectorID string) ([]Connection, error) {
	return s.resolutionRead(ctx, connCacheKey{project: projectID, user: userID, connector: connectorID},
		func() ([]Connection, error) { return s.ConnectorConnections(ctx, projectID, userID, connectorID) })
}

// ResolutionConnection is GetConnection for account resolution, cached as
// ResolutionCandidates is.
func (s *Store) ResolutionConnection(ctx context.Context, projectID, id string) (Connection, error) {
	conns, err := s.resolutionRead(ctx, connCacheKey{project: projectID, id: id}, func() ([]Connection, error) {
		c, err := s.GetConnection(ctx, projectID, id)
		return []Connection{c}, err
	})
	if err != nil {
		return Connection{}, err
	}
	return conns[0], nil
}

// ResolutionAccounts is ListConnections for reads on a request's hot path
// (a session's account statuses), cached as ResolutionCandidates is.
func (s *Store) ResolutionAccounts(ctx context.Context, projectID, userID string) ([]Connection, error) {
	return s.resolutionRead(ctx, connCacheKey{project: projectID, user: userID, all: true},
		func() ([]Connection, error) { return s.ListConnections(ctx, projectID, userID) })
}

// connCacheKey names a resolution read: a user's accounts of a connector,
// all of a user's accounts, or one account by id.
type connCacheKey struct {
	project, user, connector, id string
	all                          bool
}

func (s *Store) resolutionRead(ctx context.Context, k connCacheKey, read func() ([]Connection, error)) ([]Connection, error) {
	v, versioned := connectionsVersion(ctx, k.project)
	if versioned {
		if conns, ok := s.conns.get(k, v); ok {
			return conns, nil
		}
	}
	conns, err := read()
	if err == nil && versioned {
		s.conns.put(k, v, conns)
	}
	return conns, err
}
