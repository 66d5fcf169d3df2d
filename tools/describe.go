package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym/env"
)

// Values describe_column shows of a column.
const (
	describeTopValues    = 5 // most frequent values, with counts
	describeSampleValues = 5 // sample values
)

// columnProfile is what describe_column reads of one column.
type columnProfile struct {
	table, column, declared string
	stats                   *env.ResultSet // count(*), count(c), count(DISTINCT c), min(c), max(c)
	types                   *env.ResultSet // stored type, rows (SQLite only)
	top                     *env.ResultSet // value, rows
	samples                 *env.ResultSet // value
	// est is set when the profile was read from a sample: stats, types
	// and samples are then the sample's, top is unset, and est holds the
	// estimates for the table.
	est *estimate
}

// DescribeColumn runs describe_column: the column's declared type and the
// types actually stored (SQLite keeps a type per value; PostgreSQL one per
// column), its row count, NULL share, distinct count, min and max, its most
// frequent values with their counts and a few sample values. Its
// statements run under the same limits as execute_sql's, and the call as a
// whole within the query timeout. Its work is bounded whatever the table's
// size: a table of more rows than the sample's (Config.DescribeSampleRows)
// is profiled from a sample of that many, spread over the table, and the
// reply gives the estimates with their margins (describe_sample.go). A
// table or column that does not exist is Result.Error (no_such_table,
// no_such_column) naming what there is.
func (r *Runner) DescribeColumn(ctx context.Context, db env.DB, dialect env.Dialect, a *DescribeColumnArgs) (Result, error) {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.QueryTimeout)
	defer cancel()
	t, err := db.Describe(ctx, strings.TrimSpace(a.Table), 0)
	if err != nil {
		res, ferr := r.failure("describe column", r.timedOut(ctx, "describe_column", err))
		if ferr == nil && errors.Is(err, env.ErrNoSuchTable) {
			res.Content = r.withTableNames(ctx, db, dialect, res.Content)
		}
		return res, ferr
	}
	col, ok := findColumn(t, a.Column)
	if !ok {
		return r.failure("describe column", env.NewQueryError(env.ErrNoSuchColumn, fmt.Sprintf(
			"no such column: %s.%s; its columns are %s", quoteIdent(t.Name, dialect), a.Column, columnNames(t, dialect))))
	}
	p, err := r.profile(ctx, db, dialect, t.Name, col)
	if err != nil {
		return r.failure("describe column", r.timedOut(ctx, "describe_column", err))
	}
	if p.est != nil {
		return Result{Content: r.renderEstimate(p, dialect)}, nil
	}
	return Result{Content: r.renderProfile(p, dialect)}, nil
}

// findColumn finds a column by name, exactly or else case-insensitively.
func findColumn(t *env.Table, name string) (env.Column, bool) {
	name = strings.TrimSpace(name)
	for _, c := range t.Columns {
		if c.Name == name {
			return c, true
		}
	}
	for _, c := range t.Columns {
		if strings.EqualFold(c.Name, name) {
			return c, true
		}
	}
	return env.Column{}, false
}

func columnNames(t *env.Table, dialect env.Dialect) string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = quoteIdent(c.Name, dialect)
	}
	return strings.Join(names, ", ")
}

// profile reads what describe_column shows of a column: of the whole
// table when it has at most the sample's rows (r.sampleRows), else of a
// sample of that many, spread over the table (sampledProfile).
func (r *Runner) profile(ctx context.Context, db env.DB, dialect env.Dialect, table string, col env.Column) (*columnProfile, error) {
	n := r.sampleRows()
	rs, err := db.Query(ctx, fmt.Sprintf("SELECT count(*) FROM (SELECT 1 FROM %s LIMIT %d) AS head", alwaysQuoted(table), n+1), r.Limits())
	if err != nil {
		return nil, err
	}
	if rows := asInt(firstRow(rs, 1)[0]); rows > int64(n) {
		return r.sampledProfile(ctx, db, dialect, table, col, rows)
	}
	return r.exactProfile(ctx, db, dialect, table, col)
}

