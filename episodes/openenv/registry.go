package openenv

import (
	"sync"
	"time"
)

// registry counts the sessions held against the bound, and keeps the
// episodes HTTP clients started, by id, until they end, are closed, or
// have been idle past the Manager's idle timeout.
type registry struct {
	mu   sync.Mutex
	max  int
	held int                 // WebSockets, reserved resets and HTTP episodes
	http map[string]*episode // HTTP clients' episodes
	idle time.Duration
	now  func() time.Time
}

func newRegistry(max int, idle time.Duration, now func() time.Time) *registry {
	return &registry{max: max, http: map[string]*episode{}, idle: idle, now: now}
}

// reserve takes a session's room, first letting go of HTTP episodes the
// Manager has abandoned; false when none is left.
func (g *registry) reserve() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.held >= g.max {
		g.sweep()
	}
	if g.held >= g.max {
		return false
	}
	g.held++
	return true
}

// sweep drops the HTTP episodes idle past the idle timeout.
func (g *registry) sweep() {
	cutoff := g.now().Add(-g.idle)
	for id, ep := range g.http {
		ep.mu.Lock()
		stale := ep.lastUsed.Before(cutoff)
		ep.mu.Unlock()
		if stale {
			delete(g.http, id)
			g.held--
		}
	}
}

// release gives a room back.
func (g *registry) release() {
	g.mu.Lock()
	g.held--
	g.mu.Unlock()
}

// keep stores an HTTP episode in the room reserved for it.
func (g *registry) keep(ep *episode) {
	g.mu.Lock()
	g.http[ep.id] = ep
	g.mu.Unlock()
}

// find is the HTTP episode of that id, marked used now; nil if not held.
func (g *registry) find(id string) *episode {
	g.mu.Lock()
	ep := g.http[id]
	g.mu.Unlock()
	if ep != nil {
		ep.touch(g.now())
	}
	return ep
}

// drop lets go of the HTTP episode of that id, and reports whether it was
// held.
func (g *registry) drop(id string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if _, ok := g.http[id]; !ok {
		return false
	}
	delete(g.http, id)
	g.held--
	return true
}

// active is the count of rooms held.
func (g *registry) active() int {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.held
}
