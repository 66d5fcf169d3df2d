package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sandbox"
)

// limits are the bounds of one statement: the caller's, with the zero
// Timeout replaced, and the engine's ceilings.
type limits struct {
	env.Limits
	ceil sandbox.Ceilings
}

// conn is a pooled connection inside one call's transaction.
type conn struct {
	ctx context.Context // the statement's: it ends at the call's deadline
	pc  *pgconn.PgConn
}

// budget is one call's time: the caller's context (parent), the
// statement's (stmt), and how much of the timeout went to waiting.
type budget struct {
	parent, stmt    context.Context
	timeout, waited time.Duration
	memLimit        int64 // the engine's MaxStatementMemory, for the error past it
}

// call runs f inside a READ ONLY transaction on a connection of the
// schema's, within timeout from now: waiting for the server's admission
// (sandbox.Admission) and a connection counts against it, and the rest is
// the transaction's statement_timeout. The transaction is always rolled
// back and the session reset; a connection left in any doubt (a context
// that ended, a protocol error) is closed instead of going back to the
// pool.
func (d *db) call(ctx context.Context, timeout time.Duration, f func(*conn) error) error {
	return d.callAs(ctx, d.role, timeout, f)
}

// callAs is call as role (an identifier), or as the login role when role
// is "": only the engine's own check of a schema runs so.
func (d *db) callAs(ctx context.Context, role string, timeout time.Duration, f func(*conn) error) error {
	start := time.Now()
	memCtx, memCancel := context.WithCancelCause(ctx)
	defer memCancel(nil)
	stmtCtx, cancel := context.WithTimeout(memCtx, timeout)
	defer cancel()
	b := budget{parent: ctx, stmt: stmtCtx, timeout: timeout, memLimit: d.eng.cfg.MaxStatementMemory}
	holder := env.Holder(ctx)
	if err := d.srv.adm.Acquire(stmtCtx, d.schema, holder); err != nil {
		return waitFailed(b, err, sandbox.WhyWaited(err))
	}
	defer d.srv.adm.Release(d.schema, holder)
	pooled, err := d.srv.pool.Acquire(stmtCtx)
	if err != nil {
		return waitFailed(b, err, fmt.Sprintf(
			"all %d connections to the server stayed busy with other statements", d.eng.cfg.MaxConns))
	}
	b.waited = time.Since(start)
	c := &conn{ctx: stmtCtx, pc: pooled.Conn().PgConn()}
	clean := false
	defer func() { d.put(ctx, pooled, clean) }()
	if err := c.begin(d, role, timeout-b.waited); err != nil {
		return classify(err, b)
	}
	stopWatch := d.eng.watchMemory(c.pc, memCancel)
	ferr := f(c)
	stopWatch()
	eerr := errors.New("the call's time ran out")
	if stmtCtx.Err() == nil && !c.pc.IsBusy() {
		eerr = c.end()
		clean = eerr == nil
	}
	if ferr != nil {
		return classify(ferr, b)
	}
	if !clean {
		return classify(fmt.Errorf("end transaction: %w", eerr), b)
	}
	return nil
}

// put returns a connection to the pool when its call ended cleanly, and
// closes it otherwise (the server then ends its session, and with it
// whatever transaction was open).
func (d *db) put(ctx context.Context, pooled *pgxpool.Conn, clean bool) {
	if !clean {
		closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), cancelGrace)
		pooled.Conn().Close(closeCtx)
		cancel()
	}
	pooled.Release()
}

// begin opens the call's transaction: read-only, as role (the schema's
// role, SchemaRole, but for the engine's own check), with a local statement timeout of what is left of the
// call's time and the schema first on the search path, before the
// catalog, so that a served table named like a catalog relation
// (pg_class) is the one a statement reads.
func (c *conn) begin(d *db, role string, left time.Duration) error {
	ms := max(left.Milliseconds(), 1)
	setRole := ""
	if role != "" {
		setRole = " SET LOCAL ROLE " + role + ";"
	}
	q := fmt.Sprintf("BEGIN READ ONLY;%s SET LOCAL statement_timeout = %d; "+
		"SET LOCAL idle_in_transaction_session_timeout = %d; SET LOCAL search_path = %s",
		setRole, ms, ms+cancelGrace.Milliseconds(), d.quoted)
	_, err := c.pc.Exec(c.ctx, q).ReadAll()
	return err
}

// end rolls the transaction back and resets the session (settings,
// advisory locks, prepared statements, cursors), so that nothing of the
// call outlives it.
func (c *conn) end() error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(c.ctx), cancelGrace)
	defer cancel()
	if _, err := c.pc.Exec(ctx, "ROLLBACK").ReadAll(); err != nil {
		return err
	}
	// Alone: in a query of several statements, DISCARD ALL would be in a
	// transaction block, where it may not run.
	_, err := c.pc.Exec(ctx, "DISCARD ALL").ReadAll()
	return err
}
