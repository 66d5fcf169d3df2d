package mysql

import (
	"database/sql"
	"fmt"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sandbox"
)

// run runs q (with args, for the engine's own queries) and keeps its
// rows within lim.
func (c *conn) run(q string, lim limits, args ...any) (*env.ResultSet, error) {
	var col *sandbox.Collector
	err := c.scan(q, args, func(names []string) { col = sandbox.NewCollector(names, lim.Limits, lim.ceil) },
		func(row []any) (bool, error) { return col.Add(row) })
	if err != nil {
		return nil, err
	}
	return col.Result(), nil
}

// scan runs q (with args) and hands its column names to start, then its
// rows, decoded, to add, until they end or add returns false. An error
// of add stops the statement; rows left when add returns
// false are drained or, past drainRows, the statement is stopped.
func (c *conn) scan(q string, args []any, start func(names []string), add func(row []any) (bool, error)) error {
	rows, err := c.tx.QueryContext(c.ctx, c.prefix+q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	types, err := rows.ColumnTypes()
	if err != nil {
		return err
	}
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = t.Name()
	}
	start(names)
	raw := make([]sql.RawBytes, len(types))
	dest := make([]any, len(types))
	for i := range raw {
		dest[i] = &raw[i]
	}
	more := true
	for more && rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			return err
		}
		row, err := decodeRow(raw, types)
		if err != nil {
			return err
		}
		if more, err = add(row); err != nil {
			c.stop()
			return err
		}
	}
	if !more {
		c.drain(rows)
		return nil
	}
	return rows.Err()
}

// drain reads and drops up to drainRows more rows, so that a result a
// little past its bound leaves the connection clean; past them, the
// statement is marked stopped, to be killed and its connection closed.
func (c *conn) drain(rows *sql.Rows) {
	for range drainRows {
		if !rows.Next() {
			if rows.Err() != nil {
				c.stop()
			}
			return
		}
	}
	c.stop()
}

// decodeRow turns one row of the text protocol into Go values
// (values.go); the values never alias raw, which the driver reuses.
func decodeRow(raw []sql.RawBytes, types []*sql.ColumnType) ([]any, error) {
	row := make([]any, len(raw))
	for i, b := range raw {
		if b == nil {
			continue
		}
		v, err := decodeValue(b, types[i].DatabaseTypeName())
		if err != nil {
			return nil, env.NewQueryError(env.ErrSQL, fmt.Sprintf("column %d: cannot read its value: %v", i+1, err))
		}
		row[i] = v
	}
	return row, nil
}
