package store

import (
	"context"
	"fmt"
	"sync"

	"github.com/switchboard-gw/switchboard/internal/lru"
)

// Bounds of the resolution cache: answers (a user's accounts of a
// connector, all of a user's accounts, one account by id), projects whose
// changes are followed, and users with a recent change per project beyond
// which the project's answers are simply all dropped once.
const (
	maxCachedResolutions = 32768
	maxFollowedProjects  = 4096
	maxChangedUsers      = 8192
)

// ResolutionCandidates is ConnectorConnections for account resolution on
// a request's hot path. The answer may come from an in-process cache kept
// by the project's connections version (the caller's tenant read it with
// the API key, or from the projects row): every change a resolution could see bumps the version
// and logs the user it touched in the same transaction (database
// triggers), so a change made anywhere shows on the next request, and a
// change to one user's accounts leaves every other user's answers cached.
// It must not be used to read back a request's own writes. The slice must
// not be modified.
//
// A token refresh is not such a change: the cached sealed credential may
// hold an expired access token, which the executor notices and replaces by
// reading the account (see execute's refreshToken).
func (s *Store) ResolutionCandidates(ctx context.Context, projectID string, connectionsVersion int64, userID, connectorID string) ([]Connection, error) {
	return s.resolutionRead(ctx, connectionsVersion, connCacheKey{project: projectID, user: userID, connector: connectorID},
		func() ([]Connection, error) { return s.ConnectorConnections(ctx, projectID, userID, connectorID) })
}

// ResolutionConnection is GetConnection for account resolution, cached as
// ResolutionCandidates is.
func (s *Store) ResolutionConnection(ctx context.Context, projectID string, connectionsVersion int64, id string) (Connection, error) {
	conns, err := s.resolutionRead(ctx, connectionsVersion, connCacheKey{project: projectID, id: id}, func() ([]Connection, error) {
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
func (s *Store) ResolutionAccounts(ctx context.Context, projectID string, connectionsVersion int64, userID string) ([]Connection, error) {
	return s.resolutionRead(ctx, connectionsVersion, connCacheKey{project: projectID, user: userID, all: true},
		func() ([]Connection, error) { return s.ListConnections(ctx, projectID, userID) })
}

// connCacheKey names a resolution read: a user's accounts of a connector,
// all of a user's accounts, or one account by id.
type connCacheKey struct {
	project, user, connector, id string
	all                          bool
}

// resolution is one cached answer: what the database held at version (or
// later) for user's accounts. An answer by id belongs to the account's
// user.
type resolution struct {
	version int64
	user    string
	conns   []Connection
}

// resolutionCache holds answers and, per project, what changed since.
type resolutionCache struct {
	answers  *lru.Cache[connCacheKey, resolution]
	projects *lru.Cache[string, *projectChanges]
}

func newResolutionCache() resolutionCache {
	return resolutionCache{
		answers:  lru.New[connCacheKey, resolution](maxCachedResolutions),
		projects: lru.New[string, *projectChanges](maxFollowedProjects),
	}
}

// projectChanges follows one project's connection changes in this
// process. An answer stored at version v is still right when no change
// after v touched its user: v >= floor (global accounts, a gap in the log,
// or when following began) and v >= users[its user].
type projectChanges struct {
	mu     sync.Mutex
	synced int64 // changes up to this version are applied
	floor  int64
	users  map[string]int64 // user -> version of its latest change
	// reading serialises reads of the change log, so one request per
	// version reads it while the others wait for its result.
	reading sync.Mutex
}

func (p *projectChanges) valid(user string, v int64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return v >= p.floor && v >= p.users[user]
}

func (p *projectChanges) syncedTo(v int64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.synced >= v
}

// resetTo drops every answer stored before v.
func (p *projectChanges) resetTo(v int64) {
	p.floor = max(p.floor, v)
	p.synced = max(p.synced, v)
	clear(p.users)
}

func (s *Store) resolutionRead(ctx context.Context, v int64, k connCacheKey, read func() ([]Connection, error)) ([]Connection, error) {
	p, err := s.followChanges(ctx, k.project, v)
	if err != nil {
		return nil, err
	}
	if r, ok := s.conns.answers.Get(k); ok && p.valid(r.user, r.version) {
		s.stats.hit(statResolution)
		return r.conns, nil
	}
	s.stats.miss(statResolution)
	conns, err := read()
	if err != nil {
		return conns, err
	}
	user := k.user
	if k.id != "" {
		user = conns[0].UserID
	}
	// The read came after the version was read, so it holds at least
	// everything up to v: storing it at v can only make it miss early.
	if old, ok := s.conns.answers.Get(k); !ok || old.version <= v {
		s.conns.answers.Put(k, resolution{version: v, user: user, conns: conns})
	}
	return conns, nil
}

// followChanges returns a project's change state, brought up to version v:
// when the version moved since this process last looked, it reads the
// changes in between from connection_changes, once per version.
func (s *Store) followChanges(ctx context.Context, projectID string, v int64) (*projectChanges, error) {
	p, ok := s.conns.projects.Get(projectID)
	if !ok {
		// Nothing cached before now can be trusted: start at v.
		p = &projectChanges{synced: v, floor: v, users: map[string]int64{}}
		s.conns.projects.Put(projectID, p)
		return p, nil
	}
	if p.syncedTo(v) {
		return p, nil
	}
	p.reading.Lock()
	defer p.reading.Unlock()
	p.mu.Lock()
	from := p.synced
	p.mu.Unlock()
	if from >= v {
		return p, nil // another request read these changes meanwhile
	}
	changes, err := s.connectionChanges(ctx, projectID, from, v)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if int64(len(changes)) != v-from || len(p.users)+len(changes) > maxChangedUsers {
		// The log was pruned past what this process saw (or too many users
		// changed to track one by one): drop the project's answers.
		p.resetTo(v)
		return p, nil
	}
	for _, c := range changes {
		if c.global {
			p.floor = max(p.floor, c.version)
		} else {
			p.users[c.user] = max(p.users[c.user], c.version)
		}
	}
	p.synced = v
	return p, nil
}

type connectionChange struct {
	version int64
	user    string
	global  bool
}

// connectionChanges reads a project's logged changes with versions in
// (after, upTo].
func (s *Store) connectionChanges(ctx context.Context, projectID string, after, upTo int64) ([]connectionChange, error) {
	rows, err := s.readRows(ctx,
		`SELECT version, user_id, global FROM connection_changes WHERE project_id = $1 AND version > $2 AND version <= $3`,
		projectID, after, upTo)
	if err != nil {
		return nil, fmt.Errorf("store: connection changes: %w", err)
	}
	defer rows.Close()
	var out []connectionChange
	for rows.Next() {
		var c connectionChange
		if err := rows.Scan(&c.version, &c.user, &c.global); err != nil {
			return nil, fmt.Errorf("store: connection changes: %w", err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("store: connection changes: %w", err)
	}
	return out, nil
}
