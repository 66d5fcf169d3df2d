package sqlite

import (
	"context"
	"database/sql"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sandbox"
)

// pools is what an engine's databases share: the admission of the
// statements it runs at once, and the statistics of their connection
// pools.
type pools struct {
	adm *sandbox.Admission // MaxRunning in all, MaxConns per database

	slotWaits    atomic.Int64 // statements that waited for a slot
	slotWaitTime atomic.Int64 // their waits added up, in nanoseconds
	prepared     atomic.Int64 // statements prepared
	reused       atomic.Int64 // statements run again from a connection's cache

	mu     sync.Mutex           // guards open and closed
	open   map[*sql.DB]struct{} // the pools of the databases not yet closed
	closed env.PoolStats        // the waits of the databases since closed
}

// sqliteSayings name the admission's bounds in a waiting statement's
// error.
var sqliteSayings = sandbox.Sayings{
	Server: "the server was running %d statements at once, its limit",
	DB:     "all %d connections to this database stayed busy with other statements",
}

// newPools returns the pools of an engine configured by cfg: at most
// cfg.MaxRunning statements at once, cfg.MaxConns on one database, with
// a quarter of each kept for other databases' and other holders' first
// statements (sandbox.Admission).
func newPools(cfg Config) *pools {
	adm := sandbox.NewAdmission(sandbox.Shares{Max: cfg.MaxRunning, Reserve: cfg.MaxRunning / 4,
		PerDB: cfg.MaxConns, HolderReserve: sandbox.QuarterOf(cfg.MaxConns)}, sqliteSayings)
	return &pools{adm: adm, open: map[*sql.DB]struct{}{}}
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

// acquire admits a statement of holder on the database at path,
// waiting while the engine or the database runs all it may, until ctx
// ends; then the error is a *sandbox.WaitError. A nil error must be
// followed by release with the same path and holder.
func (p *pools) acquire(ctx context.Context, path, holder string) error {
	if p.adm.TryAcquire(path, holder) {
		return nil
	}
	start := time.Now()
	p.slotWaits.Add(1)
	defer func() { p.slotWaitTime.Add(int64(time.Since(start))) }()
	return p.adm.Acquire(ctx, path, holder)
}

// release ends a statement admitted by acquire.
func (p *pools) release(path, holder string) { p.adm.Release(path, holder) }
