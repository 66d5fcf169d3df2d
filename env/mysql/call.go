package mysql

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"time"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sandbox"
)

// drainRows is how many rows past a result's bound a call reads and
// drops to finish the result and keep its connection; a result with more
// is stopped on the server (KILL QUERY) and its connection closed.
const drainRows = 1024

// conn is a pooled connection inside one call's transaction.
type conn struct {
	ctx     context.Context // the statement's
	cancel  context.CancelFunc
	prefix  string // written before each statement: MariaDB's time limit
	tx      *sql.Tx
	stopped bool // the statement was stopped before its rows ended
}

// stop ends the statement before its rows end: its context is cancelled,
// so the driver closes the connection instead of reading the rest, and
// the call kills the statement on the server.
func (c *conn) stop() {
	c.stopped = true
	c.cancel()
}

// budget is one call's time: the caller's context (parent), the
// statement's (stmt), and how much of the timeout went to waiting.
type budget struct {
	parent, stmt    context.Context
	timeout, waited time.Duration
}

// call runs f inside a READ ONLY transaction on a connection of the
// database's, within timeout from now: waiting for the server's admission
// (sandbox.Admission) and for a connection counts against it, and the
// rest is the server's time limit of the statement. The transaction is
// always rolled back. When the call's context ends or f stops a
// statement early, the statement is killed on the server and the
// connection closed instead of going back to the pool; so is a
// connection that would be kept idle while the server's databases hold
// more than MaxConns connections in all.
func (d *db) call(ctx context.Context, timeout time.Duration, f func(*conn) error) error {
	start := time.Now()
	waitCtx, cancelWait := context.WithTimeout(ctx, timeout)
	defer cancelWait()
	stmtCtx, cancel := context.WithTimeout(ctx, timeout+killGrace)
	defer cancel()
	b := budget{parent: ctx, stmt: waitCtx, timeout: timeout}
	holder := env.Holder(ctx)
	if err := d.srv.adm.Acquire(waitCtx, d.name, holder); err != nil {
		return waitFailed(b, err, sandbox.WhyWaited(err))
	}
	defer d.srv.adm.Release(d.name, holder)
	pooled, err := d.pool.Conn(waitCtx)
	if err != nil {
		return waitFailed(b, err, fmt.Sprintf(
			"all %d connections to the database stayed busy with other statements", d.eng.cfg.MaxDBConns))
	}
	b.waited = time.Since(start)
	key := driverConn(pooled)
	c := &conn{ctx: stmtCtx, cancel: cancel}
	id, err := d.begin(c, pooled, key, timeout-b.waited)
	if err != nil {
		d.discard(pooled, key)
		return classify(err, b)
	}
	ferr := f(c)
	if c.stopped || stmtCtx.Err() != nil {
		cancel() // the driver closes the connection
		d.discard(pooled, key)
		d.kill(ctx, id)
	} else if err := c.tx.Rollback(); err != nil {
		d.discard(pooled, key)
		if ferr == nil {
			return classify(fmt.Errorf("end transaction: %w", err), b)
		}
	} else if d.eng.openOn(d.srv) > d.eng.cfg.MaxConns {
		d.discard(pooled, key) // kept idle, it would hold the server past its bound
	} else {
		pooled.Close()
	}
	if ferr != nil {
		return classify(ferr, b)
	}
	return nil
}

// begin opens the call's transaction, READ ONLY, on pooled (whose
// driver connection is key), with the server's time limit of its
// statements set to left: on MariaDB by a prefix of each statement (SET
// STATEMENT max_statement_time = ... FOR), on MySQL by a SET before. It
// returns the connection's id on the server, which a KILL QUERY names.
func (d *db) begin(c *conn, pooled *sql.Conn, key any, left time.Duration) (int64, error) {
	if d.srv.maria {
		c.prefix = "SET STATEMENT " + timeLimit(true, left) + " FOR "
	} else if _, err := pooled.ExecContext(c.ctx, "SET "+timeLimit(false, left)); err != nil {
		return 0, err
	}
	tx, err := pooled.BeginTx(c.ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return 0, err
	}
	c.tx = tx
	id, err := d.connID(c, key)
	if err != nil {
		tx.Rollback()
	}
	return id, err
}

// connID is the server's id of the driver connection key, read once per
// connection (SELECT CONNECTION_ID()) and then kept. The ids kept are
// bounded: past four times the pool's connections (those the pool
// closed by itself are not forgotten one by one) they are read afresh.
func (d *db) connID(c *conn, key any) (int64, error) {
	d.idsMu.Lock()
	id, ok := d.ids[key]
	d.idsMu.Unlock()
	if ok {
		return id, nil
	}
	if err := c.tx.QueryRowContext(c.ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		return 0, err
	}
	d.idsMu.Lock()
	if len(d.ids) >= 4*d.eng.cfg.MaxDBConns {
		clear(d.ids)
	}
	d.ids[key] = id
	d.idsMu.Unlock()
	return id, nil
}

// driverConn is the driver's connection under pooled.
func driverConn(pooled *sql.Conn) any {
	var key any
	pooled.Raw(func(dc any) error {
		key = dc
		return nil
	})
	return key
}

// kill stops connection id's statement on the server, from another
// connection of the same account (which may kill its own sessions'
// statements without any privilege). A statement that ended already
// makes it a no-op.
func (d *db) kill(ctx context.Context, id int64) {
	killCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), killGrace)
	defer cancel()
	d.pool.ExecContext(killCtx, fmt.Sprintf("KILL QUERY %d", id))
}

// discard closes pooled (whose driver connection is key) for good
// instead of giving it back to the pool.
func (d *db) discard(pooled *sql.Conn, key any) {
	d.idsMu.Lock()
	delete(d.ids, key)
	d.idsMu.Unlock()
	pooled.Raw(func(any) error { return driver.ErrBadConn })
	pooled.Close()
}

// timedOut is the error of a statement stopped by its timeout.
func timedOut(b budget) error { return sandbox.TimedOut(b.timeout, b.waited) }

// waitFailed is the error of a call that got no slot or connection
// (sandbox.WaitFailed).
func waitFailed(b budget, err error, why string) error {
	return sandbox.WaitFailed(b.parent, b.stmt, b.timeout, err, why)
}
