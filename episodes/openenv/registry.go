package openenv

import (
	"context"
	"sync"
	"time"

	"github.com/sqlgym/sqlgym/base/fairshare"
)

// registry shares the sessions' rooms (--max-openenv-sessions) among
// clients (base/fairshare: a client is the remote address), and
// keeps the episodes HTTP clients started, by id, until they end, are
// closed, have been idle past the Manager's idle timeout, or are
// reclaimed for a client below its share.
type registry struct {
	pool    *fairshare.Pool
	idle    time.Duration
	now     func() time.Time
	abandon func(ctx context.Context, id string) bool // the Manager's AbandonIdle

	mu   sync.Mutex
	http map[string]*kept // HTTP clients' episodes
}

// kept is an HTTP client's episode and its room.
type kept struct {
	g      *registry
	ep     *episode
	ticket *fairshare.Ticket
}

func newRegistry(max int, idle time.Duration, now func() time.Time, abandon func(context.Context, string) bool) *registry {
	return &registry{pool: fairshare.New(max, true), http: map[string]*kept{}, idle: idle, now: now, abandon: abandon}
}

// reserve takes a session's room for client, first letting go of HTTP
// episodes the Manager has abandoned when the bound is reached; the
// error (a *fairshare.Refusal) says why none is left for it.
func (g *registry) reserve(client string) (*fairshare.Ticket, error) {
	if g.pool.Held() >= g.pool.Max() {
		g.sweep()
	}
	return g.pool.Acquire(client)
}

// sweep drops the HTTP episodes idle past the idle timeout.
func (g *registry) sweep() {
	cutoff := g.now().Add(-g.idle)
	g.mu.Lock()
	defer g.mu.Unlock()
	for id, k := range g.http {
		if k.LastUsed().Before(cutoff) {
			delete(g.http, id)
			k.ticket.Release()
		}
	}
}

// keep stores an HTTP episode in the room reserved for it, where it may
// be reclaimed.
func (g *registry) keep(ep *episode, t *fairshare.Ticket) {
	k := &kept{g: g, ep: ep, ticket: t}
	g.mu.Lock()
	g.http[ep.id] = k
	g.mu.Unlock()
	t.Hold(k)
}

// find is the HTTP episode of that id, marked used now; nil if not held.
func (g *registry) find(id string) *episode {
	g.mu.Lock()
	k := g.http[id]
	g.mu.Unlock()
	if k == nil {
		return nil
	}
	k.ep.touch(g.now())
	return k.ep
}

// drop lets go of the HTTP episode of that id, and reports whether it was
// held.
func (g *registry) drop(id string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	k, ok := g.http[id]
	if !ok {
		return false
	}
	delete(g.http, id)
	k.ticket.Release()
	return true
}

// active is the count of rooms held.
func (g *registry) active() int { return g.pool.Held() }

// LastUsed is when a request last used the episode.
func (k *kept) LastUsed() time.Time {
	k.ep.mu.Lock()
	defer k.ep.mu.Unlock()
	return k.ep.lastUsed
}

// Reclaim abandons the episode, as the Manager's idle sweep would, unless
// a step of it runs or waits, and lets go of it.
func (k *kept) Reclaim() bool {
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	if !k.g.abandon(ctx, k.ep.id) {
		return false
	}
	k.g.drop(k.ep.id)
	k.ticket.Release() // dropped meanwhile by another request: its room all the same
	return true
}

// closeTimeout bounds the recording of an episode reclaimed or closed
// when its session ends.
const closeTimeout = 10 * time.Second
