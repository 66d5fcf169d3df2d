package sqlite

import (
	"database/sql/driver"
	"errors"
	"io"

	"github.com/mattn/go-sqlite3"

	"github.com/sqlgym/sqlgym/env"
	"github.com/sqlgym/sqlgym/env/sandbox"
)

// readRows reads the rows of a statement into a sandbox.Collector, which
// keeps them within lim and the engine's ceilings.
func readRows(rows *sqlite3.SQLiteRows, lim limits) (*env.ResultSet, error) {
	c := sandbox.NewCollector(append([]string(nil), rows.Columns()...), lim.Limits, lim.ceil)
	dest := make([]driver.Value, len(rows.Columns()))
	values := make([]any, len(dest))
	for {
		if err := rows.Next(dest); err != nil {
			if errors.Is(err, io.EOF) {
				return c.Result(), nil
			}
			return nil, err
		}
		for i, v := range dest {
			values[i] = v
		}
		more, err := c.Add(values)
		if err != nil {
			return nil, err
		}
		if !more {
			return c.Result(), nil
		}
	}
}
