package tools

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/sqlgym/sqlgym/env"
)

// SearchValues runs search_values: the stored text values that best match
// the query, ranked by the runner's env.ValueSearcher, within the query
// timeout. Each match is shown as table.column = 'value' (rows), written
// as the model would write it in SQL; a note says which columns were
// indexed only in part. A table or column that does not exist, or a
// runner with no searcher, is Result.Error.
func (r *Runner) SearchValues(ctx context.Context, t Target, a *SearchValuesArgs) (Result, error) {
	if r.cfg.Values == nil {
		return r.failure("search values", env.NewQueryError(env.ErrUnavailable,
			"search_values is not available on this server (it has no value index)"))
	}
	limit := DefaultSearchLimit
	if a.Limit != nil {
		limit = *a.Limit
	}
	ctx, cancel := context.WithTimeout(ctx, r.cfg.QueryTimeout)
	defer cancel()
	q := env.ValueQuery{Query: a.Query, Table: strings.TrimSpace(a.Table), Column: strings.TrimSpace(a.Column), Limit: limit}
	m, err := r.cfg.Values.SearchValues(ctx, t.Dataset, t.DBID, t.DB, q)
	if err != nil {
		return r.failure("search values", r.timedOut(ctx, "search_values", err))
	}
	return Result{Content: r.renderMatches(q, m, t.Dialect)}, nil
}

// timedOut turns the error of a call whose own deadline passed into a
// timeout QueryError, as a statement past the query timeout is; other
// errors are returned as they are.
func (r *Runner) timedOut(ctx context.Context, tool string, err error) error {
	var qe *env.QueryError
	if errors.As(err, &qe) || !errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return err
	}
	return env.NewQueryError(env.ErrTimeout, fmt.Sprintf("%s ran past the %s time limit", tool, r.cfg.QueryTimeout))
}

// renderMatches is search_values's observation.
func (r *Runner) renderMatches(q env.ValueQuery, m *env.ValueMatches, dialect env.Dialect) string {
	var b strings.Builder
	where := ""
	if q.Table != "" || q.Column != "" {
		where = " in " + strings.Trim(q.Table+"."+q.Column, ".")
	}
	switch len(m.Matches) {
	case 0:
		fmt.Fprintf(&b, "No stored value matches %s%s.\n", sqlString(q.Query), where)
	case 1:
		fmt.Fprintf(&b, "1 value matches %s%s:\n", sqlString(q.Query), where)
	default:
		fmt.Fprintf(&b, "%d values match %s%s, best first:\n", len(m.Matches), sqlString(q.Query), where)
	}
	for _, v := range m.Matches {
		fmt.Fprintf(&b, "%s.%s = %s %s\n", quoteIdent(v.Table, dialect), quoteIdent(v.Column, dialect),
			sqlString(r.cell(v.Value)), countRows(int(v.Rows)))
	}
	b.WriteString(indexNote(m))
	return clip(strings.TrimSuffix(b.String(), "\n"), r.budget())
}

// indexNote says what the value index, and the bounds of this search,
// left out; "" when nothing.
func indexNote(m *env.ValueMatches) string {
	var notes []string
	if n := len(m.Sampled); n > 0 {
		names := m.Sampled[:min(n, 5)]
		more := ""
		if n > len(names) {
			more = fmt.Sprintf(" and %d more", n-len(names))
		}
		notes = append(notes, fmt.Sprintf("only the most frequent values of %s%s are searched (too many distinct values)",
			strings.Join(names, ", "), more))
	}
	if m.LongSkipped > 0 {
		notes = append(notes, fmt.Sprintf("%d very long values are not searched", m.LongSkipped))
	}
	if m.Capped {
		notes = append(notes, "the database has more values than the index holds: some columns are not searched")
	}
	notes = append(notes, m.Cut...)
	if len(notes) == 0 {
		return ""
	}
	return "Note: " + strings.Join(notes, "; ") + ".\n"
}

// sqlString writes s as an SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
