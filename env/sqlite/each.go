package sqlite

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"

	"github.com/mattn/go-sqlite3"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sandbox"
)

var _ env.RowStreamer = (*db)(nil)

// QueryEach runs one read-only statement within lim's Timeout and
// MaxCellBytes and hands its rows to each, one at a time, keeping none:
// the engine's result ceilings do not apply. The connection and its
// running slot are held until the rows end or each returns false.
func (d *db) QueryEach(ctx context.Context, text string, lim env.Limits, each func(row []any) bool) error {
	stmt, err := singleStatement(text, d.cfg.MaxSQLBytes)
	if err != nil {
		return err
	}
	eff := d.limits(lim)
	g := newGuard(false)
	err = d.withConn(ctx, eff.Timeout, g, func(stmtCtx context.Context, c *conn) error {
		cur, err := openRead(stmtCtx, c, g, stmt)
		if err != nil {
			return err
		}
		err = eachRow(cur.rows, eff.MaxCellBytes, each)
		cur.close(err == nil)
		return err
	})
	if err != nil {
		var qe *env.QueryError
		if errors.As(err, &qe) {
			return qe
		}
		return fmt.Errorf("sqlite %s: %w", d.path, err)
	}
	return nil
}

// eachRow hands the rows to each, text cut to maxCell bytes (0: whole),
// until each returns false or the rows end.
func eachRow(rows *sqlite3.SQLiteRows, maxCell int, each func([]any) bool) error {
	dest := make([]driver.Value, len(rows.Columns()))
	row := make([]any, len(dest))
	for {
		if err := rows.Next(dest); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		for i, v := range dest {
			if s, ok := v.(string); ok {
				v, _ = sandbox.CutText(s, maxCell, false)
			}
			row[i] = v
		}
		if !each(row) {
			return nil
		}
	}
}
