package mysql

import (
	"context"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sandbox"
)

var _ env.RowStreamer = (*db)(nil)

// QueryEach runs one read-only statement of the model's kind (the same
// checks as Query's) within lim's Timeout and MaxCellBytes, and hands
// its rows to each, one at a time, keeping none: the engine's result
// ceilings do not apply. The driver reads the rows from the connection
// as each takes them; once each returns false, the rest are drained or,
// past drainRows, the statement is killed.
func (d *db) QueryEach(ctx context.Context, text string, lim env.Limits, each func(row []any) bool) error {
	stmt, err := d.check(ctx, text)
	if err != nil {
		return err
	}
	eff := d.limits(lim)
	err = d.call(ctx, eff.Timeout, func(c *conn) error {
		if err := c.clearWarnings(stmt); err != nil {
			return err
		}
		err := c.scan(stmt.text, nil, func([]string) {}, func(row []any) (bool, error) {
			for i, v := range row {
				if t, ok := v.(string); ok {
					row[i], _ = sandbox.CutText(t, eff.MaxCellBytes, false)
				}
			}
			return each(row), nil
		})
		if err != nil {
			return err
		}
		return c.checkRegexp(stmt)
	})
	if err != nil {
		return d.callError(err)
	}
	return nil
}
