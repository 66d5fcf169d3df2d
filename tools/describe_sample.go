package tools

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/sqlgym/sqlgym/env"
)

// DefaultDescribeSampleRows is the most rows describe_column reads of a
// table by default: a table with more is profiled from a sample of this
// many. On the development machine a sample of this size costs about
// 0.1-0.3 s of CPU (docs/benchmarks.md, "Growth: table size").
const DefaultDescribeSampleRows = 50_000

// describeRuns is how many runs of consecutive rows a sample reads,
// spread evenly over the table's span: enough that a value stored in one
// part of the table shows in the sample, few enough that each run reads
// hundreds of rows in one range read.
const describeRuns = 100

// sampleRows is the most rows describe_column reads of a table.
func (r *Runner) sampleRows() int { return r.cfg.DescribeSampleRows }

// sampling is how a sample was read: the table's span, each run's share
// of it and the window of that share the run reads (none when the table
// has no span: its first rows are read instead), the most rows read per
// run, and the FROM item that reads the sample, with columns k (the run),
// p (the row's position) and v (the column's value).
type sampling struct {
	span    env.Span
	runs    []posRange
	windows []posRange
	perRun  int
	from    string
}

// posRange is the positions a to b, b excluded.
type posRange struct{ a, b int64 }

// newSampling is the sample of at most rows rows of the column of table
// spread over span: describeRuns runs (fewer when the span has fewer
// positions), each the rows of a window of its share of the span, sized
// to hold the run's rows, whose start varies from run to run (so that
// rows stored in a repeating pattern are not always read at the same
// point of it). A table without a span is sampled by its first rows.
// On MySQL a run is a parenthesised SELECT, not a derived table: MariaDB
// plans each of a hundred derived tables anew wherever the sample is
// used, past its max_session_mem_used (SQLite takes no parentheses).
func newSampling(dialect env.Dialect, table, column string, span env.Span, rows int) sampling {
	tq, cq := alwaysQuoted(table), alwaysQuoted(column)
	if span.Position == "" || span.Hi <= span.Lo {
		return sampling{span: span, perRun: rows,
			from: fmt.Sprintf("(SELECT 0 AS k, 0 AS p, %s AS v FROM %s LIMIT %d) AS sample", cq, tq, rows)}
	}
	s := sampling{span: span, runs: splitSpan(span.Lo, span.Hi, describeRuns)}
	s.perRun = max(rows/len(s.runs), 1)
	length := uint64(math.Ceil(float64(s.perRun) / max(span.PerPosition, 1e-9)))
	arms := make([]string, len(s.runs))
	for i, run := range s.runs {
		w := window(run, length, uint64(i))
		s.windows = append(s.windows, w)
		arm := fmt.Sprintf("SELECT %d AS k, %s AS p, %s AS v FROM %s WHERE %s LIMIT %d",
			i, span.Position, cq, tq, fmt.Sprintf(span.Range, w.a, w.b), s.perRun)
		if dialect == env.MySQL {
			arms[i] = "(" + arm + ")"
		} else {
			arms[i] = fmt.Sprintf("SELECT * FROM (%s) AS run%d", arm, i)
		}
	}
	s.from = "(" + strings.Join(arms, " UNION ALL ") + ") AS sample"
	return s
}

// window is length positions of run (all of it when it has no more),
// from a start chosen by the run's number i: the same on every call, so
// that the same column gets the same profile.
func window(run posRange, length, i uint64) posRange {
	width := uint64(run.b - run.a)
	if length >= width {
		return run
	}
	start := run.a + int64(splitmix(i)%(width-length+1))
	return posRange{start, start + int64(length)}
}

// splitmix is SplitMix64's output function: i's bits well mixed.
func splitmix(i uint64) uint64 {
	z := i*0x9e3779b97f4a7c15 + 0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return z ^ z>>31
}

// splitSpan cuts [lo, hi) into at most n ranges of near-equal width,
// none empty. The arithmetic is unsigned: rowids may span all of int64.
func splitSpan(lo, hi int64, n int) []posRange {
	width := uint64(hi - lo)
	n = int(min(uint64(n), width))
	out := make([]posRange, n)
	for i := range out {
		out[i] = posRange{lo + int64(spanCut(width, i, n)), lo + int64(spanCut(width, i+1, n))}
	}
	return out
}

// spanCut is width*i/n without overflow.
func spanCut(width uint64, i, n int) uint64 {
	q, r := width/uint64(n), width%uint64(n)
	return q*uint64(i) + r*uint64(i)/uint64(n)
}

// sampledProfile profiles a column of a table of more than r.sampleRows
// rows (at least rows) from a sample of at most that many: its
// statements read the sample, not the table, so their work does not
// grow with the table.
func (r *Runner) sampledProfile(ctx context.Context, db env.DB, dialect env.Dialect, table string, col env.Column, rows int64) (*columnProfile, error) {
	span := env.Span{Rows: -1}
	if rsp, ok := db.(env.RowSpanner); ok {
		var err error
		if span, err = rsp.RowSpan(ctx, table); err != nil {
			return nil, err
		}
	}
	s := newSampling(dialect, table, col.Name, span, r.sampleRows())
	p := &columnProfile{table: table, column: col.Name, declared: col.Type}
	// MATERIALIZED keeps SQLite and PostgreSQL from reading the sample
	// once per use; MySQL and MariaDB have no such word (and materialize
	// a CTE used twice by themselves).
	m := " MATERIALIZED"
	if dialect == env.MySQL {
		m = ""
	}
	var perRun, top *env.ResultSet
	queries := []struct {
		dst **env.ResultSet
		sql string
	}{
		{&perRun, fmt.Sprintf("SELECT k, count(*), count(v), max(p) FROM %s GROUP BY k ORDER BY k", s.from)},
		{&p.stats, fmt.Sprintf("WITH s AS%s (SELECT v FROM %s) SELECT count(*), count(v), count(DISTINCT v), min(v), max(v), "+
			"(SELECT count(*) FROM (SELECT v FROM s WHERE v IS NOT NULL GROUP BY v HAVING count(*) = 1) AS once) FROM s", m, s.from)},
		{&top, fmt.Sprintf("WITH s AS%s (SELECT k, v FROM %s WHERE v IS NOT NULL), "+
			"top AS (SELECT v, count(*) AS n FROM s GROUP BY v ORDER BY n DESC, v LIMIT %d) "+
			"SELECT top.v, top.n, s.k, count(*) FROM top JOIN s ON s.v = top.v GROUP BY top.v, top.n, s.k ORDER BY top.n DESC, top.v, s.k",
			m, s.from, describeTopValues)},
		{&p.samples, fmt.Sprintf("SELECT DISTINCT v FROM %s WHERE v IS NOT NULL LIMIT %d", s.from, describeSampleValues)},
	}
	if dialect == env.SQLite {
		queries = append(queries, struct {
			dst **env.ResultSet
			sql string
		}{&p.types, fmt.Sprintf("SELECT typeof(v), count(*) FROM %s GROUP BY 1 ORDER BY 2 DESC, 1", s.from)})
	}
	lim := r.Limits()
	lim.MaxRows = max(lim.MaxRows, describeRuns*describeTopValues)
	for _, q := range queries {
		rs, err := db.Query(ctx, q.sql, lim)
		if err != nil {
			return nil, err
		}
		*q.dst = rs
	}
	p.est = newEstimate(s, perRun, rows)
	p.est.readTop(top)
	return p, nil
}
