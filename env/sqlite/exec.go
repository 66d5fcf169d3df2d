package sqlite

import (
	"context"
	"fmt"

	"github.com/mattn/go-sqlite3"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sandbox"
)

// limits are the bounds of one statement: the caller's, with the zero
// Timeout replaced, and the engine's ceilings for what the caller left
// unlimited.
type limits struct {
	env.Limits
	ceil sandbox.Ceilings // past these, a result fails with env.ErrTooLarge
}

// cursor is a prepared statement that has taken its first step.
type cursor struct {
	conn *conn
	st   *cached
	rows *sqlite3.SQLiteRows
}

// close ends the cursor's run. The statement of a run that went well is
// kept prepared on its connection when the cache takes it; any other is
// finalized.
func (c *cursor) close(ok bool) {
	if err := c.rows.Close(); err == nil && ok && c.conn.stmts.keeps(c.st.text) {
		c.conn.stmts.put(c.st)
		return
	}
	c.st.stmt.Close()
}

// run prepares stmt on conn, whose authorizer is g, checks that it is
// read-only and reads its rows within lim. ctx bounds the run: its end
// interrupts the statement, reading included.
func run(ctx context.Context, conn *conn, g *guard, stmt string, lim limits) (*env.ResultSet, error) {
	cur, err := openRead(ctx, conn, g, stmt)
	if err != nil {
		return nil, err
	}
	rs, err := readRows(cur.rows, lim)
	cur.close(err == nil)
	return rs, err
}

// openRead opens a cursor on stmt whose values come back as stored: a
// statement with a result column the driver would convert (rawvalues.go)
// is opened again, wrapped.
func openRead(ctx context.Context, conn *conn, g *guard, stmt string) (cursor, error) {
	cur, err := openCursor(ctx, conn, g, stmt)
	if err != nil || !needsRawWrap(cur.rows.DeclTypes()) {
		return cur, err
	}
	cols := append([]string(nil), cur.rows.Columns()...)
	cur.close(true)
	return openCursor(ctx, conn, g, rawWrap(stmt, cols))
}

// openCursor takes the statement kept prepared for text on conn, or
// prepares it, and takes its first step. A statement SQLite does not call
// read-only is refused before it runs.
func openCursor(ctx context.Context, conn *conn, g *guard, text string) (cursor, error) {
	st := conn.stmts.take(text)
	if st != nil {
		conn.pools.reused.Add(1)
		g.replay(st.reads, st.tables)
	} else {
		var err error
		conn.pools.prepared.Add(1)
		if st, err = prepare(conn, g, text); err != nil {
			return cursor{}, err
		}
	}
	dr, err := st.stmt.QueryContext(ctx, nil)
	if err != nil {
		st.stmt.Close()
		return cursor{}, err
	}
	rows, ok := dr.(*sqlite3.SQLiteRows)
	if !ok {
		dr.Close()
		st.stmt.Close()
		return cursor{}, fmt.Errorf("query: unexpected rows type %T", dr)
	}
	return cursor{conn: conn, st: st, rows: rows}, nil
}

// prepare prepares text under g and checks it. The reads the authorizer
// reports are captured with the statement, for when the cache hands it
// out again without SQLite authorizing it anew.
func prepare(conn *conn, g *guard, text string) (*cached, error) {
	keep := conn.stmts.keeps(text)
	if keep {
		g.capture()
	}
	ds, err := conn.Prepare(text)
	st := &cached{text: text}
	if keep {
		st.reads, st.tables = g.captured()
	}
	if err != nil {
		return nil, err
	}
	s, ok := ds.(*sqlite3.SQLiteStmt)
	if !ok {
		ds.Close()
		return nil, fmt.Errorf("prepare: unexpected statement type %T", ds)
	}
	if !s.Readonly() {
		s.Close()
		return nil, env.NewQueryError(env.ErrDenied,
			"statement denied: it would change the database, which is read-only; only queries may run")
	}
	if n := s.NumInput(); n > 0 {
		s.Close()
		return nil, env.NewQueryError(env.ErrSQL,
			fmt.Sprintf("the statement has %d parameter(s) but none can be supplied; write the values into the SQL", n))
	}
	st.stmt = s
	return st, nil
}
