package mysql

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/sqlgym/sqlgym/env"
)

var _ env.RowSpanner = (*db)(nil)

// RowSpan returns the span of table's primary key when it is one integer
// column: InnoDB (and Aria, MyISAM by their index) keeps a table's rows
// in the order of that key, so a range of keys is read by an index range
// scan, without the rest of the table. Lo and Hi come from the least and
// greatest key (each read from the end of the index), PerPosition from
// how densely the table's first rows use the keys. A table without such
// a key has no position MySQL lets a statement name (InnoDB's hidden row
// id is not one): it gets an empty Position, and is sampled by its first
// rows.
func (d *db) RowSpan(ctx context.Context, table string) (env.Span, error) {
	t, err := d.Describe(ctx, table, 0)
	if err != nil {
		return env.Span{}, err
	}
	key := integerKey(t)
	if key == "" {
		return env.Span{Rows: -1}, nil
	}
	k, tq := QuoteIdent(key), QuoteIdent(t.Name)
	q := fmt.Sprintf("SELECT (SELECT MIN(%[1]s) FROM %[2]s), (SELECT MAX(%[1]s) FROM %[2]s)", k, tq)
	rs, err := d.introspect(ctx, q, env.Limits{})
	if err != nil {
		return env.Span{}, fmt.Errorf("row span %s: %w", t.Name, err)
	}
	lo, okLo := rs.Rows[0][0].(int64)
	hi, okHi := rs.Rows[0][1].(int64)
	switch {
	case !okLo && rs.Rows[0][0] != nil, !okHi && rs.Rows[0][1] != nil:
		// An UNSIGNED BIGINT key past int64's range: its keys are not
		// positions a Range of int64 bounds can name.
		return env.Span{Rows: -1}, nil
	case !okLo || !okHi: // no rows
		lo, hi = 0, -1
	case hi == math.MaxInt64:
		hi-- // Hi would overflow; a row at the greatest key is left out of the span
	}
	rk := strings.ReplaceAll(k, "%", "%%")
	span := env.Span{Position: k, Range: rk + " >= %d AND " + rk + " < %d", Lo: lo, Hi: hi + 1, Unit: "key", Rows: -1, PerPosition: 1}
	q = fmt.Sprintf("SELECT COUNT(*) / (MAX(r) - %[3]d + 1) FROM (SELECT %[1]s AS r FROM %[2]s WHERE %[1]s >= %[3]d ORDER BY %[1]s LIMIT %[4]d) AS first_rows",
		k, tq, lo, densityProbe)
	if rs, err = d.introspect(ctx, q, env.Limits{}); err != nil {
		return env.Span{}, fmt.Errorf("row span %s: %w", t.Name, err)
	}
	switch density := rs.Rows[0][0].(type) { // NULL: no rows
	case float64:
		span.PerPosition = density
	case int64:
		span.PerPosition = float64(density)
	}
	return span, nil
}

// densityProbe is how many of a table's first rows RowSpan reads to
// tell how densely its keys are used.
const densityProbe = 1000

// integerKey is the name of t's primary key when it is one column of an
// integer type, or "".
func integerKey(t *env.Table) string {
	if len(t.PrimaryKey) != 1 {
		return ""
	}
	for _, c := range t.Columns {
		if c.Name != t.PrimaryKey[0] {
			continue
		}
		typ := strings.ToLower(c.Type)
		for _, p := range []string{"tinyint", "smallint", "mediumint", "int", "bigint"} {
			if strings.HasPrefix(typ, p) {
				return c.Name
			}
		}
	}
	return ""
}
