package sqlite

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/sqlgym/sqlgym/env"
)

var _ env.RowSpanner = (*db)(nil)

// rowidNames are the names SQLite reads as a table's rowid, unless a
// column of the table takes the name.
var rowidNames = []string{"rowid", "_rowid_", "oid"}

// RowSpan returns the span of table's rowids: its least and greatest
// rowid, each read from the table's b-tree in a few page reads. A
// WITHOUT ROWID table, or one whose columns take all three of the
// rowid's names, has none.
func (d *db) RowSpan(ctx context.Context, table string) (env.Span, error) {
	t, err := d.Describe(ctx, table, 0)
	if err != nil {
		return env.Span{}, err
	}
	rs, err := d.introspect(ctx, fmt.Sprintf("SELECT wr FROM pragma_table_list WHERE schema = 'main' AND name = %s", quoteString(t.Name)), env.Limits{})
	if err != nil {
		return env.Span{}, fmt.Errorf("row span %s: %w", t.Name, err)
	}
	name := rowidName(t.Columns)
	if len(rs.Rows) == 0 || rs.Rows[0][0] != int64(0) || name == "" {
		return env.Span{Rows: -1}, nil
	}
	q := fmt.Sprintf("SELECT (SELECT min(%[1]s) FROM %[2]s), (SELECT max(%[1]s) FROM %[2]s)", name, quoteIdent(t.Name))
	if rs, err = d.introspect(ctx, q, env.Limits{}); err != nil {
		return env.Span{}, fmt.Errorf("row span %s: %w", t.Name, err)
	}
	lo, okLo := rs.Rows[0][0].(int64)
	hi, okHi := rs.Rows[0][1].(int64)
	switch {
	case !okLo || !okHi: // no rows
		lo, hi = 0, -1
	case hi == math.MaxInt64:
		hi-- // Hi would overflow; a row at the greatest rowid is left out of the span
	}
	span := env.Span{Position: name, Range: name + " >= %d AND " + name + " < %d", Lo: lo, Hi: hi + 1, Unit: "rowid", Rows: -1, PerPosition: 1}
	// How densely rowids are used, from the first rows: a table keyed by
	// sparse numbers holds fewer rows than rowids.
	q = fmt.Sprintf("SELECT count(*), max(r) FROM (SELECT %[1]s AS r FROM %[2]s WHERE %[1]s >= %[3]d ORDER BY %[1]s LIMIT %[4]d)",
		name, quoteIdent(t.Name), lo, densityProbe)
	if rs, err = d.introspect(ctx, q, env.Limits{}); err != nil {
		return env.Span{}, fmt.Errorf("row span %s: %w", t.Name, err)
	}
	if n, ok := rs.Rows[0][0].(int64); ok && n > 0 {
		if last, ok := rs.Rows[0][1].(int64); ok && last >= lo {
			span.PerPosition = float64(n) / (float64(last) - float64(lo) + 1)
		}
	}
	return span, nil
}

// densityProbe is how many of a table's first rows RowSpan reads to
// tell how densely its rowids are used.
const densityProbe = 1000

// rowidName is the first of rowidNames no column takes, or "".
func rowidName(cols []env.Column) string {
	for _, n := range rowidNames {
		taken := false
		for _, c := range cols {
			taken = taken || strings.EqualFold(c.Name, n)
		}
		if !taken {
			return n
		}
	}
	return ""
}
