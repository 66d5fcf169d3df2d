package tools

import (
	"math"

	"github.com/sqlgym/sqlgym/env"
)

// z95 is the normal quantile of a two-sided 95% interval.
const z95 = 1.96

// estimate is what a sample tells of the whole table: how many rows it
// has, how many each row read stands for, and so the table's counts of
// what the sample counted, each with a 95% margin.
type estimate struct {
	s         sampling
	sampled   int64     // rows read
	nonNull   int64     // of them, not NULL
	rows      float64   // the table's rows: the engine's count, or estimated from the sample
	fromStats bool      // rows is the engine's count (its statistics)
	weights   []float64 // per run: the table's rows one row read in the run stands for
	nulls     []float64 // per run: NULLs read
	top       []topValue
}

// topValue is one of the sample's most frequent values: its count in
// the sample, and the table's, estimated, with its margin.
type topValue struct {
	value        any
	inSample     int64
	rows, margin float64
}

// newEstimate reads the sample's runs (rows of run, rows, non-NULL rows,
// last position read) and estimates the table's rows, from what each run
// stands for (sampling.stands), or the engine's own count when it keeps
// one.
// atLeast is what the table is known to hold (more than the sample).
func newEstimate(s sampling, perRun *env.ResultSet, atLeast int64) *estimate {
	e := &estimate{s: s}
	runs := max(len(s.runs), 1)
	e.weights, e.nulls = make([]float64, runs), make([]float64, runs)
	read := make([]float64, runs)   // rows read per run
	stands := make([]float64, runs) // rows of the table each run stands for
	for _, row := range perRun.Rows {
		k, n, nonNull := asInt(row[0]), asInt(row[1]), asInt(row[2])
		if k < 0 || int(k) >= runs || n == 0 {
			continue
		}
		e.sampled += n
		e.nonNull += nonNull
		read[k], e.nulls[k] = float64(n), float64(n-nonNull)
		stands[k] = float64(n)
		if len(s.runs) > 0 {
			stands[k] = s.stands(int(k), n, asInt(row[3]))
		}
	}
	density := sum(stands)
	e.rows = density
	if s.span.Rows >= 0 && len(s.runs) > 0 {
		e.rows, e.fromStats = float64(s.span.Rows), true
	}
	if len(s.runs) == 0 { // the first rows: nothing tells how many more there are
		e.rows = float64(e.sampled)
	}
	e.rows = max(e.rows, float64(atLeast))
	for k := range stands {
		if read[k] > 0 && density > 0 {
			e.weights[k] = stands[k] / read[k] * e.rows / density
		}
	}
	if len(s.runs) == 0 {
		e.weights[0] = 1 // counts are the sample's own
	}
	return e
}

// stands is how many rows of the table run k stands for, having read n
// rows up to position last: its share of the span times the rows per
// position of its window. A window read whole counts those exactly; a
// run that stopped at its bound counts them up to its last rowid, while
// in part of a page it cannot tell, so the engine's rows per page count.
func (s sampling) stands(k int, n, last int64) float64 {
	w, share := s.windows[k], float64(s.runs[k].b-s.runs[k].a)
	switch {
	case n < int64(s.perRun):
		return float64(n) * share / float64(w.b-w.a)
	case s.span.Shared:
		return s.span.PerPosition * share
	default:
		return float64(n) * share / float64(last-w.a+1)
	}
}

// scaled reads the sample's first rows only: its counts are not scaled
// to the table, whose size is unknown.
func (e *estimate) scaled() bool { return len(e.s.runs) > 0 }

// total estimates the table's count of what the sample counted count[k]
// of in run k, with its 95% margin: the larger of the systematic
// sample's (successive differences of the runs' estimates, which a value
// stored in one part of the table makes large) and a simple random
// sample's of the same size (binomial).
func (e *estimate) total(count []float64) (value, margin float64) {
	y := make([]float64, len(count))
	for k := range count {
		y[k] = e.weights[k] * count[k]
	}
	value = sum(y)
	var sd float64
	if K := float64(len(y)); K >= 2 {
		for k := 1; k < len(y); k++ {
			sd += (y[k] - y[k-1]) * (y[k] - y[k-1])
		}
		sd *= K / (2 * (K - 1))
	}
	var srs float64
	if n := float64(e.sampled); n > 0 && e.rows > 0 {
		p := min(max(value/e.rows, 0), 1)
		srs = e.rows * e.rows * p * (1 - p) / n * max(0, 1-n/e.rows)
	}
	return value, z95 * math.Sqrt(max(sd, srs))
}

// distinct estimates the column's distinct values from the sample's:
// Haas and Stokes' Duj1 estimator (as PostgreSQL's ANALYZE uses),
// n*d / (n - f1 + f1*n/N), where n non-NULL values were read, d of them
// distinct and f1 seen once, and the table holds N non-NULL values. It
// is at least d, and at most N.
func distinct(d, f1, n, N float64) float64 {
	if n <= 0 || d <= 0 {
		return 0
	}
	est := n * d / max(n-f1+f1*n/N, 1)
	return min(max(est, d), max(N, d))
}

// readTop reads the sample's most frequent values from rows of (value,
// its count in the sample, run, its count in the run), and estimates
// each one's rows in the table.
func (e *estimate) readTop(rs *env.ResultSet) {
	var counts []float64
	flush := func() {
		if len(e.top) > 0 && counts != nil {
			t := &e.top[len(e.top)-1]
			t.rows, t.margin = e.total(counts)
		}
	}
	for i, row := range rs.Rows {
		if i == 0 || !sameValue(row[0], rs.Rows[i-1][0]) {
			flush()
			e.top = append(e.top, topValue{value: row[0], inSample: asInt(row[1])})
			counts = make([]float64, len(e.weights))
		}
		if k := asInt(row[2]); k >= 0 && int(k) < len(counts) {
			counts[k] = float64(asInt(row[3]))
		}
	}
	flush()
}

// sameValue reports whether two cells hold the same value.
func sameValue(a, b any) bool {
	if x, ok := a.([]byte); ok {
		y, ok := b.([]byte)
		return ok && string(x) == string(y)
	}
	return a == b
}

func sum(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s
}
