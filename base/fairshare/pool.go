package fairshare

import (
	"cmp"
	"slices"
	"sync"
	"sync/atomic"
	"time"
)

// Item is one thing a client holds in a Pool.
type Item interface {
	// LastUsed is when a request last used the item (or when it began).
	LastUsed() time.Time
	// Reclaim ends the item, as its idle timeout would, if no request
	// of its is in flight, and reports whether it did. Ending it releases
	// its Ticket before Reclaim returns. It is called without the pool's
	// lock held.
	Reclaim() bool
}

// Pool is a bounded pool shared fairly among clients. It is safe for
// concurrent use.
type Pool struct {
	max       int
	reclaim   bool // false: a full pool refuses everyone, as a plain bound
	reclaimed atomic.Int64

	mu      sync.Mutex
	total   int
	clients map[string]map[*Ticket]struct{}
}

// New is a Pool of max items (at least 1). With reclaim false, a full
// pool refuses every client: the shares are counted but never enforced.
func New(size int, reclaim bool) *Pool {
	return &Pool{max: max(size, 1), reclaim: reclaim, clients: map[string]map[*Ticket]struct{}{}}
}

// Ticket is a client's hold on one room of the pool.
type Ticket struct {
	pool   *Pool
	client string
	item   Item // guarded by pool.mu; nil until Hold: not reclaimable
	done   bool // guarded by pool.mu
}

// Max is the pool's size.
func (p *Pool) Max() int { return p.max }

// Reclaimed counts the items reclaimed for clients below their share.
func (p *Pool) Reclaimed() int64 { return p.reclaimed.Load() }

// Held is the count of rooms held.
func (p *Pool) Held() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.total
}

// HeldBy is the count of rooms client holds.
func (p *Pool) HeldBy(client string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.clients[client])
}

// Acquire takes a room for client: at once while the pool has one; when
// it is full and client holds less than its fair share, after
// reclaiming an idle item of the client that holds the most. Otherwise
// it returns a *Refusal.
//
// The room a reclaim frees is the asker's from the start: its ticket is
// counted before the reclaim (the pool one over its size meanwhile), so
// that no other client can take it in between.
func (p *Pool) Acquire(client string) (*Ticket, error) {
	t, victims, ref := p.take(client)
	switch {
	case t == nil:
		return nil, ref
	case victims == nil:
		return t, nil
	case p.reclaimOne(victims):
		return t, nil
	}
	t.Release()
	ref.NoIdle = true
	return nil, ref
}

// take takes a room when one is free; when the pool is full and client
// may reclaim one, it takes one over the size and returns the items that
// may be reclaimed for it, most deserving first; otherwise the refusal.
func (p *Pool) take(client string) (*Ticket, []Item, *Refusal) {
	p.mu.Lock()
	defer p.mu.Unlock()
	t := &Ticket{pool: p, client: client}
	if p.total < p.max {
		p.add(t)
		return t, nil, nil
	}
	held := len(p.clients[client])
	n := len(p.clients)
	if held == 0 {
		n++
	}
	ref := &Refusal{Max: p.max, Held: held, Clients: n}
	if held*n >= p.max {
		ref.OverShare = true
		return nil, nil, ref
	}
	if !p.reclaim {
		return nil, nil, ref
	}
	victims := p.victims(held)
	if len(victims) == 0 {
		ref.Even = true
		return nil, nil, ref
	}
	p.add(t)
	return t, victims, ref
}

// victims are the items of the clients holding at least two more than
// held (so that a reclaim never makes the victim poorer than the asker),
// the largest holder's first, each client's least recently used first.
func (p *Pool) victims(held int) []Item {
	type holder struct {
		n     int
		items []Item
	}
	var hs []holder
	for _, set := range p.clients {
		if len(set) < held+2 {
			continue
		}
		h := holder{n: len(set)}
		for t := range set {
			if t.item != nil {
				h.items = append(h.items, t.item)
			}
		}
		hs = append(hs, h)
	}
	slices.SortFunc(hs, func(a, b holder) int { return cmp.Compare(b.n, a.n) })
	var out []Item
	for _, h := range hs {
		slices.SortFunc(h.items, func(a, b Item) int { return a.LastUsed().Compare(b.LastUsed()) })
		out = append(out, h.items...)
	}
	return out
}

// reclaimOne ends the first idle item of victims, and reports whether
// one was.
func (p *Pool) reclaimOne(victims []Item) bool {
	for _, it := range victims {
		if it.Reclaim() {
			p.reclaimed.Add(1)
			return true
		}
	}
	return false
}

func (p *Pool) add(t *Ticket) {
	set := p.clients[t.client]
	if set == nil {
		set = map[*Ticket]struct{}{}
		p.clients[t.client] = set
	}
	set[t] = struct{}{}
	p.total++
}

// Hold makes it the item the ticket holds room for: from now on it may
// be reclaimed.
func (t *Ticket) Hold(it Item) {
	t.pool.mu.Lock()
	defer t.pool.mu.Unlock()
	t.item = it
}

// Client is the client holding the ticket.
func (t *Ticket) Client() string { return t.client }

// Release gives the room back; releasing again does nothing.
func (t *Ticket) Release() {
	p := t.pool
	p.mu.Lock()
	defer p.mu.Unlock()
	if t.done {
		return
	}
	t.done = true
	set := p.clients[t.client]
	delete(set, t)
	if len(set) == 0 {
		delete(p.clients, t.client)
	}
	p.total--
}
