package dbimport

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/sqlgym/sqlgym/env"
)

// storageClasses are SQLite's, in the order classify counts them.
var storageClasses = []string{"null", "integer", "real", "text", "blob"}

// classify counts the storage classes of every column of t in one scan,
// chooses each column's PostgreSQL type, and returns the table's row count.
func (c *copier) classify(t *env.Table) (*TableCopy, int64, error) {
	tc, total, _, err := scanClasses(c.ctx, c.src, t, c.cfg.ReadTimeout, pgName)
	return tc, total, err
}

// scanClasses counts the storage classes of every column of t in one
// scan, and the longest value of each as text (in characters); each
// column gets its class type (ColumnType) and the name name gives it. It
// returns the table's row count. Both targets copy through it.
func scanClasses(ctx context.Context, src env.DB, t *env.Table, timeout time.Duration, name func(string) string) (*TableCopy, int64, []int64, error) {
	per := len(storageClasses) + 1
	var b strings.Builder
	b.WriteString("SELECT count(*)")
	for _, col := range t.Columns {
		q := quoteSQLite(col.Name)
		for _, class := range storageClasses {
			fmt.Fprintf(&b, ", coalesce(sum(typeof(%s) = '%s'), 0)", q, class)
		}
		fmt.Fprintf(&b, ", coalesce(max(length(CAST(%s AS TEXT))), 0)", q)
	}
	b.WriteString(" FROM " + quoteSQLite(t.Name))
	rs, err := src.Query(ctx, b.String(), env.Limits{Timeout: timeout, MaxRows: 1})
	if err != nil {
		return nil, 0, nil, fmt.Errorf("count storage classes: %w", err)
	}
	if len(rs.Rows) != 1 {
		return nil, 0, nil, fmt.Errorf("count storage classes: %d rows", len(rs.Rows))
	}
	row := rs.Rows[0]
	total, _ := row[0].(int64)
	tc := &TableCopy{Name: name(t.Name), Source: t.Name}
	maxLen := make([]int64, len(t.Columns))
	for i, col := range t.Columns {
		var cl Classes
		for j, class := range storageClasses {
			n, _ := row[1+i*per+j].(int64)
			if err := cl.add(class, n); err != nil {
				return nil, 0, nil, err
			}
		}
		maxLen[i], _ = row[1+i*per+len(storageClasses)].(int64)
		typ, n, how := ColumnType(col.Type, cl)
		cc := ColumnCopy{Name: name(col.Name), Declared: col.Type, Type: typ, Classes: cl, Coerced: n}
		if n > 0 {
			cc.How = how
		}
		tc.Columns = append(tc.Columns, cc)
	}
	return tc, total, maxLen, nil
}
