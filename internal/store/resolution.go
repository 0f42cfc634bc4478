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
	k := connCacheKey{project: projectID, user: userID, connector: connectorID}
	v, versioned := connectionsVersion(ctx, projectID)
	if versioned {
		if conns, ok := s.conns.get(k, v); ok {
			return conns, nil
		}
	}
	conns, err := s.ConnectorConnections(ctx, projectID, userID, connectorID)
	if err == nil && versioned {
		s.conns.put(k, v, conns)
	}
	return conns, err
}

// ResolutionConnection is GetConnection for account resolution, cached as
// ResolutionCandidates is.
func (s *Store) ResolutionConnection(ctx context.Context, projectID, id string) (Connection, error) {
	k := connCacheKey{project: projectID, id: id}
	v, versioned := connectionsVersion(ctx, projectID)
	if versioned {
		if conns, ok := s.conns.get(k, v); ok {
			return conns[0], nil
		}
	}
	c, err := s.GetConnection(ctx, projectID, id)
	if err == nil && versioned {
		s.conns.put(k, v, []Connection{c})
	}
	return c, err
}

type connCacheKey struct {
	project, user, connector, id string
}