// exactProfile runs describe_column's statements over the whole table,
// each under execute_sql's limits.
func (r *Runner) exactProfile(ctx context.Context, db env.DB, dialect env.Dialect, table string, col env.Column) (*columnProfile, error) {
	tq, cq := alwaysQuoted(table), alwaysQuoted(col.Name)
	p := &columnProfile{table: table, column: col.Name, declared: col.Type}
	lim := r.Limits()
	queries := []struct {
		dst **env.ResultSet
		sql string
	}{
		{&p.stats, fmt.Sprintf("SELECT count(*), count(%[1]s), count(DISTINCT %[1]s), min(%[1]s), max(%[1]s) FROM %[2]s", cq, tq)},
		{&p.top, fmt.Sprintf("SELECT %[1]s, count(*) FROM %[2]s WHERE %[1]s IS NOT NULL GROUP BY %[1]s ORDER BY count(*) DESC, %[1]s LIMIT %[3]d",
			cq, tq, describeTopValues)},
		{&p.samples, fmt.Sprintf("SELECT DISTINCT %[1]s FROM %[2]s WHERE %[1]s IS NOT NULL LIMIT %[3]d", cq, tq, describeSampleValues)},
	}
	if dialect == env.SQLite {
		queries = append(queries, struct {
			dst **env.ResultSet
			sql string
		}{&p.types, fmt.Sprintf("SELECT typeof(%[1]s), count(*) FROM %[2]s GROUP BY 1 ORDER BY 2 DESC, 1", cq, tq)})
	}
	for _, q := range queries {
		rs, err := db.Query(ctx, q.sql, lim)
		if err != nil {
			return nil, err
		}
		*q.dst = rs
	}
	return p, nil
}

// alwaysQuoted writes a name in double quotes, as both dialects read it.
func alwaysQuoted(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }

// renderProfile is describe_column's observation.
func (r *Runner) renderProfile(p *columnProfile, dialect env.Dialect) string {
	var b strings.Builder
	decl := p.declared
	if decl == "" {
		decl = "none"
	}
	fmt.Fprintf(&b, "Column %s.%s, declared type %s\n", quoteIdent(p.table, dialect), quoteIdent(p.column, dialect), decl)
	row := firstRow(p.stats, 5)
	total, nonNull := asInt(row[0]), asInt(row[1])
	share := 0.0
	if total > 0 {
		share = 100 * float64(total-nonNull) / float64(total)
	}
	fmt.Fprintf(&b, "Rows: %d; NULL: %d (%.1f%%); distinct values: %d\n", total, total-nonNull, share, asInt(row[2]))
	if p.types != nil {
		fmt.Fprintf(&b, "Stored types: %s\n", r.pairs(p.types, false))
	}
	if nonNull > 0 {
		fmt.Fprintf(&b, "Min: %s; max: %s\n", r.literal(row[3]), r.literal(row[4]))
		fmt.Fprintf(&b, "Most frequent values (rows): %s\n", r.pairs(p.top, true))
		fmt.Fprintf(&b, "Sample values: %s\n", r.values(p.samples))
	}
	return clip(strings.TrimSuffix(b.String(), "\n"), r.budget())
}

// firstRow is rs's first row, padded to n cells.
func firstRow(rs *env.ResultSet, n int) []any {
	row := make([]any, n)
	if rs != nil && len(rs.Rows) > 0 {
		copy(row, rs.Rows[0])
	}
	return row
}

func asInt(v any) int64 {
	switch x := v.(type) {
	case int64:
		return x
	case float64:
		return int64(x)
	}
	return 0
}

// literal writes a value as SQL would: text quoted, numbers as they are.
func (r *Runner) literal(v any) string {
	if s, ok := v.(string); ok {
		return sqlString(r.cell(s))
	}
	return r.cell(FormatValue(v))
}

// pairs writes two-column rows as "value (n), value (n)"; quote writes
// the values as SQL literals.
func (r *Runner) pairs(rs *env.ResultSet, quote bool) string {
	parts := make([]string, 0, len(rs.Rows))
	for _, row := range rs.Rows {
		v := r.cell(FormatValue(row[0]))
		if quote {
			v = r.literal(row[0])
		}
		parts = append(parts, fmt.Sprintf("%s (%d)", v, asInt(row[1])))
	}
	return strings.Join(parts, ", ")
}

// values writes one-column rows as SQL literals.
func (r *Runner) values(rs *env.ResultSet) string {
	parts := make([]string, 0, len(rs.Rows))
	for _, row := range rs.Rows {
		parts = append(parts, r.literal(row[0]))
	}
	return strings.Join(parts, ", ")
}
