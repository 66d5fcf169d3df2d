package sqlite

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlgym/sqlgym/env"
)

// pools is what an engine's databases share: the slots of the statements
// it runs at once, and the statistics of their connection pools.
type pools struct {
	slots chan struct{} // a token per running statement; cap Config.MaxRunning

	slotWaits    atomic.Int64 // statements that waited for a slot
	slotWaitTime atomic.Int64 // their waits added up, in nanoseconds
	prepared     atomic.Int64 // statements prepared
	reused       atomic.Int64 // statements run again from a connection's cache

	mu     sync.Mutex           // guards open and closed
	open   map[*sql.DB]struct{} // the pools of the databases not yet closed
	closed env.PoolStats        // the waits of the databases since closed
}

func newPools(maxRunning int) *pools {
	return &pools{slots: make(chan struct{}, maxRunning), open: map[*sql.DB]struct{}{}}
}

// add counts a database's pool in the statistics until it is closed.
func (p *pools) add(pool *sql.DB) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.open[pool] = struct{}{}
}

// close closes a database's pool, keeping its waits in the statistics.
func (p *pools) close(pool *sql.DB) error {
	p.mu.Lock()
	if _, ok := p.open[pool]; ok {
		st := pool.Stats()
		p.closed.Waits += st.WaitCount
		p.closed.WaitTime += st.WaitDuration
		delete(p.open, pool)
	}
	p.mu.Unlock()
	return pool.Close()
}

// stats sums the statistics of every pool, open or closed, and of the
// slots.
func (p *pools) stats() env.PoolStats {
	sum := env.PoolStats{Waits: p.slotWaits.Load(), WaitTime: time.Duration(p.slotWaitTime.Load()),
		Prepared: p.prepared.Load(), Reused: p.reused.Load()}
	p.mu.Lock()
	defer p.mu.Unlock()
	sum = sum.Add(p.closed)
	for pool := range p.open {
		st := pool.Stats()
		sum = sum.Add(env.PoolStats{Waits: st.WaitCount, WaitTime: st.WaitDuration,
			InUse: st.InUse, Open: st.OpenConnections})
	}
	return sum
}

// acquire takes a slot for a statement, waiting while every slot is
// taken, until ctx ends. A nil error must be followed by release.
func (p *pools) acquire(ctx context.Context) error {
	select {
	case p.slots <- struct{}{}:
		return nil
	default:
	}
	start := time.Now()
	p.slotWaits.Add(1)
	defer func() { p.slotWaitTime.Add(int64(time.Since(start))) }()
	select {
	case p.slots <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// release gives back a slot taken by acquire.
func (p *pools) release() { <-p.slots }
