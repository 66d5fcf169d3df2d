package sqlite

import (
	"container/list"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sandbox"
)

// db is one database file opened read-only. Its connection pool is
// open while it is among the engine's most recently used databases (see
// openSet): pool, elem, users and closed are guarded by the open set's
// lock; the other fields do not change after Open.
type db struct {
	path    string
	file    fileID
	cfg     Config
	pools   *pools   // the engine's, shared with its other databases
	open    *openSet // the engine's
	newPool func() *sql.DB

	pool   *sql.DB       // nil while closed
	elem   *list.Element // d's place in open.lru, nil while closed
	users  int           // calls running on pool
	closed bool          // Close was called
}

var (
	_ env.DB        = (*db)(nil)
	_ env.Immutable = (*db)(nil)
	_ env.Idler     = (*db)(nil)
)

// Immutable reports true: the file is opened immutable and refused when a
// write-ahead log beside it holds changes, so what is read of it stays
// true for as long as it is open.
func (d *db) Immutable() bool { return true }

// Idle closes the database's connections unless a call runs on it; the
// next call opens new ones (refusing a file changed since Open).
func (d *db) Idle() { d.open.idle(d) }

// Close closes every connection to the file; calls after it fail.
func (d *db) Close() error {
	pool := d.open.remove(d)
	if pool == nil {
		return nil
	}
	if err := d.pools.close(pool); err != nil {
		return fmt.Errorf("close sqlite %s: %w", d.path, err)
	}
	return nil
}

// Query runs one read-only statement of the model's within lim. A zero
// lim.Timeout means the engine's default timeout; zero MaxRows,
// MaxCellBytes and MaxResultBytes mean no limit short of the engine's
// ceilings. The timeout covers the wait for a connection too; the
// result's Elapsed is the statement's own time.
func (d *db) Query(ctx context.Context, text string, lim env.Limits) (*env.ResultSet, error) {
	stmt, err := singleStatement(text, d.cfg.MaxSQLBytes)
	if err != nil {
		return nil, err
	}
	eff := d.limits(lim)
	g := newGuard(lim.Reads)
	var rs *env.ResultSet
	var elapsed time.Duration
	err = d.withConn(ctx, eff.Timeout, g, func(stmtCtx context.Context, c *conn) error {
		start := time.Now()
		var err error
		rs, err = run(stmtCtx, c, g, stmt, eff)
		elapsed = time.Since(start)
		return err
	})
	if err != nil {
		var qe *env.QueryError
		if errors.As(err, &qe) {
			return nil, qe
		}
		return nil, fmt.Errorf("sqlite %s: %w", d.path, err)
	}
	rs.Elapsed = elapsed
	rs.ReadColumns, rs.ReadTables = g.readColumns(), g.readTables() // nil unless lim.Reads
	return rs, nil
}

// limits fills in the defaults and the engine's ceilings.
func (d *db) limits(lim env.Limits) limits {
	if lim.Timeout <= 0 {
		lim.Timeout = d.cfg.DefaultTimeout
	}
	return limits{Limits: lim, ceil: sandbox.Ceilings{Rows: d.cfg.MaxResultRows, Bytes: d.cfg.MaxResultBytes}}
}

// idleGuard is the guard of a connection no call holds: it records
// nothing and denies what every guard denies.
var idleGuard = newGuard(false)

// withConn runs f on a connection of its own, with g as the authorizer
// and a context that ends timeout after the call began: waiting for the
// engine's admission (pools.acquire), then for a connection, counts
// against it. The connection's driver handle is reached through Raw; an
// interrupted statement leaves the connection fit for the next call.
func (d *db) withConn(ctx context.Context, timeout time.Duration, g *guard,
	f func(context.Context, *conn) error) error {
	start := time.Now()
	stmtCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	b := budget{parent: ctx, stmt: stmtCtx, timeout: timeout}
	pool, err := d.open.use(d)
	if err != nil {
		return err // Open and Query name the file
	}
	defer d.open.done(d)
	holder := env.Holder(ctx)
	if err := d.pools.acquire(stmtCtx, d.path, holder); err != nil {
		return d.waitFailed(b, err, sandbox.WhyWaited(err))
	}
	defer d.pools.release(d.path, holder)
	pc, err := pool.Conn(stmtCtx)
	if err != nil {
		return d.waitFailed(b, err, fmt.Sprintf(
			"all %d connections to this database stayed busy with other statements", d.cfg.MaxConns))
	}
	defer pc.Close()
	b.waited = time.Since(start)
	err = pc.Raw(func(dc any) error {
		c, ok := dc.(*conn)
		if !ok {
			return fmt.Errorf("unexpected driver connection %T", dc)
		}
		c.guard = g
		defer func() { c.guard = idleGuard }()
		release := watchInterrupt(stmtCtx, c.SQLiteConn)
		defer release()
		c.deadline.set(remaining(stmtCtx))
		defer c.deadline.set(0)
		return f(stmtCtx, c)
	})
	if err != nil {
		return classify(err, g, b, d.cfg.MaxValueBytes)
	}
	return nil
}

// waitFailed is the error of a call that got no connection or no slot:
// a timeout saying why when its time ran out, else the caller's or the
// server's error.
func (d *db) waitFailed(b budget, err error, why string) error {
	if b.parent.Err() == nil && b.stmt.Err() != nil {
		return sandbox.TimedOutWaiting(b.timeout, why)
	}
	return err // Open and Query name the file
}

// remaining is the time left before ctx's deadline: negative once it has
// passed, 0 for a context without one.
func remaining(ctx context.Context) time.Duration {
	dl, ok := ctx.Deadline()
	if !ok {
		return 0
	}
	if left := time.Until(dl); left > 0 {
		return left
	}
	return -1
}
