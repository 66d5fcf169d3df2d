package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sandbox"
)

var _ env.RowStreamer = (*db)(nil)

// QueryEach runs one read-only statement of the model's kind (the same
// checks as Query's) within lim's Timeout and MaxCellBytes, and hands
// its rows to each, one at a time, keeping none: the engine's result
// ceilings do not apply. Rows are asked for in batches, and no more once
// each returns false.
func (d *db) QueryEach(ctx context.Context, text string, lim env.Limits, each func(row []any) bool) error {
	rules := sandbox.Rules{Allowed: leadingKeywords, MaxBytes: d.eng.cfg.MaxSQLBytes}
	stmt, err := rules.Statement(text)
	if err != nil {
		return err
	}
	if err := checkFunctions(stmt, func(name string) bool { return d.ownName(ctx, name) }); err != nil {
		return err
	}
	eff := d.limits(lim)
	err = d.call(ctx, eff.Timeout, func(c *conn) error {
		_, err := c.execute(stmt, nil, eachSink{maxCell: eff.MaxCellBytes, each: each}, fetchBatch)
		return err
	})
	var qe *env.QueryError
	if errors.As(err, &qe) {
		return qe
	}
	if err != nil {
		return fmt.Errorf("postgres schema %q on %s: %w", d.schema, d.srv.name, err)
	}
	return nil
}

// eachSink hands rows to each, text cut to maxCell bytes (0: whole).
type eachSink struct {
	maxCell int
	each    func([]any) bool
}

func (s eachSink) Add(values []any) (bool, error) {
	for i, v := range values {
		if t, ok := v.(string); ok {
			values[i], _ = sandbox.CutText(t, s.maxCell, false)
		}
	}
	return s.each(values), nil
}
