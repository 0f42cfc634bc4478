package execute

import (
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/switchboard-gw/switchboard/internal/catalog"
)

// MCP client sessions stay open between calls, so a tool call costs one
// request instead of a new handshake (initialize, initialized, call, close).
const (
	mcpIdle        = 2 * time.Minute
	mcpMaxSessions = 256
)

// mcpKey names a session: a changed server definition (re-added, refreshed)
// is a new connector pointer, a rotated credential a new revision, and a
// refreshed OAuth token a new token mark, so none reuses a session opened
// with old headers.
type mcpKey struct {
	con      *catalog.Connector
	connID   string
	revision int64
	token    string
}

type mcpSession struct {
	cs   *mcp.ClientSession
	used time.Time
}

// mcpSessions is the pool of open client sessions. A go-sdk ClientSession
// takes concurrent calls, so one session serves every caller of its key.
type mcpSessions struct {
	mu   sync.Mutex
	open map[mcpKey]*mcpSession
}

// get returns the open session of k, if there is one.
func (p *mcpSessions) get(k mcpKey, now time.Time) *mcp.ClientSession {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := p.open[k]
	if s == nil {
		return nil
	}
	s.used = now
	return s.cs
}

// put offers a new session to the pool and returns the one to use: an
// existing session of k wins (cs is then closed). It reports false when the
// pool is full and the caller should close cs after its call.
func (p *mcpSessions) put(k mcpKey, cs *mcp.ClientSession, now time.Time) (*mcp.ClientSession, bool) {
	p.mu.Lock()
	if s := p.open[k]; s != nil {
		s.used = now
		p.mu.Unlock()
		go cs.Close()
		return s.cs, true
	}
	idle := p.sweepLocked(now)
	pooled := len(p.open) < mcpMaxSessions
	if pooled {
		if p.open == nil {
			p.open = map[mcpKey]*mcpSession{}
		}
		p.open[k] = &mcpSession{cs: cs, used: now}
	}
	p.mu.Unlock()
	go closeAll(idle)
	return cs, pooled
}

// sweep removes the sessions idle for longer than mcpIdle and returns them
// for closing.
func (p *mcpSessions) sweep(now time.Time) []*mcp.ClientSession {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.sweepLocked(now)
}

func (p *mcpSessions) sweepLocked(now time.Time) []*mcp.ClientSession {
	var idle []*mcp.ClientSession
	for key, s := range p.open {
		if now.Sub(s.used) > mcpIdle {
			idle = append(idle, s.cs)
			delete(p.open, key)
		}
	}
	return idle
}

// drop removes a session that failed, unless another already replaced it.
func (p *mcpSessions) drop(k mcpKey, cs *mcp.ClientSession) {
	p.mu.Lock()
	if s := p.open[k]; s != nil && s.cs == cs {
		delete(p.open, k)
	}
	p.mu.Unlock()
	go cs.Close()
}

// close ends every pooled session.
func (p *mcpSessions) close() {
	p.mu.Lock()
	var all []*mcp.ClientSession
	for _, s := range p.open {
		all = append(all, s.cs)
	}
	p.open = nil
	p.mu.Unlock()
	closeAll(all)
}

func closeAll(sessions []*mcp.ClientSession) {
	for _, cs := range sessions {
		_ = cs.Close()
	}
}
