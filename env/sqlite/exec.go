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
	stmt *sqlite3.SQLiteStmt
	rows *sqlite3.SQLiteRows
}

func (c *cursor) close() {
	c.rows.Close()
	c.stmt.Close()
}

// run prepares stmt on conn, whose authorizer is already set, checks that
// it is read-only and reads its rows within lim. ctx bounds the run: its
// end interrupts the statement, reading included.
func run(ctx context.Context, conn *sqlite3.SQLiteConn, stmt string, lim limits) (*env.ResultSet, error) {
	cur, err := openCursor(ctx, conn, stmt)
	if err != nil {
		return nil, err
	}
	if needsRawWrap(cur.rows.DeclTypes()) {
		cols := append([]string(nil), cur.rows.Columns()...)
		cur.close()
		if cur, err = openCursor(ctx, conn, rawWrap(stmt, cols)); err != nil {
			return nil, err
		}
	}
	defer cur.close()
	return readRows(cur.rows, lim)
}

// openCursor prepares stmt and takes its first step. A statement SQLite
// does not call read-only is refused before it runs.
func openCursor(ctx context.Context, conn *sqlite3.SQLiteConn, stmt string) (*cursor, error) {
	ds, err := conn.Prepare(stmt)
	if err != nil {
		return nil, err
	}
	st, ok := ds.(*sqlite3.SQLiteStmt)
	if !ok {
		ds.Close()
		return nil, fmt.Errorf("prepare: unexpected statement type %T", ds)
	}
	if !st.Readonly() {
		st.Close()
		return nil, env.NewQueryError(env.ErrDenied,
			"statement denied: it would change the database, which is read-only; only queries may run")
	}
	if n := st.NumInput(); n > 0 {
		st.Close()
		return nil, env.NewQueryError(env.ErrSQL,
			fmt.Sprintf("the statement has %d parameter(s) but none can be supplied; write the values into the SQL", n))
	}
	dr, err := st.QueryContext(ctx, nil)
	if err != nil {
		st.Close()
		return nil, err
	}
	rows, ok := dr.(*sqlite3.SQLiteRows)
	if !ok {
		dr.Close()
		st.Close()
		return nil, fmt.Errorf("query: unexpected rows type %T", dr)
	}
	return &cursor{stmt: st, rows: rows}, nil
}
