package dbimport

import (
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym/env"
)

// storageClasses are SQLite's, in the order classify counts them.
var storageClasses = []string{"null", "integer", "real", "text", "blob"}

// classify counts the storage classes of every column of t in one scan,
// chooses each column's PostgreSQL type, and returns the table's row count.
func (c *copier) classify(t *env.Table) (*TableCopy, int64, error) {
	var b strings.Builder
	b.WriteString("SELECT count(*)")
	for _, col := range t.Columns {
		for _, class := range storageClasses {
			fmt.Fprintf(&b, ", coalesce(sum(typeof(%s) = '%s'), 0)", quoteSQLite(col.Name), class)
		}
	}
	b.WriteString(" FROM " + quoteSQLite(t.Name))
	rs, err := c.src.Query(c.ctx, b.String(), env.Limits{Timeout: c.cfg.ReadTimeout, MaxRows: 1})
	if err != nil {
		return nil, 0, fmt.Errorf("count storage classes: %w", err)
	}
	if len(rs.Rows) != 1 {
		return nil, 0, fmt.Errorf("count storage classes: %d rows", len(rs.Rows))
	}
	row := rs.Rows[0]
	total, _ := row[0].(int64)
	tc := &TableCopy{Name: pgName(t.Name), Source: t.Name}
	for i, col := range t.Columns {
		var cl Classes
		for j, class := range storageClasses {
			n, _ := row[1+i*len(storageClasses)+j].(int64)
			if err := cl.add(class, n); err != nil {
				return nil, 0, err
			}
		}
		typ, n, how := ColumnType(col.Type, cl)
		cc := ColumnCopy{Name: pgName(col.Name), Declared: col.Type, Type: typ, Classes: cl, Coerced: n}
		if n > 0 {
			cc.How = how
		}
		tc.Columns = append(tc.Columns, cc)
	}
	return tc, total, nil
}
