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
	b.WriteString(indexNote(m, dialect))
	return clip(strings.TrimSuffix(b.String(), "\n"), r.budget())
}

// indexNote says what the value index, and the bounds of this search,
// left out; "" when nothing.
func indexNote(m *env.ValueMatches, dialect env.Dialect) string {
	var notes []string
	if len(m.Partial) > 0 {
		notes = append(notes, partialNote(m.Partial, dialect))
	}
	if m.LongSkipped > 0 {
		notes = append(notes, fmt.Sprintf("%d very long values are not searched", m.LongSkipped))
	}
	notes = append(notes, m.Cut...)
	if len(notes) == 0 {
		return ""
	}
	return "Note: " + strings.Join(notes, "; ") + ".\n"
}

// partialNotes is how many columns indexed in part a reply names.
const partialNotes = 5

// partialNote names the columns searched that the index holds in part:
// how many of their distinct values it keeps, which ones, and the bound
// that cut them; a value not found there may still be stored.
func partialNote(cols []env.PartialColumn, dialect env.Dialect) string {
	parts := make([]string, 0, partialNotes)
	for _, c := range cols[:min(len(cols), partialNotes)] {
		parts = append(parts, fmt.Sprintf("%s.%s: %s of %s distinct values kept%s (cut by %s)",
			quoteIdent(c.Table, dialect), quoteIdent(c.Column, dialect), grouped(float64(c.Indexed)), grouped(float64(c.Distinct)),
			whichKept(c), c.Bound))
	}
	if n := len(cols) - len(parts); n > 0 {
		parts = append(parts, fmt.Sprintf("and %d more %s", n, plural(n, "column", "columns")))
	}
	return strings.Join(parts, "; ") + "; a value not found in such a column may still be stored there: look for it with execute_sql"
}

// whichKept says which values a column cut kept: the most frequent, and
// of the values held by as many rows where the cut fell, a sample chosen
// by a hash of their text ("" when it kept none).
func whichKept(c env.PartialColumn) string {
	rows := func(n int64) string { return grouped(float64(n)) + " " + plural(int(n), "row", "rows") }
	switch {
	case c.Indexed == 0:
		return ""
	case c.TieRows == 0:
		return ", the most frequent"
	case c.TieKept == 0:
		return ", the most frequent: every one held by more than " + rows(c.TieRows)
	case c.TieKept == c.Indexed:
		return fmt.Sprintf(", a sample (by a hash of the text) of the %s held by %s", grouped(float64(c.TieTotal)), rows(c.TieRows))
	}
	return fmt.Sprintf(": every one held by more than %s, and a sample (by a hash of the text) of %s of the %s held by %s",
		rows(c.TieRows), grouped(float64(c.TieKept)), grouped(float64(c.TieTotal)), rows(c.TieRows))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// sqlString writes s as an SQL string literal.
func sqlString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
